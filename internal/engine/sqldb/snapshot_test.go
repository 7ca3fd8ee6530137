//go:build cgo

package sqldb

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// checkSnapshot holds a transaction of BeginSnapshot open on one connection of db while
// another connection updates and inserts: the snapshot still reads the rows as they were, and
// after COMMIT the connection reads them as they are. during is called while it is open.
func checkSnapshot(t *testing.T, db DB, during func()) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"DROP TABLE IF EXISTS snap", "CREATE TABLE snap (id INT PRIMARY KEY, v INT)" + db.Dialect().TableOptions(),
		"INSERT INTO snap VALUES (1, 1)"} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range db.Dialect().BeginSnapshot() {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	read := func(what string, wantRows, wantV int) {
		t.Helper()
		var n, v int
		if err := conn.QueryRowContext(ctx, "SELECT count(*), max(v) FROM snap").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		if n != wantRows || v != wantV {
			t.Errorf("%s: %d rows, v %d; want %d and %d", what, n, v, wantRows, wantV)
		}
	}
	read("in the snapshot", 1, 1) // its first read takes the snapshot
	for _, q := range []string{"UPDATE snap SET v = 2 WHERE id = 1", "INSERT INTO snap VALUES (2, 3)"} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s beside the snapshot: %v", q, err)
		}
	}
	read("in the snapshot after another connection wrote", 1, 1)
	during()
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT: %v", err)
	}
	read("after COMMIT", 2, 3)
}

// TestServerSnapshots: on each server, BeginSnapshot's transaction is a snapshot that other
// connections' writes do not change; PostgreSQL's stats show it held (snapshot_xid_age).
func TestServerSnapshots(t *testing.T) {
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			t.Parallel()
			e := c.openManaged(t)
			checkSnapshot(t, e, func() {
				if c.driver.Name != "postgres" {
					return
				}
				if age := e.stats(t)["snapshot_xid_age"]; age < 2 {
					t.Errorf("snapshot_xid_age %v while a snapshot is held behind 2 writes, want at least 2", age)
				}
			})
			if c.driver.Name == "postgres" {
				if age := e.stats(t)["snapshot_xid_age"]; age != 0 {
					t.Errorf("snapshot_xid_age %v once no snapshot is held, want 0", age)
				}
			}
			conn, err := e.SQL().Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if why, err := SnapshotBlocksWriters(context.Background(), e, conn); why != "" || err != nil {
				t.Errorf("SnapshotBlocksWriters = %q, %v; want \"\" on a server", why, err)
			}
		})
	}
}

// TestSQLiteSnapshot: in WAL mode a read transaction of BeginSnapshot is a snapshot beside a
// writer; in another journal mode SnapshotBlocksWriters says why it cannot be held.
func TestSQLiteSnapshot(t *testing.T) {
	db := openSQLiteTest(t, nil)
	checkSnapshot(t, db, func() {})
	blocks := func(db DB) string {
		conn, err := db.SQL().Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer func(c *sql.Conn) { _ = c.Close() }(conn)
		why, err := SnapshotBlocksWriters(context.Background(), db, conn)
		if err != nil {
			t.Fatal(err)
		}
		return why
	}
	if why := blocks(db); why != "" {
		t.Errorf("WAL mode: SnapshotBlocksWriters = %q, want \"\"", why)
	}
	if why := blocks(openSQLiteTest(t, map[string]string{"journal_mode": "delete"})); !strings.Contains(why, "journal_mode delete") {
		t.Errorf("journal_mode delete: SnapshotBlocksWriters = %q, want it named", why)
	}
}
