package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// CountQuery returns the statement that counts the rows of table by reading the index whose
// leading columns are cols. Where hint forces that index (a clause from IndexHint or
// PrimaryKeyHint), it is a count with a condition on cols[0] that every value meets (min is below
// them all). Where hint is "" (the dialect has no hints), it counts a subquery that reads cols in
// index order, which, under the dialect's IndexOrderSettings, only that index can give (see
// Count).
func CountQuery(table, hint string, cols []string, min int64) string {
	if hint == "" {
		list := strings.Join(cols, ", ")
		return fmt.Sprintf("SELECT count(*) FROM (SELECT %s FROM %s ORDER BY %s) AS ordered", list, table, list)
	}
	return fmt.Sprintf("SELECT count(*) FROM %s%s WHERE %s >= %d", table, hint, cols[0], min)
}

// Count counts the rows of table through the index whose leading columns are cols (see
// CountQuery), in a transaction that starts with d's IndexOrderSettings, so that verification
// reads every index, also on a dialect without index hints.
func Count(ctx context.Context, db *sql.DB, d Dialect, table, hint string, cols []string, min int64) (int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if hint == "" {
		for _, st := range d.IndexOrderSettings() {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return 0, fmt.Errorf("%s: %w", st, err)
			}
		}
	}
	var n int64
	if err := tx.QueryRowContext(ctx, CountQuery(table, hint, cols, min)).Scan(&n); err != nil {
		return 0, err
	}
	return n, nil
}
