package sqldb

import (
	"context"
	"slices"
	"testing"
)

// TestAddIndexesPerEngine checks the index DDL of each dialect: one ALTER TABLE for InnoDB,
// one per index for MyRocks, a CREATE INDEX each elsewhere.
func TestAddIndexesPerEngine(t *testing.T) {
	idx := []Index{{"t_a", []string{"a", "b"}}, {"t_c", []string{"c"}}}
	cases := []struct {
		d    Dialect
		want []string
	}{
		{mysqlDialect{storage: "InnoDB"}, []string{"ALTER TABLE t ADD INDEX t_a (a, b), ADD INDEX t_c (c)"}},
		{mysqlDialect{storage: "ROCKSDB"}, []string{"ALTER TABLE t ADD INDEX t_a (a, b)", "ALTER TABLE t ADD INDEX t_c (c)"}},
		{postgresDialect{}, []string{"CREATE INDEX t_a ON t (a, b)", "CREATE INDEX t_c ON t (c)"}},
		{sqliteDialect{}, []string{"CREATE INDEX t_a ON t (a, b)", "CREATE INDEX t_c ON t (c)"}},
	}
	for _, c := range cases {
		if got := c.d.AddIndexes("t", idx); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: AddIndexes = %q, want %q", c.d.Name(), c.d, got, c.want)
		}
	}
	if got := (postgresDialect{}).SequenceCache("pi1", "transactionid", 1000); got != "ALTER SEQUENCE pi1_transactionid_seq CACHE 1000" {
		t.Errorf("SequenceCache = %q", got)
	}
	if (mysqlDialect{}).SequenceCache("pi1", "id", 1) != "" || (sqliteDialect{}).SequenceCache("pi1", "id", 1) != "" {
		t.Error("a dialect without sequences returns a SequenceCache statement")
	}
}

// TestDeleteOldestByKeyOnSQLite runs DeleteOldestByKey and the indexes of AddIndexes on SQLite:
// it deletes the limit rows with the smallest keys at or above its parameter.
func TestDeleteOldestByKeyOnSQLite(t *testing.T) {
	db := openSQLiteTest(t, nil)
	d := db.Dialect()
	ctx := context.Background()
	createPI(t, db, 100)
	for _, q := range d.AddIndexes("pi1", []Index{{"pi1_pf", []string{"price", "flag"}}}) {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.SQL().ExecContext(ctx, "DELETE FROM pi1 WHERE transactionid IN (12, 13)"); err != nil {
		t.Fatal(err)
	}
	res, err := db.SQL().ExecContext(ctx, d.DeleteOldestByKey("pi1", "transactionid", 5), int64(10))
	if err != nil {
		t.Fatalf("DeleteOldestByKey: %v", err)
	}
	if k, err := res.RowsAffected(); err != nil || k != 5 {
		t.Fatalf("DeleteOldestByKey affected %d rows (%v), want 5", k, err)
	}
	var lo, n int64
	if err := db.SQL().QueryRowContext(ctx, "SELECT min(transactionid), count(*) FROM pi1 WHERE transactionid >= 10").Scan(&lo, &n); err != nil {
		t.Fatal(err)
	}
	if lo != 17 || n != 84 { // 10, 11, 14, 15, 16 deleted
		t.Errorf("after the delete: smallest id >= 10 is %d with %d rows, want 17 and 84", lo, n)
	}
}
