package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// sleepQuery returns a statement that runs for minutes on the dialect's server, and the
// statement that counts the sessions running it.
func sleepQuery(d Dialect) (sleep, running string) {
	if d.Name() == "postgres" {
		return "SELECT pg_sleep(300)", "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query = 'SELECT pg_sleep(300)'"
	}
	return "SELECT SLEEP(300)", "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(300)'"
}

// TestConnInterruptsItsStatements checks Connect on the server engines: a Conn's statements
// run with a context that cannot be cancelled (so database/sql and the driver watch no
// context per statement), and when the Conn's context ends, the statement in flight fails at
// once with an error that wraps the context's, and the connection is closed, not given back
// to the pool.
func TestConnInterruptsItsStatements(t *testing.T) {
	t.Parallel()
	for _, sc := range serverCases() {
		if sc.driver.Name == "myrocks" {
			continue // the same client and connection as innodb
		}
		t.Run(sc.driver.Name, func(t *testing.T) {
			e := sc.openManaged(t)
			db := e.SQL()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := Connect(ctx, e.DB)
			if err != nil {
				t.Fatal(err)
			}
			if c.Ctx(ctx).Done() != nil {
				t.Fatal("the statements of a Conn run with a context that can be cancelled")
			}
			other := context.Background()
			if c.Ctx(other) != other {
				t.Fatal("Ctx replaced a context the Conn was not opened with")
			}
			var one int
			if err := c.QueryRowContext(c.Ctx(ctx), "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("SELECT 1: %d, %v", one, err)
			}

			sleep, running := sleepQuery(e.Dialect())
			done := make(chan error, 1)
			go func() {
				_, err := c.ExecContext(c.Ctx(ctx), sleep)
				done <- c.Err(err)
			}()
			waitRunning(t, db, running, 1)
			idle := db.Stats().Idle
			cancel()
			err = <-done
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("the interrupted statement returned %v, want an error wrapping context.Canceled", err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if e.Dialect().Name() == "postgres" {
				// The server was asked to stop the statement too.
				waitRunning(t, db, running, 0)
			}
			if got := db.Stats().Idle; got != idle {
				t.Fatalf("idle connections after closing the interrupted Conn: %d, want %d (closed, not pooled)", got, idle)
			}

			// A Conn interrupted between statements fails its next one, and is closed too.
			c2, ctx2 := interruptedConn(t, e.DB)
			_, err = c2.ExecContext(c2.Ctx(ctx2), "SELECT 1")
			if err := c2.Err(err); !errors.Is(err, context.Canceled) {
				t.Fatalf("a statement after the interrupt returned %v, want an error wrapping context.Canceled", err)
			}
			closeNotPooled(t, db, c2, "the interrupted Conn")

			// A Conn interrupted while idle is closed too.
			c4, _ := interruptedConn(t, e.DB)
			closeNotPooled(t, db, c4, "a Conn interrupted while idle")

			// The pool still serves sound connections.
			c3, err := Connect(context.Background(), e.DB)
			if err != nil {
				t.Fatal(err)
			}
			defer c3.Close()
			if err := c3.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("SELECT 1 on a new Conn: %v", err)
			}
		})
	}
}

// interruptedConn connects a Conn on e and ends its context; it returns once the Conn saw the
// end, with that context.
func interruptedConn(t *testing.T, e DB) (*Conn, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Connect(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	<-c.cut
	return c, ctx
}

// closeNotPooled closes c, an interrupted Conn on db, and checks that its connection is closed,
// not given back to the pool.
func closeNotPooled(t *testing.T, db *sql.DB, c *Conn, what string) {
	t.Helper()
	idle := db.Stats().Idle
	c.Close()
	if got := db.Stats().Idle; got != idle {
		t.Fatalf("idle connections after closing %s: %d, want %d", what, got, idle)
	}
}

// waitRunning polls the server until the statement running counts want sessions running the
// statement under test (1: it is in flight; 0: the server stopped it). The wait ends with the
// test's deadline.
func waitRunning(t *testing.T, db *sql.DB, running string, want int) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		if err := db.QueryRowContext(t.Context(), running).Scan(&n); err != nil {
			t.Fatalf("%s: %v", running, err)
		}
		if n == want {
			return
		}
		select {
		case <-tick.C:
		case <-t.Context().Done():
			t.Fatalf("%d sessions never ran the statement under test", want)
		}
	}
}

// TestConnOnSQLiteKeepsTheContext checks that on SQLite, which has no network connection to
// interrupt, a Conn's statements keep the context it was opened with.
func TestConnOnSQLiteKeepsTheContext(t *testing.T) {
	db := openSQLiteTest(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Ctx(ctx) != ctx {
		t.Fatal("a SQLite Conn replaced the context of its statements")
	}
}
