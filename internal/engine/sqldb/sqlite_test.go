//go:build cgo

package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
)

// openSQLiteTest opens the sqlite engine through a registry on a new temporary directory and
// closes it at the end of the test.
func openSQLiteTest(t *testing.T, settings map[string]string) DB {
	t.Helper()
	e, err := openSQLiteErr(t, settings)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	db, ok := e.(DB)
	if !ok {
		t.Fatalf("engine %T does not implement sqldb.DB", e)
	}
	return db
}

func openSQLiteErr(t *testing.T, settings map[string]string) (engine.Engine, error) {
	t.Helper()
	reg, err := engine.NewRegistry(SQLiteDriver())
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	return reg.Open(context.Background(), engine.Config{
		Name: "sqlite", Engine: "sqlite", Settings: settings, DataDir: t.TempDir(),
	})
}

// pragma reads one pragma on conn as text.
func pragma(t *testing.T, conn *sql.Conn, name string) string {
	t.Helper()
	var v string
	if err := conn.QueryRowContext(context.Background(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestSQLitePragmasInForce(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]string
		want     map[string]string // pragma -> answer
	}{
		{"defaults", nil, map[string]string{
			"journal_mode": "wal", "synchronous": "1", "busy_timeout": "60000", "cache_size": "-65536",
			"page_size": "4096", "mmap_size": "0", "wal_autocheckpoint": "1000", "temp_store": "2",
		}},
		{"overrides", map[string]string{
			"journal_mode": "DELETE", "synchronous": "full", "busy_timeout_ms": "1234", "cache_mb": "8",
			"page_size": "8192", "mmap_mb": "16", "wal_autocheckpoint": "0", "temp_store": "file",
		}, map[string]string{
			"journal_mode": "delete", "synchronous": "2", "busy_timeout": "1234", "cache_size": "-8192",
			"page_size": "8192", "mmap_size": "16777216", "wal_autocheckpoint": "0", "temp_store": "1",
		}},
		// page_size must be set before the switch to WAL writes the first page.
		{"wal with large pages", map[string]string{"page_size": "65536"}, map[string]string{
			"journal_mode": "wal", "page_size": "65536",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openSQLiteTest(t, tt.settings)
			ctx := context.Background()
			if _, err := db.SQL().ExecContext(ctx, "CREATE TABLE t (a INTEGER)"); err != nil {
				t.Fatal(err)
			}
			// Two connections held at once: the second is a new connection of the pool.
			for i := 0; i < 2; i++ {
				conn, err := db.SQL().Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				for p, want := range tt.want {
					if got := pragma(t, conn, p); got != want {
						t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, p, got, want)
					}
				}
			}
			// Settings() reports every accepted setting, normalized.
			got := db.Settings()
			for _, s := range SQLiteDriver().Settings {
				v, ok := got[s.Name]
				if !ok {
					t.Errorf("Settings() lacks %s", s.Name)
				}
				if o, set := tt.settings[s.Name]; set && v != strings.ToLower(o) {
					t.Errorf("Settings()[%s] = %q, want %q", s.Name, v, strings.ToLower(o))
				}
				if _, set := tt.settings[s.Name]; !set && v != s.Default {
					t.Errorf("Settings()[%s] = %q, want default %q", s.Name, v, s.Default)
				}
			}
			if len(got) != len(SQLiteDriver().Settings) {
				t.Errorf("Settings() has %d entries, want %d", len(got), len(SQLiteDriver().Settings))
			}
		})
	}
}

func TestSQLiteSettingsDocumented(t *testing.T) {
	for _, s := range SQLiteDriver().Settings {
		if s.Doc == "" || s.Default == "" {
			t.Errorf("setting %s has no doc or no default", s.Name)
		}
	}
}

