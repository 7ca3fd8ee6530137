package sqldb

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Tables a workload creates, found before it runs on an existing server (Config.DSN), where an
// earlier run may have left them, and dropped after it.

// ExistingTables returns which of tables exist in db's database, in the order of tables: the
// tables an unqualified name resolves to (PostgreSQL: through the search path; MySQL: in the
// connection's database).
func ExistingTables(ctx context.Context, db DB, tables []string) ([]string, error) {
	if len(tables) == 0 {
		return nil, nil
	}
	d := db.Dialect()
	var q string
	args := make([]any, len(tables))
	marks := make([]string, len(tables))
	for i, t := range tables {
		args[i], marks[i] = t, d.Placeholder(i+1)
	}
	in := strings.Join(marks, ", ")
	switch d.Kind() {
	case Postgres:
		q = "SELECT n FROM (VALUES (" + strings.Join(marks, "), (") + ")) AS t(n) WHERE to_regclass(quote_ident(n)) IS NOT NULL"
	case MySQL:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (" + in + ")"
	default:
		q = "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (" + in + ")"
	}
	rows, err := db.SQL().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("look for existing tables: %w", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("look for existing tables: %w", err)
		}
		found = append(found, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look for existing tables: %w", err)
	}
	var out []string
	for _, t := range tables {
		if slices.ContainsFunc(found, func(f string) bool { return strings.EqualFold(f, t) }) {
			out = append(out, t)
		}
	}
	return out, nil
}

// DropTablesSQL returns the statements that drop tables in d, for a user to run or for
// DropTables.
func DropTablesSQL(d Dialect, tables []string) []string {
	if len(tables) == 0 {
		return nil
	}
	if d.Kind() == SQLite { // one table per DROP TABLE
		out := make([]string, len(tables))
		for i, t := range tables {
			out[i] = "DROP TABLE IF EXISTS " + t
		}
		return out
	}
	return []string{"DROP TABLE IF EXISTS " + strings.Join(tables, ", ")}
}

// DropTables drops those of tables that exist.
func DropTables(ctx context.Context, db DB, tables []string) error {
	for _, q := range DropTablesSQL(db.Dialect(), tables) {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
