package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

func (e *serverEngine) dbBytes(t *testing.T) int64 {
	t.Helper()
	n, err := e.DB.(engine.DatabaseSizer).DatabaseBytes(context.Background())
	if err != nil {
		t.Fatalf("DatabaseBytes: %v", err)
	}
	return n
}

// fileBytes sums the sizes of the files under dir for which keep is true: apparent sizes
// (st_size, as pg_database_size and RocksDB count), or the blocks allocated (as InnoDB's
// ALLOCATED_SIZE and du count).
func fileBytes(t *testing.T, dir string, allocated bool, keep func(rel string) bool) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // files vanish while the server runs
		}
		rel, _ := filepath.Rel(dir, p)
		if !keep(filepath.ToSlash(rel)) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && allocated {
			n += st.Blocks * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ownFiles returns the size of the benchmark database's own files in the managed server's data
// directory, as DatabaseBytes counts them, and of all the files of the same kind (every
// database's).
func ownFiles(t *testing.T, c serverCase, e *serverEngine) (own, kind int64) {
	t.Helper()
	switch c.driver.Name {
	case "postgres":
		oid := strconv.FormatUint(uint64(e.DB.(*postgresDB).dbOID), 10)
		own = fileBytes(t, e.dataDir, false, func(rel string) bool { return strings.HasPrefix(rel, "base/"+oid+"/") })
		kind = fileBytes(t, e.dataDir, false, func(rel string) bool { return strings.HasPrefix(rel, "base/") })
	case "innodb":
		own = fileBytes(t, e.dataDir, true, func(rel string) bool {
			return strings.HasPrefix(rel, "enginebench/") && strings.HasSuffix(rel, ".ibd")
		})
		kind = fileBytes(t, e.dataDir, true, func(rel string) bool { return strings.HasSuffix(rel, ".ibd") })
	case "myrocks":
		own = -1 // the SST files hold every database's rows
		kind = fileBytes(t, e.dataDir, false, func(rel string) bool {
			return strings.HasPrefix(rel, "#rocksdb/") && strings.HasSuffix(rel, ".sst")
		})
	}
	return own, kind
}

// settle writes MyRocks' memtables to SST files (DatabaseBytes counts SST files only), and
// has PostgreSQL create pi1's visibility and free space maps now rather than in an autovacuum
// during the test.
func settle(t *testing.T, c serverCase, e *serverEngine) {
	t.Helper()
	switch c.driver.Name {
	case "myrocks":
		e.exec(t, "SET GLOBAL rocksdb_force_flush_memtable_now = 1")
	case "postgres":
		e.exec(t, "VACUUM pi1")
	}
}

// otherDatabase creates another database on e's server with a table of the engine's kind
// holding n rows of 200 bytes.
func otherDatabase(t *testing.T, c serverCase, e *serverEngine, n int) {
	t.Helper()
	if c.driver.Name != "postgres" {
		e.exec(t, "CREATE DATABASE otherdb")
		e.exec(t, "CREATE TABLE otherdb.big (id BIGINT PRIMARY KEY, v VARCHAR(200))"+e.Dialect().TableOptions())
		e.exec(t, fmt.Sprintf("INSERT INTO otherdb.big SELECT seq, REPEAT('y', 200) FROM seq_1_to_%d", n))
		return
	}
	e.exec(t, "CREATE DATABASE otherdb")
	srv := e.DB.(*postgresDB).srv
	db, err := sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=%s dbname=otherdb sslmode=disable", srv.SocketDir(), srv.Port(), srv.User()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("CREATE TABLE big AS SELECT g AS id, repeat('y', 200) AS v FROM generate_series(1, %d) g", n)); err != nil {
		t.Fatal(err)
	}
}

// TestServerDatabaseBytes checks dbgb1's source on each managed server: DatabaseBytes is the
// benchmark database's own files, grows with its rows, does not count a table of another
// database on the same server, and is the same through a DSN.
func TestServerDatabaseBytes(t *testing.T) {
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			t.Parallel()
			e := c.openManaged(t)
			empty := e.dbBytes(t)
			e.createBench(t, 5000)
			settle(t, c, e)
			before, _ := ownFiles(t, c, e)
			loaded := e.dbBytes(t)
			after, kind := ownFiles(t, c, e)
			t.Logf("empty %d, loaded %d; own files %d..%d, files of the kind %d", empty, loaded, before, after, kind)
			if loaded <= empty {
				t.Errorf("DatabaseBytes %d after inserting, %d before", loaded, empty)
			}
			switch {
			case before >= 0 && (loaded < before || loaded > after):
				t.Errorf("DatabaseBytes = %d, the database's files %d..%d", loaded, before, after)
			case before < 0 && (loaded > kind || float64(loaded) < 0.9*float64(kind)):
				t.Errorf("DatabaseBytes = %d, the SST files (of the benchmark alone, and tiny system ones) %d", loaded, kind)
			}

			otherDatabase(t, c, e, 60000)
			if c.driver.Name == "myrocks" {
				settle(t, c, e)
			}
			withOther := e.dbBytes(t)
			_, kind2 := ownFiles(t, c, e)
			grown := kind2 - kind
			t.Logf("another database: DatabaseBytes %d, files of the kind grew by %d", withOther, grown)
			if float64(grown) < 2*float64(loaded) {
				t.Fatalf("the other database's table added %d bytes of files, want more than twice the benchmark's %d", grown, loaded)
			}
			// InnoDB and PostgreSQL: the same files. MyRocks: the benchmark's share of the SST
			// files that now also hold the other database's rows, estimated per file.
			if d := withOther - loaded; (c.driver.Name != "myrocks" && d != 0) || float64(max(d, -d)) > 0.05*float64(loaded) {
				t.Errorf("DatabaseBytes %d with another database's table, %d before: it counts the other database", withOther, loaded)
			}

			// The same through a DSN (the managed server's socket, no password needed).
			x, err := c.open(t, engine.Config{DSN: managedDSN(c, e)})
			if err != nil {
				t.Fatalf("open through the DSN: %v", err)
			}
			if got, again := x.dbBytes(t), e.dbBytes(t); got != again {
				t.Errorf("DatabaseBytes through the DSN = %d, managed %d", got, again)
			}
		})
	}
}

