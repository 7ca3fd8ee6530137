package sqldb

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/testwait"
)

// pg17BinDir is where PostgreSQL 17 is installed beside Debian's default one.
const pg17BinDir = "/opt/postgresql-17/bin"

// counterCase is a server engine whose counters are tested, with caches small enough that a
// table of counterRows rows does not fit in them.
type counterCase struct {
	name     string
	c        serverCase
	settings map[string]string
	cacheKB  float64 // the cache a scan may find the table in: shared_buffers, the buffer pool, the block cache
	// compressible: the engine may compress the data files (MyRocks' SST files): the hex
	// digits of the rows' data hold half their bytes' worth.
	compressible bool
}

// counterCases are PostgreSQL (Debian's and, when installed, 17), InnoDB and MyRocks.
func counterCases(t *testing.T) []counterCase {
	cs := serverCases()
	pg := map[string]string{"shared_buffers": "16MB", "max_wal_size": "1GB"}
	out := []counterCase{
		{"postgres", cs[0], pg, 16 << 10, false},
	}
	if _, err := os.Stat(pg17BinDir + "/postgres"); err == nil {
		pg17 := maps.Clone(pg)
		pg17["bindir"] = pg17BinDir
		out = append(out, counterCase{"postgres17", cs[0], pg17, 16 << 10, false})
	} else {
		t.Logf("PostgreSQL 17 is not tested: %v", err)
	}
	return append(out,
		counterCase{"innodb", cs[1], map[string]string{"innodb_buffer_pool_size": "16M", "innodb_log_file_size": "256M"}, 16 << 10, false},
		counterCase{"myrocks", cs[2], map[string]string{"rocksdb_block_cache_size": "8M"}, 8 << 10, true},
	)
}

func (cc counterCase) open(t *testing.T) *serverEngine {
	t.Helper()
	cc.c.require(t)
	e, err := cc.c.open(t, engine.Config{Settings: cc.settings})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return e
}

func (e *serverEngine) counters(t *testing.T) engine.Counters {
	t.Helper()
	c, err := e.DB.(engine.ServerCounters).ServerCounters(context.Background())
	if err != nil {
		t.Fatalf("ServerCounters: %v", err)
	}
	return c
}

// counterRows is the rows of the table the counters are tested with, each with
// counterRowData bytes of data (hex digits of MD5s: each distinct, 4 bits of entropy a byte).
const (
	counterRows    = 200000
	counterRowData = 192
)

// fillCounterTable creates table ct with counterRows rows in one statement.
func (e *serverEngine) fillCounterTable(t *testing.T, postgres bool) {
	t.Helper()
	var md5s []string
	if postgres {
		for i := range counterRowData / 32 {
			md5s = append(md5s, fmt.Sprintf("md5((g + %d)::text)", i))
		}
		e.exec(t, "CREATE TABLE ct (id int PRIMARY KEY, pad text NOT NULL)")
		e.exec(t, fmt.Sprintf("INSERT INTO ct SELECT g, %s FROM generate_series(1, %d) g", strings.Join(md5s, " || "), counterRows))
		return
	}
	for i := range counterRowData / 32 {
		md5s = append(md5s, fmt.Sprintf("MD5(seq + %d)", i))
	}
	e.exec(t, "CREATE TABLE ct (id int PRIMARY KEY, pad varchar(200) NOT NULL)"+e.Dialect().TableOptions())
	e.exec(t, fmt.Sprintf("INSERT INTO ct SELECT seq, CONCAT(%s) FROM seq_1_to_%d", strings.Join(md5s, ", "), counterRows))
}

