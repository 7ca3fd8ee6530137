package shard

import (
	"context"
	"fmt"
	"time"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// setupTimeout bounds the creation of the shards' tables and each statement of a barrier or
// on the heartbeats.
const setupTimeout = time.Minute

// createTable creates table, of columns, in db unless it is there: shards that create it at
// once all succeed, the losers' errors being harmless once it exists. what names the table in
// the error: "barrier" for "create the shards' barrier table".
func createTable(ctx context.Context, db sqldb.DB, table, what, columns string) error {
	_, err := db.SQL().ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+" ("+columns+")")
	if err == nil {
		return nil
	}
	if found, ferr := sqldb.ExistingTables(ctx, db, []string{table}); ferr == nil && len(found) > 0 {
		return nil
	}
	return fmt.Errorf("create the shards' %s table %s: %w", what, table, err)
}
