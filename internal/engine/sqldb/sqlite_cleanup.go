//go:build cgo

package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
)

// sqliteAnalysisLimit is the analysis_limit of the cleanup's ANALYZE: each index is sampled
// (about this many rows), as the servers' ANALYZE samples, rather than read in full.
const sqliteAnalysisLimit = 1000

// Cleanup is the SQLite analogue of the servers' cleanup: ANALYZE on every table, one after
// the other (SQLite has one writer), with PRAGMA analysis_limit = sqliteAnalysisLimit; then
// it copies the whole WAL into the database and truncates it to zero bytes
// (PRAGMA wal_checkpoint(TRUNCATE)), as a checkpoint. It waits up to busy_timeout_ms for other
// connections' transactions, and fails if one still holds the WAL, or when ctx is done. The
// caller's wait comes after it.
func (e *sqliteDB) Cleanup(ctx context.Context, h engine.CleanupHooks) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: cleanup: %w", err)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: cleanup: %w", err)
	}
	defer conn.Close()
	if err := e.analyze(ctx, conn, h); err != nil {
		return fmt.Errorf("sqlite: cleanup: %w", err)
	}
	t0 := time.Now()
	var busy, logPages, done int64
	err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logPages, &done)
	if err != nil {
		return fmt.Errorf("sqlite: cleanup: wal_checkpoint(TRUNCATE): %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("sqlite: cleanup: wal_checkpoint(TRUNCATE) blocked by another connection "+
			"(%d of %d WAL pages checkpointed)", done, logPages)
	}
	h.Notef("PRAGMA wal_checkpoint(TRUNCATE): %d WAL pages, %.1f s", logPages, time.Since(t0).Seconds())
	return nil
}

// analyze runs ANALYZE on every table of the database on conn, sampled, and notes each.
func (e *sqliteDB) analyze(ctx context.Context, conn *sql.Conn, h engine.CleanupHooks) error {
	rows, err := conn.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("list the tables: %w", err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA analysis_limit = %d", sqliteAnalysisLimit)); err != nil {
		return fmt.Errorf("PRAGMA analysis_limit: %w", err)
	}
	parts := make([]string, 0, len(tables))
	for _, t := range tables {
		t0 := time.Now()
		if _, err := conn.ExecContext(ctx, `ANALYZE "`+strings.ReplaceAll(t, `"`, `""`)+`"`); err != nil {
			return fmt.Errorf("ANALYZE %s: %w", t, err)
		}
		parts = append(parts, fmt.Sprintf("%s %.1f s", t, time.Since(t0).Seconds()))
	}
	h.Notef("ANALYZE (analysis_limit %d), one table after the other: %s", sqliteAnalysisLimit, strings.Join(parts, ", "))
	return nil
}
