package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SnapshotBlocksWriters returns why a read transaction of Dialect.BeginSnapshot held open on
// conn, a connection of db, would stop every writer rather than only hold back the engine's
// cleanup, or "" when it would not: SQLite outside WAL mode, whose readers and writers exclude
// each other. The servers' snapshots never block a writer.
func SnapshotBlocksWriters(ctx context.Context, db DB, conn *sql.Conn) (string, error) {
	if db.Dialect().Kind() != SQLite {
		return "", nil
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return "", fmt.Errorf("sqlite: PRAGMA journal_mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Sprintf("sqlite in journal_mode %s: a read transaction held open blocks every writer; use journal_mode wal", mode), nil
	}
	return "", nil
}