// managedDSN is a DSN of e's managed server.
func managedDSN(c serverCase, e *serverEngine) string {
	if c.driver.Name == "postgres" {
		m := e.DB.(*postgresDB).srv
		return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", m.SocketDir(), m.Port(), m.User(), m.Database())
	}
	m := e.DB.(*mysqlDB).srv
	return fmt.Sprintf("%s@unix(%s)/%s", m.User(), m.SocketPath(), m.Database())
}

// TestServerTableEngine checks the table_engine setting on MariaDB: the tables are created with
// the engine it names, on a managed server and through a DSN, and a name the server does not
// have fails clearly before any table is created.
func TestServerTableEngine(t *testing.T) {
	t.Parallel()
	c := serverCases()[1] // innodb
	if c.driver.Name != "innodb" {
		t.Fatal(c.driver.Name)
	}
	reg, err := engine.NewRegistry(c.driver)
	if err != nil {
		t.Fatal(err)
	}
	// Checked without a server: a malformed name, and server settings with a DSN.
	const wellFormed = "bench:pw@tcp(127.0.0.1:1)/bench" // never connected to
	if err := reg.Check(engine.Config{Engine: "innodb", DSN: wellFormed, Settings: map[string]string{tableEngineSetting: "InnoDB; DROP"}}); err == nil ||
		!strings.Contains(err.Error(), "not a storage engine name") {
		t.Errorf("malformed table_engine: %v", err)
	}
	if err := reg.Check(engine.Config{Engine: "innodb", DSN: wellFormed, Settings: map[string]string{tableEngineSetting: "TokuDB"}}); err != nil {
		t.Errorf("table_engine with a DSN: %v", err)
	}
	c.require(t)
	settings := map[string]string{tableEngineSetting: "Aria"}
	for k, v := range c.small {
		settings[k] = v
	}
	e, err := c.open(t, engine.Config{Settings: settings})
	if err != nil {
		t.Fatalf("open with table_engine=Aria: %v", err)
	}
	if got := e.Dialect().TableOptions(); got != " ENGINE=Aria" {
		t.Errorf("TableOptions = %q", got)
	}
	if got := e.Settings()[tableEngineSetting]; got != "Aria" {
		t.Errorf("Settings()[%s] = %q", tableEngineSetting, got)
	}
	e.createBench(t, 2000)
	tableEngine := func(db *sql.DB, table string) string {
		t.Helper()
		var eng string
		if err := db.QueryRow("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", table).Scan(&eng); err != nil {
			t.Fatalf("engine of %s: %v", table, err)
		}
		return eng
	}
	if got := tableEngine(e.SQL(), "pi1"); got != "Aria" {
		t.Errorf("pi1 has ENGINE=%s, want Aria", got)
	}
	// dbgb1 of a table engine other than InnoDB and ROCKSDB: the engine's own account.
	var want int64
	if err := e.SQL().QueryRow("SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pi1'").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := e.dbBytes(t); got != want || got <= 0 {
		t.Errorf("DatabaseBytes = %d, want DATA_LENGTH + INDEX_LENGTH = %d", got, want)
	}

	// Through a DSN, with another engine the server has.
	dsn := managedDSN(c, e)
	x, err := c.open(t, engine.Config{DSN: dsn, Settings: map[string]string{tableEngineSetting: "MyISAM"}})
	if err != nil {
		t.Fatalf("open through the DSN with table_engine=MyISAM: %v", err)
	}
	if got := x.Settings()[tableEngineSetting]; got != "MyISAM" {
		t.Errorf("external Settings()[%s] = %q", tableEngineSetting, got)
	}
	d := x.Dialect()
	if _, err := x.SQL().Exec("CREATE TABLE t_myisam (id " + d.AutoIncrementPK() + ")" + d.TableOptions()); err != nil {
		t.Fatal(err)
	}
	if got := tableEngine(x.SQL(), "t_myisam"); got != "MyISAM" {
		t.Errorf("t_myisam has ENGINE=%s, want MyISAM", got)
	}

	// An engine the server does not have: a clear error when the engine opens.
	_, err = c.open(t, engine.Config{DSN: dsn, Settings: map[string]string{tableEngineSetting: "TokuDB"}})
	if err == nil || !strings.Contains(err.Error(), `no usable storage engine "TokuDB"`) || !strings.Contains(err.Error(), "InnoDB") {
		t.Errorf("table_engine=TokuDB on MariaDB: %v", err)
	}
	t.Logf("table_engine=TokuDB: %v", err)
	if _, err := os.Stat(filepath.Join(e.dataDir, "enginebench", "t_myisam.MYD")); err != nil {
		t.Errorf("the MyISAM table's data file: %v", err)
	}
}
