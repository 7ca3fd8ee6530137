package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
)

// perTable is one statement run on every table at once, each on its own connection, as the
// reference's cleanup runs a client per table in the background (ANALYZE TABLE, VACUUM).
type perTable struct {
	what   string // the statement without its table, for the note
	tables []string
	secs   []float64
	errs   []error
	done   chan struct{}
}

// startPerTable starts run on every table, each in its own goroutine on its own connection of
// db, and returns at once. run must return soon after ctx is done.
func startPerTable(ctx context.Context, db *sql.DB, what string, tables []string,
	run func(ctx context.Context, conn *sql.Conn, table string) error) *perTable {
	p := &perTable{what: what, tables: tables, secs: make([]float64, len(tables)),
		errs: make([]error, len(tables)), done: make(chan struct{})}
	var wg sync.WaitGroup
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			conn, err := db.Conn(ctx)
			if err == nil {
				err = run(ctx, conn, t)
				conn.Close()
			}
			p.secs[i] = time.Since(t0).Seconds()
			if err != nil {
				p.errs[i] = fmt.Errorf("%s %s: %w", what, t, err)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(p.done)
	}()
	return p
}

// wait waits until every statement has ended, notes their seconds through h and returns their
// errors.
func (p *perTable) wait(h engine.CleanupHooks) error {
	<-p.done
	if len(p.tables) == 0 {
		h.Notef("%s: no table", p.what)
		return nil
	}
	parts := make([]string, len(p.tables))
	for i, t := range p.tables {
		parts[i] = fmt.Sprintf("%s %.1f s", t, p.secs[i])
		if p.errs[i] != nil {
			parts[i] += " (failed)"
		}
	}
	h.Notef("%s, a connection per table in parallel: %s", p.what, strings.Join(parts, ", "))
	return errors.Join(p.errs...)
}

// execer runs a statement: a pool (*sql.DB) or one of its connections (*sql.Conn).
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// timed runs one statement of a cleanup on conn and notes it with its seconds.
func timed(ctx context.Context, conn execer, h engine.CleanupHooks, q string) error {
	t0 := time.Now()
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	h.Notef("%s: %.1f s", q, time.Since(t0).Seconds())
	return nil
}
