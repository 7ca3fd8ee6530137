package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/testwait"
)

// serverCase is one server engine under test.
type serverCase struct {
	driver engine.Driver
	kind   server.Kind
	// small overrides the memory sizes of the defaults, so that several test servers fit
	// next to each other; every other default is in force.
	small map[string]string
}

func serverCases() []serverCase {
	return []serverCase{
		{PostgresDriver(), server.Postgres, map[string]string{"shared_buffers": "128MB", "max_wal_size": "1GB"}},
		{InnoDBDriver(), server.MariaDB, map[string]string{"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "256M"}},
		{MyRocksDriver(), server.MariaDB, map[string]string{"rocksdb_block_cache_size": "64M"}},
	}
}

// require skips (or with CI=true fails) the test when the engine's server is not installed.
func (c serverCase) require(t testing.TB) {
	t.Helper()
	if c.driver.Name == "myrocks" {
		servertest.RequirePlugin(t, "ha_rocksdb")
		return
	}
	servertest.Require(t, c.kind)
}

// open opens the engine through a registry: a managed server on a fresh data directory when
// cfg.DSN is empty. The engine is closed at the end of the test.
func (c serverCase) open(t testing.TB, cfg engine.Config) (*serverEngine, error) {
	t.Helper()
	reg, err := engine.NewRegistry(c.driver)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Engine = c.driver.Name, c.driver.Name
	if cfg.DataDir == "" {
		cfg.DataDir = servertest.DataDir(t)
	}
	if cfg.DSN == "" {
		cfg.Log = servertest.Logger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := reg.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { e.Close() })
	return &serverEngine{DB: e.(DB), dataDir: cfg.DataDir}, nil
}

// openManaged opens the engine on a managed server with the small memory settings.
func (c serverCase) openManaged(t testing.TB) *serverEngine {
	t.Helper()
	c.require(t)
	e, err := c.open(t, engine.Config{Settings: c.small})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return e
}

// serverEngine is an open server engine with every capability it must have.
type serverEngine struct {
	DB
	dataDir string
}

func (e *serverEngine) server() engine.Server       { return e.DB.(engine.Server) }
func (e *serverEngine) alive() error                { return e.DB.(engine.Liveness).Alive() }
func (e *serverEngine) cleaner() engine.Cleaner     { return e.DB.(engine.Cleaner) }
func (e *serverEngine) statser() engine.Statser     { return e.DB.(engine.Statser) }
func (e *serverEngine) dataFiler() engine.DataFiler { return e.DB.(engine.DataFiler) }

func (e *serverEngine) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := e.SQL().ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (e *serverEngine) stats(t *testing.T) map[string]float64 {
	t.Helper()
	st, err := e.statser().Stats(context.Background())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return st
}

// benchIndexes are the Insert Benchmark's secondary indexes of table pi1.
var benchIndexes = []struct{ name, cols string }{
	{"pi1_marketsegment", "productid, customerid, price"},
	{"pi1_registersegment", "cashregisterid, customerid, price"},
	{"pi1_pdc", "price, dateandtime, customerid"},
}

// createBench creates the Insert Benchmark table pi1 with its indexes in the dialect's DDL and
// inserts n rows in batches of 100, dateandtime = 1700000000 + row number / 100.
func (e *serverEngine) createBench(t *testing.T, n int) {
	t.Helper()
	d := e.Dialect()
	e.exec(t, fmt.Sprintf("CREATE TABLE pi1 (transactionid %s, dateandtime %s, cashregisterid %s NOT NULL, "+
		"customerid %s NOT NULL, productid %s NOT NULL, price %s NOT NULL, data %s)%s",
		d.AutoIncrementPK(), d.Type(Timestamp, 0), d.Type(Int, 0), d.Type(Int, 0), d.Type(Int, 0), d.Type(Int, 0),
		d.Type(VarChar, 4000), d.TableOptions()))
	for _, ix := range benchIndexes {
		e.exec(t, fmt.Sprintf("CREATE INDEX %s ON pi1 (%s)", ix.name, ix.cols))
	}
	ctx := context.Background()
	conn, err := e.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const batch = 100
	var sb strings.Builder
	sb.WriteString("INSERT INTO pi1 (dateandtime, cashregisterid, customerid, productid, price, data) VALUES ")
	for i := 0; i < batch; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		p := i * 6
		fmt.Fprintf(&sb, "(%s,%s,%s,%s,%s,%s)", d.TimestampFromUnix(d.Placeholder(p+1)), d.Placeholder(p+2),
			d.Placeholder(p+3), d.Placeholder(p+4), d.Placeholder(p+5), d.Placeholder(p+6))
	}
	st, err := conn.PrepareContext(ctx, sb.String()) // a server-side prepared statement
	if err != nil {
		t.Fatalf("prepare insert: %v", err)
	}
	defer st.Close()
	args := make([]any, 0, 6*batch)
	for done := 0; done < n; done += batch {
		args = args[:0]
		for i := done; i < done+batch; i++ {
			args = append(args, int64(1700000000+i/batch), i%1000, i%100000, i%10000, i%500, "aaaaaaaaaaxyz")
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
}

func TestServerDialectStrings(t *testing.T) {
	pg, my := postgresDialect{}, mysqlDialect{storage: "ROCKSDB"}
	tests := []struct {
		name      string
		got, want string
	}{
		{"pg name", pg.Name(), "postgres"},
		{"pg placeholder", pg.Placeholder(3), "$3"},
		{"pg bind", Bind(pg, "a = ? AND b IN (?, ?)"), "a = $1 AND b IN ($2, $3)"},
		{"mysql bind", Bind(my, "a = ? AND b = ?"), "a = ? AND b = ?"},
		{"pg bigint", pg.Type(BigInt, 0), "bigint"},
		{"pg int", pg.Type(Int, 0), "integer"},
		{"pg tinyint", pg.Type(TinyInt, 0), "smallint"},
		{"pg timestamp", pg.Type(Timestamp, 0), "timestamp"},
		{"pg varchar", pg.Type(VarChar, 4000), "varchar(4000)"},
		{"pg text", pg.Type(Text, 0), "text"},
		{"pg unknown type", pg.Type(ColType(99), 0), ""},
		{"pg pk", pg.AutoIncrementPK(), "bigserial PRIMARY KEY"},
		{"pg table options", pg.TableOptions(), ""},
		{"pg index hint", pg.IndexHint("pi1_pdc"), ""},
		{"pg pk hint", pg.PrimaryKeyHint(), ""},
		{"pg delete oldest", pg.DeleteOldest("pi1", "transactionid", 50),
			"DELETE FROM pi1 WHERE ctid = ANY (ARRAY(SELECT ctid FROM pi1 WHERE transactionid >= $1 ORDER BY transactionid LIMIT 50))"},
		{"pg from unix", pg.TimestampFromUnix("$1"), "(to_timestamp(CAST($1 AS bigint)) AT TIME ZONE 'UTC')"},
		{"pg to unix", pg.TimestampToUnix("dateandtime"), "CAST(EXTRACT(EPOCH FROM dateandtime) AS bigint)"},
		{"pg varbinary", pg.Type(VarBinary, 255), "bytea"},
		{"pg blob", pg.Type(Blob, 1<<20), "bytea"},
		{"pg clustered pk", pg.ClusteredPK(), ""},
		{"pg begin", pg.BeginWrite(), "BEGIN"},
		{"pg for update", pg.ForUpdate(), " FOR UPDATE"},
		{"pg upsert", pg.Upsert("c", []string{"id", "t", "n"}, []string{"id", "t"}, "n = c.n + $4"),
			"INSERT INTO c (id, t, n) VALUES ($1, $2, $3) ON CONFLICT (id, t) DO UPDATE SET n = c.n + $4"},
		{"pg returning", pg.Returning("id"), " RETURNING id"},
		{"pg advance sequence", pg.AdvanceSequence("nodetable", "id"),
			"SELECT setval(pg_get_serial_sequence('nodetable', 'id'), GREATEST(CAST($1 AS bigint), (SELECT COALESCE(max(id), 0) + 1 FROM nodetable)), false)"},
		{"pg delete with hint", pg.DeleteWithHint("t", pg.PrimaryKeyHint(), "a = $1"), "DELETE FROM t WHERE a = $1"},
		{"mysql name", my.Name(), "mysql"},
		{"mysql placeholder", my.Placeholder(3), "?"},
		{"mysql bigint", my.Type(BigInt, 0), "BIGINT"},
		{"mysql int", my.Type(Int, 0), "INT"},
		{"mysql tinyint", my.Type(TinyInt, 0), "TINYINT"},
		{"mysql timestamp", my.Type(Timestamp, 0), "DATETIME"},
		{"mysql varchar", my.Type(VarChar, 4000), "VARCHAR(4000)"},
		{"mysql text", my.Type(Text, 0), "TEXT"},
		{"mysql unknown type", my.Type(ColType(99), 0), ""},
		{"mysql pk", my.AutoIncrementPK(), "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"},
		{"mysql table options", my.TableOptions(), " ENGINE=ROCKSDB"},
		{"mysql innodb table options", mysqlDialect{storage: "InnoDB"}.TableOptions(), " ENGINE=InnoDB"},
		{"mysql no engine", mysqlDialect{}.TableOptions(), ""},
		{"mysql index hint", my.IndexHint("pi1_pdc"), " FORCE INDEX (pi1_pdc)"},
		{"mysql pk hint", my.PrimaryKeyHint(), " FORCE INDEX (PRIMARY)"},
		{"mysql delete oldest", my.DeleteOldest("pi1", "transactionid", 50),
			"DELETE FROM pi1 WHERE transactionid >= ? ORDER BY transactionid LIMIT 50"},
		{"mysql from unix", my.TimestampFromUnix("?"), "FROM_UNIXTIME(?)"},
		{"mysql to unix", my.TimestampToUnix("dateandtime"), "UNIX_TIMESTAMP(dateandtime)"},
		{"mysql varbinary", my.Type(VarBinary, 255), "VARBINARY(255)"},
		{"mysql small blob", my.Type(Blob, 65535), "BLOB"},
		{"mysql medium blob", my.Type(Blob, 1<<20), "MEDIUMBLOB"},
		{"mysql long blob", my.Type(Blob, 1<<24), "LONGBLOB"},
		{"mysql clustered pk", my.ClusteredPK(), ""},
		{"mysql begin", my.BeginWrite(), "START TRANSACTION"},
		{"mysql for update", my.ForUpdate(), " FOR UPDATE"},
		{"mysql upsert", my.Upsert("c", []string{"id", "t", "n"}, []string{"id", "t"}, "n = c.n + ?"),
			"INSERT INTO c (id, t, n) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE n = c.n + ?"},
		{"mysql returning", my.Returning("id"), ""},
		{"mysql advance sequence", my.AdvanceSequence("nodetable", "id"), ""},
		{"mysql delete with hint", my.DeleteWithHint("t", my.PrimaryKeyHint(), "a = ?"),
			"DELETE t FROM t FORCE INDEX (PRIMARY) WHERE a = ?"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if pg.MaxParams() != 65535 || my.MaxParams() != 65535 {
		t.Errorf("MaxParams = %d (pg), %d (mysql), want 65535", pg.MaxParams(), my.MaxParams())
	}
}

// errorCase is an error, the dialect that classifies it, and the class's answer.
type errorCase struct {
	name string
	d    Dialect
	err  error
	want bool
}

// checkErrorClass checks the answer of class (a Dialect method called method) for each case.
func checkErrorClass(t *testing.T, method string, class func(Dialect, error) bool, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		if got := class(c.d, c.err); got != c.want {
			t.Errorf("%s: %s(%v) = %v, want %v", c.name, method, c.err, got, c.want)
		}
	}
}

func TestServerDuplicateKeyErrorValues(t *testing.T) {
	pg, my := postgresDialect{}, mysqlDialect{}
	checkErrorClass(t, "DuplicateKey", Dialect.DuplicateKey, []errorCase{
		{"pg unique violation", pg, &pgconn.PgError{Code: "23505"}, true},
		{"pg wrapped", pg, fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505"}), true},
		{"pg deadlock", pg, &pgconn.PgError{Code: "40P01"}, false},
		{"pg not null violation", pg, &pgconn.PgError{Code: "23502"}, false},
		{"pg mysql error", pg, &mysql.MySQLError{Number: 1062}, false},
		{"mysql duplicate entry", my, &mysql.MySQLError{Number: 1062}, true},
		{"mysql duplicate entry with key name", my, &mysql.MySQLError{Number: 1586}, true},
		{"mysql wrapped", my, fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1062}), true},
		{"mysql deadlock", my, &mysql.MySQLError{Number: 1213}, false},
		{"mysql pg error", my, &pgconn.PgError{Code: "23505"}, false},
		{"nil", pg, nil, false},
	})
}

func TestServerRetryableErrorValues(t *testing.T) {
	pg, my := postgresDialect{}, mysqlDialect{}
	checkErrorClass(t, "Retryable", Dialect.Retryable, []errorCase{
		{"pg deadlock", pg, &pgconn.PgError{Code: "40P01"}, true},
		{"pg serialization", pg, &pgconn.PgError{Code: "40001"}, true},
		{"pg lock not available", pg, &pgconn.PgError{Code: "55P03"}, true},
		{"pg wrapped deadlock", pg, fmt.Errorf("delete: %w", &pgconn.PgError{Code: "40P01"}), true},
		{"pg unique violation", pg, &pgconn.PgError{Code: "23505"}, false},
		{"pg admin shutdown", pg, &pgconn.PgError{Code: "57P01"}, false},
		{"pg bad conn", pg, driver.ErrBadConn, false},
		{"pg mysql error", pg, &mysql.MySQLError{Number: 1213}, false},
		{"mysql deadlock", my, &mysql.MySQLError{Number: 1213}, true},
		{"mysql lock wait timeout", my, &mysql.MySQLError{Number: 1205}, true},
		{"mysql record changed", my, &mysql.MySQLError{Number: 1020}, true},
		{"mysql wrapped", my, fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1205}), true},
		{"mysql duplicate key", my, &mysql.MySQLError{Number: 1062}, false},
		{"mysql lost connection", my, mysql.ErrInvalidConn, false},
		{"mysql bad conn", my, driver.ErrBadConn, false},
		{"mysql pg error", my, &pgconn.PgError{Code: "40P01"}, false},
		{"nil", my, nil, false},
	})
}

// forInstalled returns settings for the installed server of c: on postgres, the published
// defaults its version knows (postgresForVersion); on MariaDB, without MySQL's
// (mysqlForProduct).
func forInstalled(t *testing.T, c serverCase, settings, overrides map[string]string) map[string]string {
	t.Helper()
	versioned := postgresVersioned
	if c.driver.Name != "postgres" {
		versioned = mysqlVersioned(c.driver.Name)
	}
	out, _, err := versioned(settings, overrides)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestServerDrivers(t *testing.T) {
	for _, c := range serverCases() {
		d := c.driver
		if d.Family != engine.FamilySQL || !d.Server || d.Open == nil || d.Available == nil || d.CheckSettings == nil {
			t.Errorf("%s: driver %+v", d.Name, d)
		}
		seen := map[string]bool{}
		for _, s := range d.Settings {
			if s.Doc == "" || s.Default == "" && s.Name != binDir && s.Name != baseDir || seen[s.Name] { // "": the installed server
				t.Errorf("%s: setting %s has no doc or default, or is listed twice", d.Name, s.Name)
			}
			seen[s.Name] = true
		}
		// No overrides: nothing to check, and no server binary needed (a run with --dsn).
		if err := d.CheckSettings(nil); err != nil {
			t.Errorf("%s: CheckSettings(nil) = %v", d.Name, err)
		}
	}
	if d := MyRocksDriver(); !strings.Contains(fmt.Sprint(d.Settings), "ha_rocksdb") {
		t.Errorf("myrocks settings do not load the plugin: %v", d.Settings)
	}
}

func TestServerCheckSettings(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			// The defaults, and every default set explicitly, are accepted by the server.
			// (Those of the installed server's version and product: forInstalled.)
			if err := server.CheckSettings(c.kind, "", serverOnly(c.driver.Settings, forInstalled(t, c, engine.MergeSettings(c.driver.Settings, nil), nil))); err != nil {
				t.Errorf("defaults rejected: %v", err)
			}
			if err := c.driver.CheckSettings(forInstalled(t, c, engine.MergeSettings(c.driver.Settings, c.small), c.small)); err != nil {
				t.Errorf("defaults as overrides rejected: %v", err)
			}
			unknown := map[string]string{"no_such_setting_xyz": "1"}
			err := c.driver.CheckSettings(unknown)
			if err == nil || !strings.Contains(err.Error(), "no_such_setting_xyz") || !strings.HasPrefix(err.Error(), c.driver.Name+" ") && !strings.HasPrefix(err.Error(), c.driver.Name+":") {
				t.Errorf("unknown setting: %v", err)
			}
			// A registry refuses server settings for an external server, naming them.
			reg, _ := engine.NewRegistry(c.driver)
			err = reg.Check(engine.Config{Engine: c.driver.Name, DSN: "x", Settings: c.small})
			for k := range c.small {
				if err == nil || !strings.Contains(err.Error(), "managed server only") || !strings.Contains(err.Error(), k) {
					t.Errorf("settings with a DSN: %v", err)
				}
			}
		})
	}
	// Values the servers reject without starting.
	bad := []struct {
		c     serverCase
		name  string
		value string
	}{
		{serverCases()[0], "shared_buffers", "lots"},
		{serverCases()[1], "innodb_flush_log_at_trx_commit", "seven"},
	}
	for _, b := range bad {
		t.Run(b.c.driver.Name+" "+b.name, func(t *testing.T) {
			b.c.require(t)
			err := b.c.driver.CheckSettings(map[string]string{b.name: b.value})
			if err == nil || !strings.Contains(err.Error(), b.name) && !strings.Contains(err.Error(), strings.ReplaceAll(b.name, "_", "-")) {
				t.Errorf("%s=%s: %v", b.name, b.value, err)
			}
		})
	}
}

