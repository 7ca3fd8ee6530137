package sqldb

import (
	"fmt"
	"strings"
)

// Index is a secondary index: its name and its columns in index order.
type Index struct {
	Name    string
	Columns []string
}

// createIndexes returns one CREATE INDEX statement per index of table.
func createIndexes(table string, indexes []Index) []string {
	out := make([]string, len(indexes))
	for i, ix := range indexes {
		out[i] = fmt.Sprintf("CREATE INDEX %s ON %s (%s)", ix.Name, table, strings.Join(ix.Columns, ", "))
	}
	return out
}

// AddIndexes implements Dialect: for InnoDB one ALTER TABLE with an ADD INDEX per index, so
// that the server builds them all in one pass over the table; for any other storage engine
// (MyRocks) one ALTER TABLE ... ADD INDEX per index.
func (d mysqlDialect) AddIndexes(table string, indexes []Index) []string {
	adds := make([]string, len(indexes))
	for i, ix := range indexes {
		adds[i] = fmt.Sprintf("ADD INDEX %s (%s)", ix.Name, strings.Join(ix.Columns, ", "))
	}
	if strings.EqualFold(d.storage, "InnoDB") {
		return []string{"ALTER TABLE " + table + " " + strings.Join(adds, ", ")}
	}
	out := make([]string, len(adds))
	for i, a := range adds {
		out[i] = "ALTER TABLE " + table + " " + a
	}
	return out
}

// AddIndexes implements Dialect: one CREATE INDEX per index.
func (postgresDialect) AddIndexes(table string, indexes []Index) []string {
	return createIndexes(table, indexes)
}

// AddIndexes implements Dialect: one CREATE INDEX per index.
func (sqliteDialect) AddIndexes(table string, indexes []Index) []string {
	return createIndexes(table, indexes)
}

// SequenceCache implements Dialect: "" (an AUTO_INCREMENT column has no sequence).
func (mysqlDialect) SequenceCache(string, string, int) string { return "" }

// SequenceCache implements Dialect: ALTER SEQUENCE table_col_seq CACHE n, the sequence of a
// bigserial column: each session then takes n values at a time, so ids of two sessions
// interleave in blocks and a new session leaves a gap of up to n-1.
func (postgresDialect) SequenceCache(table, col string, n int) string {
	return fmt.Sprintf("ALTER SEQUENCE %s_%s_seq CACHE %d", table, col, n)
}

// SequenceCache implements Dialect: "" (an INTEGER PRIMARY KEY has no sequence).
func (sqliteDialect) SequenceCache(string, string, int) string { return "" }

// DeleteOldestByKey implements Dialect: DELETE FROM table WHERE pk >= ? ORDER BY pk ASC LIMIT
// limit.
func (mysqlDialect) DeleteOldestByKey(table, pk string, limit int) string {
	return fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s >= ? ORDER BY %[2]s ASC LIMIT %[3]d", table, pk, limit)
}

// DeleteOldestByKey implements Dialect:
//
//	DELETE FROM table WHERE pk IN (SELECT pk FROM table WHERE pk >= $1 ORDER BY pk ASC LIMIT limit)
//
// which the planner joins with its subquery, estimating the join from the statistics of pk
// (on a table whose oldest rows were just deleted, it reads the dead entries at the start of
// the index to find pk's actual minimum: get_actual_variable_range).
func (postgresDialect) DeleteOldestByKey(table, pk string, limit int) string {
	return deleteOldestIn(postgresDialect{}, table, pk, limit)
}

// DeleteOldestByKey implements Dialect: the statement of DeleteOldest, with ASC.
func (sqliteDialect) DeleteOldestByKey(table, pk string, limit int) string {
	return deleteOldestIn(sqliteDialect{}, table, pk, limit)
}

// deleteOldestIn returns DELETE FROM table WHERE pk IN (SELECT pk FROM table WHERE pk >= ?
// ORDER BY pk ASC LIMIT limit) with d's placeholder.
func deleteOldestIn(d Dialect, table, pk string, limit int) string {
	return fmt.Sprintf("DELETE FROM %[1]s WHERE %[2]s IN (SELECT %[2]s FROM %[1]s WHERE %[2]s >= %[4]s ORDER BY %[2]s ASC LIMIT %[3]d)",
		table, pk, limit, d.Placeholder(1))
}