func TestSQLiteBadSettings(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"synchronous", "x", `sqlite: setting synchronous: "x" is not one of off, normal, full, extra`},
		{"journal_mode", "wall", "setting journal_mode"},
		{"temp_store", "disk", "setting temp_store"},
		{"busy_timeout_ms", "soon", `setting busy_timeout_ms: "soon" is not an integer`},
		{"busy_timeout_ms", "-1", "setting busy_timeout_ms: -1 is out of range"},
		{"cache_mb", "1.5", "setting cache_mb"},
		{"page_size", "1000", "setting page_size: \"1000\" is not a power of two"},
		{"page_size", "256", "setting page_size"},
		{"page_size", "131072", "setting page_size"},
		{"mmap_mb", "", "setting mmap_mb"},
		{"mmap_mb", "1048576", "setting mmap_mb: 1048576 is above this SQLite's limit"},
		{"wal_autocheckpoint", "-5", "setting wal_autocheckpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			e, err := openSQLiteErr(t, map[string]string{tt.name: tt.value})
			if err == nil {
				e.Close()
				t.Fatalf("open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestSQLiteUnknownSetting(t *testing.T) {
	e, err := openSQLiteErr(t, map[string]string{"cache_size": "10"})
	if err == nil {
		e.Close()
		t.Fatal("open succeeded with an unknown setting")
	}
	if !strings.Contains(err.Error(), "unknown setting cache_size") {
		t.Errorf("error %q does not name the unknown setting", err)
	}
}

func TestSQLiteDialectStrings(t *testing.T) {
	d := sqliteDialect{}
	if d.Name() != "sqlite" || d.Placeholder(3) != "?" || d.TableOptions() != "" {
		t.Errorf("Name, Placeholder or TableOptions: %q %q %q", d.Name(), d.Placeholder(3), d.TableOptions())
	}
	for ct, want := range map[ColType]string{
		BigInt: "INTEGER", Int: "INTEGER", TinyInt: "INTEGER", Timestamp: "INTEGER", VarChar: "TEXT", Text: "TEXT",
	} {
		if got := d.Type(ct, 4000); got != want {
			t.Errorf("Type(%d) = %q, want %q", ct, got, want)
		}
	}
	if got, want := d.DeleteOldest("pi1", "id", 50),
		"DELETE FROM pi1 WHERE id IN (SELECT id FROM pi1 WHERE id >= ? ORDER BY id LIMIT 50)"; got != want {
		t.Errorf("DeleteOldest = %q, want %q", got, want)
	}
	if got := d.IndexHint("pi1_pdc"); got != " INDEXED BY pi1_pdc" {
		t.Errorf("IndexHint = %q", got)
	}
	if from, to := d.TimestampFromUnix("?"), d.TimestampToUnix("dateandtime"); from != "?" || to != "dateandtime" {
		t.Errorf("TimestampFromUnix = %q, TimestampToUnix = %q; want the integer itself", from, to)
	}
	for _, tt := range []struct{ name, got, want string }{
		{"varbinary", d.Type(VarBinary, 255), "BLOB"},
		{"blob", d.Type(Blob, 1<<20), "BLOB"},
		{"clustered pk", d.ClusteredPK(), " WITHOUT ROWID"},
		{"begin", d.BeginWrite(), "BEGIN IMMEDIATE"},
		{"for update", d.ForUpdate(), ""},
		{"upsert", d.Upsert("c", []string{"id", "t", "n"}, []string{"id", "t"}, "n = c.n + ?"),
			"INSERT INTO c (id, t, n) VALUES (?, ?, ?) ON CONFLICT (id, t) DO UPDATE SET n = c.n + ?"},
		{"returning", d.Returning("id"), ""},
		{"advance sequence", d.AdvanceSequence("nodetable", "id"), ""},
		{"delete with hint", d.DeleteWithHint("t", d.PrimaryKeyHint(), "a = ?"), "DELETE FROM t NOT INDEXED WHERE a = ?"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if d.MaxParams() != 32766 {
		t.Errorf("MaxParams = %d, want 32766", d.MaxParams())
	}
}

// TestSQLiteUpsert runs the dialect's upsert, duplicate key, WITHOUT ROWID and auto-increment
// statements on SQLite.
func TestSQLiteUpsert(t *testing.T) {
	db := openSQLiteTest(t, nil)
	d := db.Dialect()
	ctx := context.Background()
	ddl := "CREATE TABLE c (id " + d.Type(BigInt, 0) + ", t " + d.Type(BigInt, 0) + ", n " + d.Type(Int, 0) +
		", data " + d.Type(VarBinary, 10) + ", PRIMARY KEY (id, t))" + d.TableOptions() + d.ClusteredPK()
	if _, err := db.SQL().ExecContext(ctx, ddl); err != nil {
		t.Fatalf("%s: %v", ddl, err)
	}
	up := d.Upsert("c", []string{"id", "t", "n", "data"}, []string{"id", "t"}, "n = c.n + ?")
	for i, want := range []int64{5, 12} {
		if _, err := db.SQL().ExecContext(ctx, up, 1, 2, 5, []byte{0, 0xff}, 7); err != nil {
			t.Fatalf("upsert %d: %v", i, err)
		}
		var n int64
		var data []byte
		if err := db.SQL().QueryRowContext(ctx, "SELECT n, data FROM c WHERE id = 1 AND t = 2").Scan(&n, &data); err != nil || n != want {
			t.Errorf("after upsert %d: n = %d (%v), want %d", i, n, err, want)
		}
		if string(data) != "\x00\xff" {
			t.Errorf("data = %q", data)
		}
	}
	_, err := db.SQL().ExecContext(ctx, "INSERT INTO c (id, t, n, data) VALUES (1, 2, 0, x'')")
	if !d.DuplicateKey(err) || !d.DuplicateKey(fmt.Errorf("insert: %w", err)) || d.Retryable(err) {
		t.Errorf("duplicate key: DuplicateKey(%v) = false or Retryable true", err)
	}
	if d.DuplicateKey(errors.New("UNIQUE constraint failed")) || d.DuplicateKey(nil) {
		t.Error("DuplicateKey is true for a plain error or nil")
	}
	var withoutRowid int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_list WHERE name = 'c' AND wr = 1").
		Scan(&withoutRowid); err != nil || withoutRowid != 1 {
		t.Errorf("table c is not WITHOUT ROWID (%d, %v)", withoutRowid, err)
	}
	// A rowid primary key continues after explicitly inserted values; LastInsertId gives it.
	if _, err := db.SQL().ExecContext(ctx, "CREATE TABLE n (id "+d.AutoIncrementPK()+", v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, "INSERT INTO n (id, v) VALUES (1, 0), (41, 0)"); err != nil {
		t.Fatal(err)
	}
	res, err := db.SQL().ExecContext(ctx, "INSERT INTO n (v) VALUES (1)"+d.Returning("id"))
	if err != nil {
		t.Fatal(err)
	}
	if id, err := res.LastInsertId(); err != nil || id != 42 {
		t.Errorf("LastInsertId = %d (%v), want 42", id, err)
	}
	// DeleteWithHint deletes through the primary key.
	res, err = db.SQL().ExecContext(ctx, d.DeleteWithHint("c", d.PrimaryKeyHint(), "id = ? AND t = ?"), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Errorf("DeleteWithHint deleted %d rows (%v), want 1", n, err)
	}
}

// createPI creates table pi1 with the dialect's DDL and an index, and inserts n rows.
func createPI(t *testing.T, db DB, n int) {
	t.Helper()
	d := db.Dialect()
	ctx := context.Background()
	ddl := fmt.Sprintf("CREATE TABLE pi1 (transactionid %s, dateandtime %s, price %s NOT NULL, flag %s, "+
		"big %s, data %s, note %s)%s", d.AutoIncrementPK(), d.Type(Timestamp, 0), d.Type(Int, 0),
		d.Type(TinyInt, 0), d.Type(BigInt, 0), d.Type(VarChar, 4000), d.Type(Text, 0), d.TableOptions())
	if _, err := db.SQL().ExecContext(ctx, ddl); err != nil {
		t.Fatalf("%s: %v", ddl, err)
	}
	if _, err := db.SQL().ExecContext(ctx, "CREATE INDEX pi1_price ON pi1 (price, dateandtime)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ins := "INSERT INTO pi1 (dateandtime, price, flag, big, data, note) VALUES (" +
		d.Placeholder(1) + "," + d.Placeholder(2) + "," + d.Placeholder(3) + "," +
		d.Placeholder(4) + "," + d.Placeholder(5) + "," + d.Placeholder(6) + ")"
	for i := 0; i < n; i++ {
		if _, err := tx.ExecContext(ctx, ins, int64(1700000000+i), i%500, i%2, int64(i)<<40, "payload", "note"); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestSQLiteDialectOnSQLite(t *testing.T) {
	db := openSQLiteTest(t, nil)
	d := db.Dialect()
	ctx := context.Background()
	createPI(t, db, 100)

	var lo, hi, n int64
	if err := db.SQL().QueryRowContext(ctx, "SELECT min(transactionid), max(transactionid), count(*) FROM pi1").
		Scan(&lo, &hi, &n); err != nil {
		t.Fatal(err)
	}
	if lo != 1 || hi != 100 || n != 100 {
		t.Fatalf("ids [%d, %d], %d rows; want [1, 100], 100", lo, hi, n)
	}

	res, err := db.SQL().ExecContext(ctx, d.DeleteOldest("pi1", "transactionid", 5), int64(10))
	if err != nil {
		t.Fatalf("DeleteOldest: %v", err)
	}
	if k, err := res.RowsAffected(); err != nil || k != 5 {
		t.Fatalf("DeleteOldest affected %d rows (%v), want 5", k, err)
	}
	rows, err := db.SQL().QueryContext(ctx, "SELECT transactionid FROM pi1 WHERE transactionid BETWEEN 5 AND 20 ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	var left []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []int64{5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 20}
	if fmt.Sprint(left) != fmt.Sprint(want) {
		t.Errorf("ids left in [5, 20] = %v, want %v", left, want)
	}

	// A new row gets max+1 even after deletes.
	if _, err := db.SQL().ExecContext(ctx, "INSERT INTO pi1 (price) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := db.SQL().QueryRowContext(ctx, "SELECT max(transactionid) FROM pi1").Scan(&hi); err != nil || hi != 101 {
		t.Errorf("next id = %d (%v), want 101", hi, err)
	}

	q := "SELECT price, dateandtime FROM pi1" + d.IndexHint("pi1_price") +
		" WHERE price >= ? ORDER BY price, dateandtime LIMIT 10"
	var got int
	r2, err := db.SQL().QueryContext(ctx, q, 50)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	for r2.Next() {
		got++
	}
	if err := r2.Close(); err != nil || got != 10 {
		t.Errorf("hinted range query returned %d rows (%v), want 10", got, err)
	}
	if _, err := db.SQL().QueryContext(ctx, "SELECT price FROM pi1"+d.IndexHint("pi1_missing")+" WHERE price >= 1"); err == nil {
		t.Error("a hint on a missing index was accepted")
	}

	pk, ok := d.(interface{ PrimaryKeyHint() string })
	if !ok {
		t.Fatal("sqliteDialect has no PrimaryKeyHint")
	}
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM pi1"+pk.PrimaryKeyHint()+" WHERE transactionid >= ?", -1).
		Scan(&n); err != nil || n != 96 {
		t.Errorf("count through the primary key = %d (%v), want 96", n, err)
	}
}

func TestSQLiteConcurrentWriters(t *testing.T) {
	db := openSQLiteTest(t, nil)
	ctx := context.Background()
	if _, err := db.SQL().ExecContext(ctx, "CREATE TABLE t (id "+db.Dialect().AutoIncrementPK()+", c INTEGER)"); err != nil {
		t.Fatal(err)
	}
	const clients, txs = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn, err := db.SQL().Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for i := 0; i < txs; i++ {
				if err := func() error {
					tx, err := conn.BeginTx(ctx, nil)
					if err != nil {
						return fmt.Errorf("begin: %w", err)
					}
					defer tx.Rollback()
					// Read then write: with a deferred BEGIN this lock upgrade fails with SQLITE_BUSY.
					var n int64
					if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
						return fmt.Errorf("count: %w", err)
					}
					if _, err := tx.ExecContext(ctx, "INSERT INTO t (c) VALUES (?), (?)", c, n); err != nil {
						return fmt.Errorf("insert: %w", err)
					}
					return tx.Commit()
				}(); err != nil {
					errs <- fmt.Errorf("client %d tx %d: %w", c, i, err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int64
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2*clients*txs {
		t.Errorf("%d rows (%v), want %d", n, err, 2*clients*txs)
	}
}

func TestSQLiteRetryable(t *testing.T) {
	db := openSQLiteTest(t, map[string]string{"busy_timeout_ms": "0"})
	d := db.Dialect()
	ctx := context.Background()
	if _, err := db.SQL().ExecContext(ctx, "CREATE TABLE t (a INTEGER)"); err != nil {
		t.Fatal(err)
	}
	c1, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	tx1, err := c1.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback()
	_, busy := c2.BeginTx(ctx, nil)
	if busy == nil {
		t.Fatal("a second BEGIN IMMEDIATE succeeded while the first holds the write lock")
	}
	if !d.Retryable(busy) || !d.Retryable(fmt.Errorf("insert: %w", busy)) {
		t.Errorf("Retryable(%v) = false, want true", busy)
	}
	_, syntax := db.SQL().ExecContext(ctx, "SELEC 1")
	if syntax == nil || d.Retryable(syntax) {
		t.Errorf("Retryable(%v) = true, want false", syntax)
	}
	if d.Retryable(nil) || d.Retryable(errors.New("busy")) {
		t.Error("Retryable is true for nil or a plain error")
	}
}

func TestSQLiteCleanupStatsVersion(t *testing.T) {
	db := openSQLiteTest(t, nil)
	ctx := context.Background()
	createPI(t, db, 2000)
	st, ok := db.(engine.Statser)
	if !ok {
		t.Fatal("not a Statser")
	}
	cl, ok := db.(engine.Cleaner)
	if !ok {
		t.Fatal("not a Cleaner")
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"wal_bytes", "page_count", "freelist_count", "page_size", "db_bytes"} {
		if _, ok := stats[k]; !ok {
			t.Errorf("Stats() lacks %s", k)
		}
	}
	if stats["wal_bytes"] <= 0 || stats["page_size"] != 4096 || stats["page_count"] <= 0 {
		t.Errorf("Stats() before cleanup = %v", stats)
	}

	var notes []string
	if err := cl.Cleanup(ctx, engine.CleanupHooks{Note: func(n string) { notes = append(notes, n) }}); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	// It analyzed the table (sqlite_stat1 holds its statistics) and said so, then checkpointed.
	var analyzed int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'pi1'").Scan(&analyzed); err != nil || analyzed == 0 {
		t.Errorf("sqlite_stat1 has %d rows of pi1 (%v): Cleanup did not ANALYZE it", analyzed, err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "ANALYZE") || !strings.Contains(notes[0], "pi1") ||
		!strings.Contains(notes[1], "wal_checkpoint(TRUNCATE)") {
		t.Errorf("Cleanup noted %q, want the ANALYZE of pi1, then the checkpoint", notes)
	}
	dir := filepath.Dir(db.(*sqliteDB).path)
	fi, err := os.Stat(filepath.Join(dir, sqliteFile+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 0 {
		t.Errorf("WAL has %d bytes after Cleanup, want 0", fi.Size())
	}
	if stats, err = st.Stats(ctx); err != nil || stats["wal_bytes"] != 0 ||
		stats["db_bytes"] != stats["page_count"]*stats["page_size"] {
		t.Errorf("Stats() after cleanup = %v (%v)", stats, err)
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := cl.Cleanup(canceled, engine.CleanupHooks{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Cleanup on a canceled context = %v, want context.Canceled", err)
	}

	if v := db.Version(); !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("Version() = %q, want 3.x.y", v)
	}
	if db.Family() != engine.FamilySQL {
		t.Errorf("Family() = %q", db.Family())
	}
}

// TestSQLiteBuild checks that Build records the version the engine reports, SQLite's compile
// options and go-sqlite3's module.
func TestSQLiteBuild(t *testing.T) {
	db := openSQLiteTest(t, nil)
	b := enginetest.CheckBuild(t, db, "sqlite", db.Version(), sqliteModule)
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(db.Version()) {
		t.Errorf("version %q", db.Version())
	}
	if opts := b[engine.BuildCompileOptions]; !strings.Contains(" "+opts+" ", " THREADSAFE=1 ") {
		t.Errorf("compile options %q: no THREADSAFE=1", opts)
	}
}