func TestServerIsDataFile(t *testing.T) {
	pg, inno, rocks := &postgresDB{dbOID: 16384}, &mysqlDB{database: "bench"}, &mysqlDB{rocks: true, database: "bench"}
	tests := []struct {
		e    engine.DataFiler
		rel  string
		want bool
	}{
		{pg, "base/16384/16385", true},
		{pg, "base/16384/16385_fsm", true},
		{pg, "base/1/1259", false},
		{pg, "base/163840/16385", false},
		{pg, "global/1262", false},
		{pg, "pg_wal/000000010000000000000001", false},
		{pg, "pg_xact/0000", false},
		{pg, "server.log", false},
		{pg, "postgresql.conf", false},
		{&postgresDB{}, "base/16384/16385", false},
		{inno, "bench/pi1.ibd", true},
		{inno, "bench/pi1.frm", true},
		{inno, "bench/db.opt", true},
		{inno, "other/pi1.ibd", false},
		{inno, "bench2/pi1.ibd", false},
		{inno, "mysql/innodb_table_stats.ibd", false},
		{inno, "ibdata1", false},
		{inno, "undo001", false},
		{inno, "ib_logfile0", false},
		{inno, "binlog.000001", false},
		{inno, "server.log", false},
		{inno, "#rocksdb/000012.sst", false},
		{rocks, "#rocksdb/000012.sst", true},
		{rocks, "#rocksdb/000011.log", false},
		{rocks, "#rocksdb/MANIFEST-000005", false},
		{rocks, "#rocksdb/LOG", false},
		{rocks, "bench/pi1.frm", false},
		{rocks, "ibdata1", false},
	}
	for _, tt := range tests {
		if got := tt.e.IsDataFile(tt.rel); got != tt.want {
			t.Errorf("%T IsDataFile(%q) = %v, want %v", tt.e, tt.rel, got, tt.want)
		}
	}
}