// flushCounterTable has the server write table ct's data to its files: a checkpoint
// (PostgreSQL), FLUSH TABLES ... FOR EXPORT (InnoDB), a memtable flush (MyRocks).
func (e *serverEngine) flushCounterTable(t *testing.T, name string) {
	t.Helper()
	switch {
	case strings.HasPrefix(name, "postgres"):
		e.exec(t, "CHECKPOINT")
	case name == "innodb":
		ctx := context.Background()
		conn, err := e.SQL().Conn(ctx) // FOR EXPORT holds until UNLOCK TABLES on the same session
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, q := range []string{"FLUSH TABLES ct FOR EXPORT", "UNLOCK TABLES"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	default:
		e.exec(t, "SET GLOBAL rocksdb_force_flush_memtable_now = ON")
	}
}

// grown is how much each counter of b grew from a.
func grown(a, b engine.Counters) map[string]float64 {
	d := map[string]float64{}
	for k, v := range b.Values {
		if was, ok := a.Values[k]; ok {
			d[k] = v - was
		}
	}
	return d
}

// waitCounters reads the counters until ok holds of their growth since from: PostgreSQL's
// backends publish their statistics about once a second, not at once.
func (e *serverEngine) waitCounters(t *testing.T, what string, from engine.Counters, ok func(map[string]float64) bool) map[string]float64 {
	t.Helper()
	var d map[string]float64
	testwait.Until(t, what, time.Minute, func() bool {
		d = grown(from, e.counters(t))
		return ok(d)
	})
	return d
}

// TestServerCountersMoveWithTheWork holds each server's counters against work of a known
// size: inserting counterRows rows writes at least their data to the WAL or redo log
// (neither is compressed by default) and, once the server flushes the table, to its data
// files (half of it where they may be compressed); scanning the table then, with a cache
// smaller than the table, reads at least the part of the table that is not in the cache.
func TestServerCountersMoveWithTheWork(t *testing.T) {
	for _, cc := range counterCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			e := cc.open(t)
			pg := strings.HasPrefix(cc.name, "postgres")
			start := e.counters(t)
			if len(start.Unread) > 0 && !(cc.name == "postgres" && len(start.Unread) == 1 && strings.Contains(start.Unread["pg_stat_io"], "pg_stat_bgwriter")) {
				t.Errorf("unread groups: %v", start.Unread)
			}
			e.fillCounterTable(t, pg)
			e.flushCounterTable(t, cc.name)
			dataKB := float64(counterRows*counterRowData) / 1024
			fileKB := dataKB
			if cc.compressible {
				fileKB /= 2
			}
			d := e.waitCounters(t, "the insert's counters", start, func(d map[string]float64) bool {
				return d[engine.CounterRowsWritten] >= counterRows && d[engine.CounterWriteKB] >= fileKB
			})
			if d[engine.CounterWALKB] < dataKB {
				t.Errorf("WAL KB grew by %.0f inserting %.0f KB of data", d[engine.CounterWALKB], dataKB)
			}
			before := e.counters(t)
			var n int64
			if err := e.SQL().QueryRowContext(context.Background(), "SELECT count(*) FROM ct WHERE pad <> ''").Scan(&n); err != nil || n != counterRows {
				t.Fatalf("scan: %d rows, %v", n, err)
			}
			coldKB := fileKB - cc.cacheKB
			d = e.waitCounters(t, "the scan's counters", before, func(d map[string]float64) bool {
				return d[engine.CounterRowsRead] >= counterRows
			})
			t.Logf("scan of %.0f KB of data: %v", dataKB, d)
			if d[engine.CounterReadKB] < coldKB {
				t.Errorf("read KB grew by %.0f scanning a table of at least %.0f KB with a cache of %.0f KB", d[engine.CounterReadKB], fileKB, cc.cacheKB)
			}
			if d[engine.CounterReads] <= 0 || d[engine.CounterLogicalReads] < d[engine.CounterReads] {
				t.Errorf("reads grew by %.0f, logical reads by %.0f: a read is also a logical read", d[engine.CounterReads], d[engine.CounterLogicalReads])
			}
		})
	}
}

// TestServerCountersTheUserMayNotRead: a user who may not read a counter group gets the
// other groups, and the unread one absent (not 0) with the server's reason. On PostgreSQL
// the group is the view of the data files' writes (pg_stat_io, before 16 pg_stat_bgwriter)
// revoked from PUBLIC; MariaDB's global status needs no privilege, so a user without PROCESS
// reads every counter, and only InnoDB's size (information_schema.INNODB_SYS_TABLESPACES) is
// refused, with the reason; MariaDB's ROCKSDB_* tables need no privilege either.
func TestServerCountersTheUserMayNotRead(t *testing.T) {
	for _, cc := range counterCases(t) {
		t.Run(cc.name, func(t *testing.T) {
			admin := cc.open(t)
			var dsn, group string
			switch db := admin.DB.(type) {
			case *postgresDB:
				group = "pg_stat_bgwriter"
				if db.versionNum >= 160000 {
					group = "pg_stat_io"
				}
				admin.exec(t, "CREATE ROLE eb_nopriv LOGIN")
				admin.exec(t, "GRANT ALL ON SCHEMA public TO eb_nopriv")
				admin.exec(t, "REVOKE SELECT ON "+group+" FROM PUBLIC")
				dsn = strings.Replace(db.srv.DSN(), "user=postgres", "user=eb_nopriv", 1)
			case *mysqlDB:
				admin.exec(t, "CREATE USER 'eb_nopriv'@'localhost' IDENTIFIED BY 'eb-nopriv-pw'")
				admin.exec(t, "GRANT ALL ON enginebench.* TO 'eb_nopriv'@'localhost'")
				admin.exec(t, "CREATE TABLE ct (id int PRIMARY KEY)"+admin.Dialect().TableOptions()) // a table to size
				dsn = strings.Replace(db.srv.DSN(), "root@", "eb_nopriv:eb-nopriv-pw@", 1)
			}
			user, err := cc.c.open(t, engine.Config{DSN: dsn})
			if err != nil {
				t.Fatalf("open as eb_nopriv: %v", err)
			}
			c := user.counters(t)
			if group == "" {
				if len(c.Unread) > 0 || len(c.Values) != len(admin.counters(t).Values) {
					t.Errorf("without PROCESS: values %v, unread %v; want every counter", c.Values, c.Unread)
				}
				_, err := user.DB.(engine.DatabaseSizer).DatabaseBytes(context.Background())
				if cc.name == "myrocks" {
					// MariaDB's ROCKSDB_* tables need no privilege: the size is the admin's.
					if err != nil || user.dbBytes(t) != admin.dbBytes(t) {
						t.Errorf("MyRocks size without PROCESS: %v; want the admin's %d", err, admin.dbBytes(t))
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), "PROCESS") {
					t.Errorf("DatabaseBytes without PROCESS: %v, want the privilege named", err)
				}
				return
			}
			if why := c.Unread[group]; !strings.Contains(why, "permission denied") {
				t.Errorf("unread %v, want %s's permission denied", c.Unread, group)
			}
			if v, ok := c.Values[engine.CounterWriteKB]; ok {
				t.Errorf("write KB %v from a group the user may not read", v)
			}
			if _, ok := c.Values[engine.CounterReads]; !ok {
				t.Errorf("values %v: the readable pg_stat_database is missing", c.Values)
			}
		})
	}
}
