package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

// rtRows is the number of rows of the round-trip benchmark's table.
const rtRows = 1000

// BenchmarkRoundTrip measures the client's CPU per point SELECT by primary key on a managed
// PostgreSQL and MariaDB InnoDB server (issue 18): one *sql.Conn, a text statement (its
// arguments interpolated by the client) or a prepared *sql.Stmt, and a context that cannot be
// cancelled (context.Background) or one from context.WithCancel that never is. client-us/op is
// the CPU time of this process (getrusage RUSAGE_SELF, user+sys; the server is another process
// and not counted) per statement, client-sys-us/op its system part.
func BenchmarkRoundTrip(b *testing.B) {
	rtServers(b, func(b *testing.B, e *serverEngine, conn *sql.Conn, q string) {
		for _, v := range rtVariants() {
			b.Run(v.name, func(b *testing.B) { rtRun(b, conn, q, v) })
		}
	})
}

// rtServers runs fn as a sub-benchmark for PostgreSQL and InnoDB (MyRocks has InnoDB's client),
// on a managed server with the table rt, one connection of the engine's pool and the point
// SELECT.
func rtServers(b *testing.B, fn func(b *testing.B, e *serverEngine, conn *sql.Conn, q string)) {
	for _, c := range serverCases() {
		if c.driver.Name == "myrocks" {
			continue
		}
		b.Run(c.driver.Name, func(b *testing.B) {
			e := c.openManaged(b)
			fn(b, e, rtSetup(b, e), Bind(e.Dialect(), "SELECT v FROM rt WHERE id = ?"))
		})
	}
}

// rtVariant is one way of issuing the benchmark's statement.
type rtVariant struct {
	name     string
	prepared bool
	cancel   bool
}

func rtVariants() []rtVariant {
	return []rtVariant{
		{"text-background", false, false},
		{"text-withcancel", false, true},
		{"prepared-background", true, false},
		{"prepared-withcancel", true, true},
	}
}

// rtSetup creates table rt (id primary key, v) with rtRows rows and returns one connection,
// closed at the end of the benchmark.
func rtSetup(b *testing.B, e *serverEngine) *sql.Conn {
	b.Helper()
	ctx := context.Background()
	d := e.Dialect()
	if _, err := e.SQL().ExecContext(ctx, fmt.Sprintf("CREATE TABLE rt (id %s PRIMARY KEY, v %s NOT NULL)%s",
		d.Type(BigInt, 0), d.Type(BigInt, 0), d.TableOptions())); err != nil {
		b.Fatalf("create rt: %v", err)
	}
	ins := Bind(d, "INSERT INTO rt (id, v) VALUES (?, ?)")
	for i := 1; i <= rtRows; i++ {
		if _, err := e.SQL().ExecContext(ctx, ins, i, 2*i); err != nil {
			b.Fatalf("insert rt: %v", err)
		}
	}
	conn, err := e.SQL().Conn(ctx)
	if err != nil {
		b.Fatalf("conn: %v", err)
	}
	b.Cleanup(func() { conn.Close() })
	return conn
}

// rtRun runs b.N point SELECTs the variant's way and reports the client's CPU per statement.
func rtRun(b *testing.B, conn *sql.Conn, q string, v rtVariant) {
	ctx := context.Background()
	if v.cancel {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	query := func(id int64) *sql.Row { return conn.QueryRowContext(ctx, q, id) }
	if v.prepared {
		st, err := conn.PrepareContext(ctx, q)
		if err != nil {
			b.Fatalf("prepare: %v", err)
		}
		defer st.Close()
		query = func(id int64) *sql.Row { return st.QueryRowContext(ctx, id) }
	}
	var got int64
	b.ResetTimer()
	cpu := runnertest.StartClientCPU(b)
	for i := 0; i < b.N; i++ {
		id := int64(i%rtRows + 1)
		if err := query(id).Scan(&got); err != nil {
			b.Fatalf("select %d: %v", id, err)
		}
		if got != 2*id {
			b.Fatalf("select %d: v = %d, want %d", id, got, 2*id)
		}
	}
	cpu.Report(b)
	b.StopTimer()
}