func TestLastLogError(t *testing.T) {
	tests := []struct{ tail, want string }{
		{"2024-01-01 LOG:  ready\n2024-01-01 FATAL:  could not open file\n2024-01-01 LOG:  shutting down\n",
			"2024-01-01 FATAL:  could not open file"},
		{"2024-01-01 10:00:00 0 [Note] ready\n2024-01-01 10:00:01 0 [ERROR] mariadbd: out of memory\n",
			"2024-01-01 10:00:01 0 [ERROR] mariadbd: out of memory"},
		{"LOG:  database system is ready to accept connections\n",
			"no error in its log (killed?); its last line: LOG:  database system is ready to accept connections"},
		{"", "its log is empty"},
	}
	for _, tt := range tests {
		if got := lastLogError(tt.tail); got != tt.want {
			t.Errorf("lastLogError(%q) = %q, want %q", tt.tail, got, tt.want)
		}
	}
}

func TestPendingCompactionBytes(t *testing.T) {
	tests := []struct {
		name   string
		levels map[int]*rocksLevel
		want   float64
	}{
		{"empty", map[int]*rocksLevel{}, 0},
		{"l0 below trigger", map[int]*rocksLevel{0: {files: 2, bytes: 100, score: 0.5}}, 0},
		// L0 compacts whole into L1: 100 moved, L1 grows to 300 against a target of 200; its
		// excess 100 moves to L2 and rewrites L2's share (1000/300).
		{"l0 and l1 over target", map[int]*rocksLevel{
			0: {files: 4, bytes: 100, score: 1},
			1: {bytes: 200, score: 1},
			2: {bytes: 1000, score: 0.5},
		}, 100 + 100*(1000.0/300+1)},
		{"l1 over target", map[int]*rocksLevel{
			1: {bytes: 400, score: 2},
			2: {bytes: 800, score: 0.1},
		}, 200 * (800.0/400 + 1)},
	}
	for _, tt := range tests {
		if got := pendingCompactionBytes(tt.levels); got != tt.want {
			t.Errorf("%s: pendingCompactionBytes = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestServerEngines opens each engine on a managed server and exercises everything it offers.
func TestServerEngines(t *testing.T) {
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			t.Parallel()
			e := c.openManaged(t)
			t.Run("describe", func(t *testing.T) { testDescribe(t, c, e) })
			t.Run("timestamps", func(t *testing.T) { testTimestamps(t, e) })
			e.createBench(t, 3000)
			t.Run("delete oldest", func(t *testing.T) { testDeleteOldest(t, e) })
			t.Run("retryable", func(t *testing.T) { testRetryable(t, c, e) })
			t.Run("cleanup and stats", func(t *testing.T) { testCleanupStats(t, c, e) })
			t.Run("explain", func(t *testing.T) { testExplain(t, e) })
			t.Run("count through each index", func(t *testing.T) { testCountThrough(t, e) })
			t.Run("data files", func(t *testing.T) { testDataFiles(t, c, e) })
			var ext *serverEngine // an external engine on e's server
			t.Run("external", func(st *testing.T) { ext = testExternal(st, t, c, e) })
			t.Run("close", func(t *testing.T) {
				pid := e.server().ServerPID()
				if err := e.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				if servertest.Alive(pid) {
					t.Errorf("server process %d still runs after Close", pid)
				}
				if err := e.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
				if err := e.alive(); err == nil || !strings.Contains(err.Error(), "exited") {
					t.Errorf("Alive after Close = %v", err)
				}
				if ext == nil {
					return
				}
				// The external engine's server is gone: Alive says so, without the password.
				if err := ext.alive(); err == nil {
					t.Error("Alive of an external engine whose server stopped = nil")
				} else if strings.Contains(err.Error(), externalPassword) {
					t.Errorf("Alive shows the password: %v", err)
				}
			})
		})
	}
}

func testDescribe(t *testing.T, c serverCase, e *serverEngine) {
	if e.Family() != engine.FamilySQL {
		t.Errorf("Family = %s", e.Family())
	}
	switch c.kind {
	case server.Postgres:
		if !strings.HasPrefix(e.Version(), "1") || strings.Contains(e.Version(), " ") {
			t.Errorf("Version = %q", e.Version())
		}
	default:
		if !strings.HasSuffix(e.Version(), "-MariaDB") {
			t.Errorf("Version = %q", e.Version())
		}
	}
	st := e.Settings()
	applies := forInstalled(t, c, engine.MergeSettings(c.driver.Settings, c.small), c.small)
	for _, s := range c.driver.Settings {
		if _, ok := applies[s.Name]; !ok { // another version's or product's default
			if v, ok := st[s.Name]; ok {
				t.Errorf("Settings()[%s] = %q: a default of another version or product", s.Name, v)
			}
			continue
		}
		wantV := s.Default
		if v, ok := c.small[s.Name]; ok {
			wantV = v
		}
		if st[s.Name] != wantV {
			t.Errorf("Settings()[%s] = %q, want %q", s.Name, st[s.Name], wantV)
		}
	}
	pid := e.server().ServerPID()
	if pid <= 0 || !servertest.Alive(pid) {
		t.Errorf("ServerPID = %d: no such process", pid)
	}
	if err := e.alive(); err != nil {
		t.Errorf("Alive = %v", err)
	}
	// The settings are in force.
	checkInForce(t, c, e.SQL(), forInstalled(t, c, engine.MergeSettings(c.driver.Settings, c.small), c.small))
}

// testTimestamps checks that a Timestamp column stores the dialect's datetime type and reads
// back the unix seconds written, for values a DST-observing zone could not round-trip too.
func testTimestamps(t *testing.T, e *serverEngine) {
	d := e.Dialect()
	e.exec(t, "CREATE TABLE ts (id "+d.Type(Int, 0)+" NOT NULL, d "+d.Type(Timestamp, 0)+")"+d.TableOptions())
	values := []int64{0, 1700000000, 1711846800 /* 2024-03-31 01:00 UTC, a DST change in Europe */, 2000000000}
	for i, v := range values {
		e.exec(t, "INSERT INTO ts (id, d) VALUES ("+d.Placeholder(1)+", "+d.TimestampFromUnix(d.Placeholder(2))+")", i, v)
	}
	rows, err := e.SQL().Query("SELECT id, " + d.TimestampToUnix("d") + " FROM ts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int
		var got int64
		if err := rows.Scan(&id, &got); err != nil {
			t.Fatal(err)
		}
		if got != values[id] {
			t.Errorf("timestamp %d read back as %d", values[id], got)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != len(values) {
		t.Errorf("%d rows (%v)", n, err)
	}
	var text string
	if err := e.SQL().QueryRow("SELECT CAST(d AS CHAR(19)) FROM ts WHERE id = 1").Scan(&text); err != nil ||
		!strings.HasPrefix(text, "2023-11-14 22:13:20") {
		t.Errorf("1700000000 stored as %q (%v), want 2023-11-14 22:13:20 (UTC)", text, err)
	}
}

func testDeleteOldest(t *testing.T, e *serverEngine) {
	d := e.Dialect()
	res, err := e.SQL().Exec(d.DeleteOldest("pi1", "transactionid", 5), int64(10))
	if err != nil {
		t.Fatalf("DeleteOldest: %v", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 5 {
		t.Fatalf("DeleteOldest deleted %d rows (%v), want 5", n, err)
	}
	var ids []int64
	rows, err := e.SQL().Query("SELECT transactionid FROM pi1 WHERE transactionid BETWEEN 8 AND 17 ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if fmt.Sprint(ids) != "[8 9 15 16 17]" {
		t.Errorf("ids left in [8, 17] = %v, want [8 9 15 16 17]", ids)
	}
	// The primary key is assigned in insert order and survives deletes.
	var lo, hi, n int64
	if err := e.SQL().QueryRow("SELECT min(transactionid), max(transactionid), count(*) FROM pi1").Scan(&lo, &hi, &n); err != nil ||
		lo != 1 || hi != 3000 || n != 2995 {
		t.Errorf("ids [%d, %d], %d rows (%v); want [1, 3000], 2995", lo, hi, n, err)
	}
}

// testRetryable provokes the transient conflicts on the real server and checks how the
// dialect classifies the driver's errors.
func testRetryable(t *testing.T, c serverCase, e *serverEngine) {
	ctx := context.Background()
	d := e.Dialect()
	conn := func() *sql.Conn {
		cn, err := e.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cn.Close() })
		return cn
	}
	exec := func(cn *sql.Conn, q string) {
		t.Helper()
		if _, err := cn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	upd := func(id int) string {
		return fmt.Sprintf("UPDATE pi1 SET price = price + 1 WHERE transactionid = %d", id)
	}
	begin := "BEGIN"
	if c.kind == server.MariaDB {
		begin = "START TRANSACTION"
	}
	wantRetryable := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		if !d.Retryable(err) || !d.Retryable(fmt.Errorf("step: %w", err)) {
			t.Errorf("%s: Retryable(%v) = false", what, err)
		}
	}

	// A deadlock: each transaction holds the row the other wants. The server aborts one of
	// them (MyRocks, without deadlock detection, after its lock wait timeout).
	a, b := conn(), conn()
	aID := sessionID(t, c, a)
	exec(a, begin)
	exec(b, begin)
	exec(a, upd(100))
	exec(b, upd(200))
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := a.ExecContext(ctx, upd(200))
		errs <- err
	}()
	waitForLockWait(t, c, e, aID, errs) // a waits for the lock first, so that b closes the cycle
	_, errB := b.ExecContext(ctx, upd(100))
	errs <- errB
	var failed error
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			failed = err
			break
		}
	}
	// Whichever failed, roll both back, which also releases the one still waiting.
	b.ExecContext(ctx, "ROLLBACK")
	a.ExecContext(ctx, "ROLLBACK")
	wg.Wait()
	wantRetryable("deadlock", failed)

	// Engine-specific conflicts.
	switch c.driver.Name {
	case "postgres":
		// 40001: a REPEATABLE READ transaction updates a row changed after its snapshot.
		exec(a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
		exec(a, "SELECT count(*) FROM pi1")
		exec(b, upd(300))
		_, err := a.ExecContext(ctx, upd(300))
		a.ExecContext(ctx, "ROLLBACK")
		wantRetryable("serialization failure", err)
		// 55P03: NOWAIT on a locked row.
		exec(a, "BEGIN")
		exec(a, upd(400))
		_, err = b.ExecContext(ctx, "SELECT 1 FROM pi1 WHERE transactionid = 400 FOR UPDATE NOWAIT")
		a.ExecContext(ctx, "ROLLBACK")
		wantRetryable("lock not available", err)
	case "innodb":
		// 1205: a lock wait timeout.
		exec(b, "SET SESSION innodb_lock_wait_timeout = 1")
		exec(a, begin)
		exec(a, upd(400))
		_, err := b.ExecContext(ctx, upd(400))
		a.ExecContext(ctx, "ROLLBACK")
		wantRetryable("lock wait timeout", err)
	case "myrocks":
		// 1213 for a snapshot conflict: the row changed after the transaction's snapshot
		// (taken by its first read). The defaults run READ COMMITTED (as the published
		// configuration), where each statement takes a new snapshot: the conflict needs
		// REPEATABLE READ.
		exec(a, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
		exec(a, "START TRANSACTION")
		exec(a, "SELECT count(*) FROM pi1 WHERE transactionid = 300")
		exec(b, upd(300))
		_, err := a.ExecContext(ctx, upd(300))
		a.ExecContext(ctx, "ROLLBACK")
		wantRetryable("snapshot conflict", err)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1213 {
			t.Errorf("snapshot conflict: %v, want error 1213", err)
		}
	}

	// A lost connection is not retryable.
	lost := conn()
	var id int64
	if c.kind == server.Postgres {
		if err := lost.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		exec(b, fmt.Sprintf("SELECT pg_terminate_backend(%d)", id))
	} else {
		if err := lost.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		exec(b, fmt.Sprintf("KILL %d", id))
	}
	// The server closes the connection asynchronously: poll until it has (a minute at most).
	var err error
	testwait.Until(t, "the killed session's statements to fail", time.Minute, func() bool {
		_, err = lost.ExecContext(ctx, upd(500))
		return err != nil
	})
	if err == nil || d.Retryable(err) {
		t.Errorf("lost connection: Retryable(%v) = true or no error", err)
	}
	// A syntax error is not retryable either.
	if _, err := e.SQL().Exec("SELEC 1"); err == nil || d.Retryable(err) {
		t.Errorf("syntax error: Retryable(%v) = true or no error", err)
	}
}

// sessionID returns the server's id of cn's session: its backend's pid on PostgreSQL, its
// connection id on MariaDB.
func sessionID(t *testing.T, c serverCase, cn *sql.Conn) int64 {
	t.Helper()
	q := "SELECT CONNECTION_ID()"
	if c.kind == server.Postgres {
		q = "SELECT pg_backend_pid()"
	}
	var id int64
	if err := cn.QueryRowContext(context.Background(), q).Scan(&id); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return id
}

// innodbTrxCacheIdle is longer than the 100 ms InnoDB's INNODB_TRX cache must go unread before
// a read refreshes it.
const innodbTrxCacheIdle = 250 * time.Millisecond

// lockWaitQueries count the lock waits of the session whose id is the argument, by engine.
var lockWaitQueries = map[string]string{
	"postgres": "SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted",
	"innodb":   "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'",
	"myrocks":  "SELECT count(*) FROM information_schema.ROCKSDB_TRX WHERE THREAD_ID = ? AND WAITING_KEY <> ''",
}

// waitForLockWait waits until the session id waits for a lock, as the server reports it; it
// fails the test at once if the session's statement ends first (its result arrives on ended),
// and after a minute otherwise.
func waitForLockWait(t *testing.T, c serverCase, e *serverEngine, id int64, ended <-chan error) {
	t.Helper()
	q := lockWaitQueries[c.driver.Name]
	var last time.Time
	testwait.Until(t, fmt.Sprintf("session %d to wait for a lock", id), time.Minute, func() bool {
		if len(ended) > 0 {
			t.Fatalf("session %d's statement ended before it was seen waiting for the lock: %v", id, <-ended)
		}
		// InnoDB refreshes INNODB_TRX (its trx_i_s cache) only when nobody read it for 100 ms:
		// looked at every 20 ms, it would show the state of the first look for ever.
		if c.driver.Name == "innodb" && time.Since(last) < innodbTrxCacheIdle {
			return false
		}
		last = time.Now()
		var n int
		if err := e.SQL().QueryRow(q, id).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n > 0
	})
}

func testCleanupStats(t *testing.T, c serverCase, e *serverEngine) {
	ctx := context.Background()
	keys := map[string][]string{
		"postgres": {"live_tuples", "dead_tuples", "autovacuum_runs", "autoanalyze_runs", "vacuum_runs", "vacuums_running", "wal_bytes", "checkpoints",
			"blks_read", "blks_hit", "snapshot_xid_age"},
		"innodb": {"history_list_length", "dirty_pages", "data_pages", "pending_reads", "pending_writes", "pending_fsyncs",
			"checkpoint_age_bytes", "buffer_pool_wait_free", "log_waits", "row_lock_waits", "deadlocks"},
		"myrocks": {"pending_compaction_bytes", "compaction_pending", "compacting_files", "l0_files", "immutable_memtables",
			"memtable_bytes", "stall_micros", "stall_stops", "stall_slowdowns", "flush_bytes_written", "compaction_bytes_written",
			"compaction_bytes_read", "wal_bytes", "row_lock_deadlocks", "row_lock_wait_timeouts", "snapshot_conflicts"},
	}[c.driver.Name]
	before := e.stats(t)
	for _, k := range keys {
		if v, ok := before[k]; !ok || v < 0 {
			t.Errorf("Stats()[%s] = %v, %v", k, v, ok)
		}
	}
	if len(before) != len(keys) {
		t.Errorf("Stats() has %d keys, want %d: %v", len(before), len(keys), before)
	}
	var flushedBefore float64
	switch c.driver.Name {
	case "postgres":
		if before["wal_bytes"] <= 0 {
			t.Errorf("wal_bytes = %v after inserts", before["wal_bytes"])
		}
	case "innodb":
		if before["data_pages"] <= 0 || before["deadlocks"] < 1 {
			t.Errorf("data_pages %v, deadlocks %v", before["data_pages"], before["deadlocks"])
		}
		var name string
		if err := e.SQL().QueryRow(statusQuery("INNODB_BUFFER_POOL_PAGES_FLUSHED")).Scan(&name, &flushedBefore); err != nil {
			t.Fatal(err)
		}
	case "myrocks":
		if before["wal_bytes"] <= 0 || before["memtable_bytes"] <= 0 || before["snapshot_conflicts"] < 1 {
			t.Errorf("wal_bytes %v, memtable_bytes %v, snapshot_conflicts %v",
				before["wal_bytes"], before["memtable_bytes"], before["snapshot_conflicts"])
		}
	}
	// A second table, so that the cleanup's statements run on every table; it fills enough
	// pages that InnoDB holds more than 1% of its buffer pool dirty.
	e.exec(t, "CREATE TABLE cleanup2 (id INT PRIMARY KEY, v VARCHAR(200))"+e.Dialect().TableOptions())
	defer e.exec(t, "DROP TABLE cleanup2")
	for i := 0; i < 20; i++ {
		var sb strings.Builder
		for j := 0; j < 1000; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, '%s')", i*1000+j, strings.Repeat("x", 150+j%50))
		}
		e.exec(t, "INSERT INTO cleanup2 (id, v) VALUES "+sb.String())
	}
	var ckptBefore string
	if c.kind == server.Postgres {
		if err := e.SQL().QueryRow("SELECT checkpoint_lsn::text FROM pg_control_checkpoint()").Scan(&ckptBefore); err != nil {
			t.Fatal(err)
		}
	}
	vacuumsBefore := pgVacuums(t, c, e)
	if c.driver.Name == "innodb" {
		// Stale statistics, so that the ANALYZE TABLEs show.
		e.exec(t, "UPDATE mysql.innodb_table_stats SET n_rows = 0, last_update = '2001-01-01 00:00:00' WHERE database_name = DATABASE()")
	}

	var notes []string
	waits := 0
	h := engine.CleanupHooks{
		Note: func(n string) { notes = append(notes, n) },
		Wait: func(ctx context.Context) error {
			waits++
			if c.driver.Name == "innodb" {
				checkInnoDBFlushing(ctx, t, e)
			}
			return ctx.Err()
		},
	}
	if err := e.cleaner().Cleanup(ctx, h); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	t.Logf("Cleanup noted:\n%s", strings.Join(notes, "\n"))
	after := e.stats(t)
	want := map[string][]string{
		"postgres": {"VACUUM (VERBOSE, ANALYZE, INDEX_CLEANUP ON), a connection per table in parallel: ", "CHECKPOINT: "},
		"innodb": {"SET GLOBAL innodb_max_dirty_pages_pct_lwm = 1, innodb_max_dirty_pages_pct = 1 until",
			"ANALYZE TABLE, a connection per table in parallel: "},
		"myrocks": {"SET GLOBAL rocksdb_force_flush_memtable_now = 1", "SET GLOBAL rocksdb_force_flush_memtable_and_lzero_now = 1",
			"ANALYZE TABLE, a connection per table in parallel: "},
	}[c.driver.Name]
	for _, w := range want {
		found := false
		for _, n := range notes {
			everyTable := strings.Contains(n, "pi1") && strings.Contains(n, "cleanup2")
			found = found || strings.Contains(n, w) && (everyTable || !strings.Contains(w, "per table"))
		}
		if !found {
			t.Errorf("Cleanup's notes %q lack %q (with both tables)", notes, w)
		}
	}
	// The servers wait with their settings in force (InnoDB) or after their LSM has settled
	// (MyRocks); PostgreSQL's caller waits after the CHECKPOINT.
	if wantWaits := map[string]int{"postgres": 0, "innodb": 1, "myrocks": 1}[c.driver.Name]; waits != wantWaits {
		t.Errorf("Cleanup called Wait %d times, want %d", waits, wantWaits)
	}
	switch c.driver.Name {
	case "postgres":
		checkPGVacuumed(t, e, vacuumsBefore)
		// The checkpointer publishes its counter after it has woken CHECKPOINT up: the control
		// file says that a checkpoint happened.
		var ckpt string
		if err := e.SQL().QueryRow("SELECT checkpoint_lsn::text FROM pg_control_checkpoint()").Scan(&ckpt); err != nil || ckpt == ckptBefore {
			t.Errorf("checkpoint LSN %s -> %s (%v): Cleanup did not checkpoint", ckptBefore, ckpt, err)
		}
	case "innodb":
		var stale int
		if err := e.SQL().QueryRow("SELECT COUNT(*) FROM mysql.innodb_table_stats WHERE database_name = DATABASE() AND (n_rows = 0 OR last_update < '2002-01-01')").Scan(&stale); err != nil || stale != 0 {
			t.Errorf("%d tables (%v) with the statistics of before Cleanup: it did not ANALYZE them", stale, err)
		}
		checkInnoDBRestored(t, e, "Cleanup")
	case "myrocks":
		if after["flush_bytes_written"] <= before["flush_bytes_written"] {
			t.Errorf("flush_bytes_written %v -> %v: Cleanup flushed nothing", before["flush_bytes_written"], after["flush_bytes_written"])
		}
		if after["l0_files"] != 0 || after["immutable_memtables"] != 0 || after["compaction_pending"] != 0 || after["compacting_files"] != 0 {
			t.Errorf("after Cleanup, want no L0 file and nothing to flush or compact: %v", after)
		}
	}

	if c.driver.Name == "innodb" {
		// Canceled while it waits, Cleanup still restores the settings.
		e.exec(t, "UPDATE pi1 SET price = price + 1")
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := e.cleaner().Cleanup(cctx, engine.CleanupHooks{Wait: func(ctx context.Context) error {
			cancel()
			return ctx.Err()
		}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Cleanup canceled in its wait = %v, want context.Canceled", err)
		}
		checkInnoDBRestored(t, e, "a canceled Cleanup")
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.cleaner().Cleanup(canceled, engine.CleanupHooks{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Cleanup on a canceled context = %v, want context.Canceled", err)
	}
	if _, err := e.statser().Stats(canceled); err == nil {
		t.Error("Stats on a canceled context succeeded")
	}
}

// pgVacuums returns vacuum_count of every table of the current schema (nil for the other
// servers).
func pgVacuums(t *testing.T, c serverCase, e *serverEngine) map[string]int64 {
	t.Helper()
	if c.kind != server.Postgres {
		return nil
	}
	rows, err := e.SQL().Query("SELECT relname, vacuum_count FROM pg_stat_user_tables WHERE schemaname = current_schema()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		m[name] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkPGVacuumed checks that every table was vacuumed once more than before, and analyzed.
func checkPGVacuumed(t *testing.T, e *serverEngine, before map[string]int64) {
	t.Helper()
	rows, err := e.SQL().Query(`SELECT relname, vacuum_count, last_vacuum IS NOT NULL, last_analyze IS NOT NULL
FROM pg_stat_user_tables WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var name string
		var count int64
		var vacuumed, analyzed bool
		if err := rows.Scan(&name, &count, &vacuumed, &analyzed); err != nil {
			t.Fatal(err)
		}
		n++
		if count != before[name]+1 || !vacuumed || !analyzed {
			t.Errorf("%s: vacuum_count %d -> %d, last_vacuum set %v, last_analyze set %v: Cleanup did not VACUUM (ANALYZE) it",
				name, before[name], count, vacuumed, analyzed)
		}
	}
	if err := rows.Err(); err != nil || n < 2 {
		t.Errorf("%d tables (%v), want pi1 and cleanup2", n, err)
	}
}

// checkInnoDBFlushing checks, in the cleanup's wait, that the dirty-page settings are lowered
// to 1, and waits (at most two minutes) until the page cleaner has brought the dirty pages
// down to 1% of the buffer pool.
func checkInnoDBFlushing(ctx context.Context, t *testing.T, e *serverEngine) {
	var pct, lwm float64
	if err := e.SQL().QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_max_dirty_pages_pct_lwm").Scan(&pct, &lwm); err != nil ||
		pct != 1 || lwm != 1 {
		t.Errorf("in the wait innodb_max_dirty_pages_pct = %v, _lwm = %v (%v); want 1, 1", pct, lwm, err)
	}
	status := func() (dirty, total, flushed float64) {
		st, err := e.DB.(*mysqlDB).status(ctx, map[string]string{"dirty": "INNODB_BUFFER_POOL_PAGES_DIRTY",
			"total": "INNODB_BUFFER_POOL_PAGES_TOTAL", "flushed": "INNODB_BUFFER_POOL_PAGES_FLUSHED"})
		if err != nil {
			t.Fatal(err)
		}
		return st["dirty"], st["total"], st["flushed"]
	}
	dirty0, total, flushed0 := status()
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	dirty, _, flushed := dirty0, total, flushed0
	for dirty > 0.01*total {
		if sleepCtx(wctx, 100*time.Millisecond) != nil {
			t.Errorf("in the wait: %v of %v pages still dirty after two minutes", dirty, total)
			return
		}
		dirty, _, flushed = status()
	}
	t.Logf("in the wait: dirty pages %v -> %v of %v, pages flushed %v -> %v", dirty0, dirty, total, flushed0, flushed)
	if dirty0 > 0.01*total && flushed <= flushed0 {
		t.Errorf("%v of %v pages dirty at the wait's start, and no page flushed", dirty0, total)
	}
}

// checkInnoDBRestored checks that the dirty-page settings are back to the server's (90, 80).
func checkInnoDBRestored(t *testing.T, e *serverEngine, after string) {
	t.Helper()
	var pct, lwm float64
	if err := e.SQL().QueryRow("SELECT @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_max_dirty_pages_pct_lwm").Scan(&pct, &lwm); err != nil ||
		pct != 90 || lwm != 80 {
		t.Errorf("after %s innodb_max_dirty_pages_pct = %v, _lwm = %v (%v); want the settings 90, 80 restored", after, pct, lwm, err)
	}
}

// testExplain checks that the Insert Benchmark's queries use the intended index: the range
// queries on each secondary index, the primary key range and point queries, and the delete.
func testExplain(t *testing.T, e *serverEngine) {
	d := e.Dialect()
	pdcCols := strings.Replace(benchIndexes[2].cols, "dateandtime", d.TimestampToUnix("dateandtime"), 1)
	queries := []struct {
		index, q string
	}{
		{"pi1_marketsegment", "SELECT productid, customerid, price FROM pi1" + d.IndexHint("pi1_marketsegment") +
			" WHERE productid >= 5000 ORDER BY productid, customerid, price LIMIT 10"},
		{"pi1_registersegment", "SELECT cashregisterid, customerid, price FROM pi1" + d.IndexHint("pi1_registersegment") +
			" WHERE cashregisterid >= 500 ORDER BY cashregisterid, customerid, price LIMIT 10"},
		{"pi1_pdc", "SELECT " + pdcCols + " FROM pi1" + d.IndexHint("pi1_pdc") +
			" WHERE price >= 250 ORDER BY price, dateandtime, customerid LIMIT 10"},
		{"pk", "SELECT transactionid FROM pi1" + d.PrimaryKeyHint() +
			" WHERE transactionid >= 100 ORDER BY transactionid LIMIT 10"},
		{"pk", "SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN (11, 222, 333, 1444, 2555)"},
		{"pk", strings.ReplaceAll(strings.ReplaceAll(d.DeleteOldest("pi1", "transactionid", 50), "$1", "100"), "?", "100")},
	}
	pk := "pi1_pkey"
	if d.Name() == "mysql" {
		pk = "PRIMARY"
	}
	for _, q := range queries {
		want := q.index
		if want == "pk" {
			want = pk
		}
		plan := explain(t, e.SQL(), q.q)
		if d.Name() == "mysql" {
			// EXPLAIN's key column, for every table of the plan.
			for _, row := range plan {
				if row["key"] != want {
					t.Errorf("%s: uses key %q, want %s (plan %v)", q.q, row["key"], want, plan)
				}
				if strings.HasPrefix(q.q, "SELECT") && q.index != "pk" && !strings.Contains(row["Extra"], "Using index") {
					t.Errorf("%s: not covered by %s (plan %v)", q.q, want, plan)
				}
			}
			continue
		}
		text := fmt.Sprint(plan)
		if !strings.Contains(text, want) || strings.Contains(text, "Seq Scan") || strings.Contains(text, "Sort") {
			t.Errorf("%s: plan does not read %s in order:\n%s", q.q, want, text)
		}
		if strings.HasPrefix(q.q, "SELECT") && q.index != "pk" && !strings.Contains(text, "Index Only Scan using "+want) {
			t.Errorf("%s: not an index-only scan of %s:\n%s", q.q, want, text)
		}
		if strings.HasPrefix(q.q, "DELETE") && !strings.Contains(text, "Tid Scan") {
			t.Errorf("%s: the rows are not deleted by a TID scan:\n%s", q.q, text)
		}
	}
}

// explain returns the rows of EXPLAIN q as column -> value.
func explain(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, q string) []map[string]string {
	t.Helper()
	rows, err := db.Query("EXPLAIN " + q)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = vals[i].String
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// testDataFiles checks that the files of table pi1 count as data files, and the server's
// log and its redo or write-ahead log do not.
func testDataFiles(t *testing.T, c serverCase, e *serverEngine) {
	df := e.dataFiler()
	var tableFiles, notData []string
	switch c.driver.Name {
	case "postgres":
		var rel string
		if err := e.SQL().QueryRow("SELECT pg_relation_filepath('pi1')").Scan(&rel); err != nil {
			t.Fatal(err)
		}
		tableFiles = []string{rel}
		notData = []string{"server.log", "postgresql.conf"}
	case "innodb":
		tableFiles = []string{"enginebench/pi1.ibd"}
		notData = []string{"ib_logfile0", "ibdata1", "undo001", "binlog.000001", "server.log", "my.cnf"}
	case "myrocks":
		entries, err := os.ReadDir(filepath.Join(e.dataDir, "#rocksdb"))
		if err != nil {
			t.Fatal(err)
		}
		for _, en := range entries {
			if strings.HasSuffix(en.Name(), ".sst") {
				tableFiles = append(tableFiles, "#rocksdb/"+en.Name())
			}
		}
		if len(tableFiles) == 0 {
			t.Fatalf("no SST file after Cleanup flushed the memtables: %v", entries)
		}
		notData = []string{"server.log", "ib_logfile0", "ibdata1", "binlog.000001"}
	}
	for _, rel := range tableFiles {
		if _, err := os.Stat(filepath.Join(e.dataDir, rel)); err != nil {
			t.Errorf("table file: %v", err)
		}
		if !df.IsDataFile(rel) {
			t.Errorf("IsDataFile(%q) = false", rel)
		}
	}
	for _, rel := range notData {
		if _, err := os.Stat(filepath.Join(e.dataDir, rel)); err != nil {
			t.Errorf("expected file: %v", err)
		}
		if df.IsDataFile(rel) {
			t.Errorf("IsDataFile(%q) = true", rel)
		}
	}
	// Over the whole directory, the data files are some of the files, and hold most of pi1.
	var data, all int
	err := filepath.WalkDir(e.dataDir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil // files vanish while the server runs
		}
		rel, _ := filepath.Rel(e.dataDir, p)
		all++
		if df.IsDataFile(filepath.ToSlash(rel)) {
			data++
		}
		return nil
	})
	if err != nil || data == 0 || data >= all {
		t.Errorf("%d data files of %d (%v)", data, all, err)
	}
}

// externalPassword is the password of the DSNs of testExternal.
const externalPassword = "Pa55-w0rd-x7"

// testExternal opens engines on the managed server through a DSN with a password, and checks
// that the password shows nowhere. It returns an external engine that stays open until outer
// ends.
func testExternal(t, outer *testing.T, c serverCase, e *serverEngine) *serverEngine {
	const password = externalPassword
	srv := e.DB.(interface{ ServerPID() int }).ServerPID()
	var dsn, badDSN, wrongPW, malformed string
	switch c.kind {
	case server.Postgres:
		// The managed server trusts its socket: the password is sent only if asked for.
		m := e.DB.(*postgresDB).srv
		base := fmt.Sprintf("host=%s port=%d user=%s sslmode=disable password=%s", m.SocketDir(), m.Port(), m.User(), password)
		dsn = base + " dbname=" + m.Database()
		badDSN = base + " dbname=nosuchdb"
		malformed = "host=" + m.SocketDir() + " port=notaport password=" + password
	default:
		m := e.DB.(*mysqlDB).srv
		e.exec(t, "CREATE USER bench@localhost IDENTIFIED BY '"+password+"'")
		e.exec(t, "GRANT ALL ON *.* TO bench@localhost")
		dsn = fmt.Sprintf("bench:%s@unix(%s)/%s", password, m.SocketPath(), m.Database())
		badDSN = fmt.Sprintf("bench:%s@unix(%s)/nosuchdb", password, m.SocketPath())
		wrongPW = fmt.Sprintf("bench:%sX@unix(%s)/%s", password, m.SocketPath(), m.Database())
		malformed = fmt.Sprintf("bench:%s@unix(%s/%s", password, m.SocketPath(), m.Database())
	}
	noSecret := func(what, s string) {
		t.Helper()
		if strings.Contains(s, password) {
			t.Errorf("%s shows the password: %s", what, s)
		}
	}
	for _, bad := range []string{badDSN, wrongPW, malformed} {
		if bad == "" {
			continue
		}
		_, err := c.open(t, engine.Config{DSN: bad})
		if err == nil {
			t.Errorf("open with a bad DSN succeeded")
			continue
		}
		noSecret("open error", err.Error())
		t.Logf("bad DSN: %v", err)
	}

	x, err := c.open(t, engine.Config{DSN: dsn, DBPID: srv})
	if err != nil {
		t.Fatalf("open external: %v", err)
	}
	if x.server().ServerPID() != srv {
		t.Errorf("external ServerPID = %d, want DBPID %d", x.server().ServerPID(), srv)
	}
	noSecret("Version", x.Version())
	if x.Version() != e.Version() {
		t.Errorf("external Version = %q, managed %q", x.Version(), e.Version())
	}
	st := x.Settings()
	noSecret("Settings", fmt.Sprint(st))
	applies := forInstalled(t, c, engine.MergeSettings(c.driver.Settings, nil), nil)
	for _, s := range c.driver.Settings {
		if _, in := applies[s.Name]; !in {
			continue // another version's or product's default
		}
		if _, ok := st[s.Name]; !ok && !notVariables[s.Name] && mariaVariable[s.Name] == "" && !s.Client {
			t.Errorf("external Settings() lacks %s: %v", s.Name, st)
		}
	}
	if st["dsn_host"] == "" || st["dsn_database"] == "" {
		t.Errorf("external Settings() = %v, want dsn_host and dsn_database", st)
	}
	if err := x.alive(); err != nil {
		t.Errorf("external Alive = %v", err)
	}
	// It creates nothing but what the workload creates, and works.
	d := x.Dialect()
	if _, err := x.SQL().Exec("CREATE TABLE ext1 (id " + d.AutoIncrementPK() + ", n " + d.Type(Int, 0) + ")" + d.TableOptions()); err != nil {
		t.Fatal(err)
	}
	if _, err := x.SQL().Exec("INSERT INTO ext1 (n) VALUES ("+d.Placeholder(1)+")", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := x.statser().Stats(context.Background()); err != nil {
		t.Errorf("external Stats: %v", err)
	}
	if err := x.Close(); err != nil {
		t.Errorf("external Close: %v", err)
	}
	if err := e.alive(); err != nil {
		t.Errorf("closing the external engine stopped the server: %v", err)
	}
	if _, err := x.SQL().Exec("SELECT 1"); err == nil {
		t.Error("the external engine's pool is open after Close")
	}
	y, err := c.open(outer, engine.Config{DSN: dsn}) // open until outer ends
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// TestServerKilled kills each managed server with SIGKILL and checks that Alive says so and
// that Close still works.
func TestServerKilled(t *testing.T) {
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			t.Parallel()
			e := c.openManaged(t)
			pid := e.server().ServerPID()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			var err error
			testwait.Until(t, "Alive to see the killed server", time.Minute, func() bool {
				err = e.alive()
				return err != nil
			})
			want := fmt.Sprintf("%s server (pid %d) exited: ", c.driver.Name, pid)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("Alive after SIGKILL = %v, want %q...", err, want)
			}
			t.Logf("Alive: %v", err)
			if _, err := e.SQL().Exec("SELECT 1"); err == nil {
				t.Error("a query succeeded on a killed server")
			}
			e.Close() // the server is already gone; Close must return and leave nothing behind
			if servertest.Alive(pid) {
				t.Errorf("process %d still runs", pid)
			}
		})
	}
}

// TestServerDefaults starts each engine with its documented defaults alone (the memory sizes
// of a benchmark run included) and checks that the server runs with them.
func TestServerDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			e, err := c.open(t, engine.Config{})
			if err != nil {
				t.Fatalf("open with the defaults: %v", err)
			}
			want := forInstalled(t, c, engine.MergeSettings(c.driver.Settings, nil), nil)
			if got := e.Settings(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Settings() = %v, want the defaults %v", got, want)
			}
			checkInForce(t, c, e.SQL(), want)
		})
	}
}

// testCountThrough counts pi1 through its primary key and each secondary index with Count, and
// checks with EXPLAIN (after the same settings) that each count reads its own index.
func testCountThrough(t *testing.T, e *serverEngine) {
	d := e.Dialect()
	var n int64
	if err := e.SQL().QueryRow("SELECT count(*) FROM pi1").Scan(&n); err != nil || n == 0 {
		t.Fatalf("count(*) of pi1: %d, %v", n, err)
	}
	pk := "pi1_pkey"
	if d.Name() == "mysql" {
		pk = "PRIMARY"
	}
	type index struct{ name, hint, cols string }
	indexes := []index{{pk, d.PrimaryKeyHint(), "transactionid"}}
	for _, ix := range benchIndexes {
		indexes = append(indexes, index{ix.name, d.IndexHint(ix.name), ix.cols})
	}
	ctx := context.Background()
	for _, ix := range indexes {
		cols := strings.Split(ix.cols, ", ")
		got, err := Count(ctx, e.SQL(), d, "pi1", ix.hint, cols, math.MinInt32)
		if err != nil || got != n {
			t.Errorf("count through %s: %d, %v; want %d", ix.name, got, err, n)
		}
		tx, err := e.SQL().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ix.hint == "" {
			for _, st := range d.IndexOrderSettings() {
				if _, err := tx.Exec(st); err != nil {
					t.Fatal(err)
				}
			}
		}
		plan := fmt.Sprint(explain(t, tx, CountQuery("pi1", ix.hint, cols, math.MinInt32)))
		tx.Rollback()
		want := "Index Only Scan using " + ix.name + " "
		if d.Name() == "mysql" {
			want = "key:" + ix.name + " "
		}
		if !strings.Contains(plan, want) || strings.Contains(plan, "Sort") {
			t.Errorf("count through %s: plan %s", ix.name, plan)
		}
	}
}

// statusQuery returns a query of global status variables (upper case names) as name, value.
func statusQuery(names ...string) string {
	return "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('" +
		strings.Join(names, "','") + "')"
}
