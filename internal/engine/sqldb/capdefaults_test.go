package sqldb

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// testCaps are the memory caps at which the tests try each engine's CapDefaults.
var testCaps = []int64{256 << 20, 1 << 30, 4 << 30}

// checkCapFits fails the test unless mem, the bytes an engine's caches and buffers take at
// their largest under a cap of capBytes, uses at least a quarter of the cap and leaves at least
// a quarter to the rest: the engine's own memory, the harness's or the server's, and the page
// cache.
func checkCapFits(t *testing.T, name string, capBytes, mem int64) {
	t.Helper()
	if mem < capBytes/4 || mem > capBytes*3/4 {
		t.Errorf("%s under a cap of %d MiB: caches and buffers of %d MiB, want between a quarter and three quarters of the cap",
			name, capBytes>>20, mem>>20)
	}
}

// mariaBytes is a MariaDB size in bytes.
func mariaBytes(t *testing.T, v string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(mariaNormal(v), 10, 64)
	if err != nil {
		t.Fatalf("MariaDB size %q: %v", v, err)
	}
	return n
}

// pgBytes is a PostgreSQL size in bytes.
func pgBytes(t *testing.T, v string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(pgNormal(v, ""), 10, 64)
	if err != nil {
		t.Fatalf("PostgreSQL size %q: %v", v, err)
	}
	return n
}

// cfOption matches an integer option of a RocksDB option string, with an optional size suffix.
var cfOption = regexp.MustCompile(`(?:^|;)(write_buffer_size|max_write_buffer_number)=([0-9]+)([kmg]?)\b`)

// rocksMemtables returns the bytes of the memtables of a RocksDB column family option string:
// max_write_buffer_number of write_buffer_size.
func rocksMemtables(t *testing.T, opts string) int64 {
	t.Helper()
	v := map[string]int64{}
	for _, m := range cfOption.FindAllStringSubmatch(opts, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		v[m[1]] = n << map[string]int{"": 0, "k": 10, "m": 20, "g": 30}[m[3]]
	}
	if len(v) != 2 {
		t.Fatalf("memtables of %q: found %v", opts, v)
	}
	return v["write_buffer_size"] * v["max_write_buffer_number"]
}

// concurrentIndexBuilds is how many index builds run at once in the iobound Insert Benchmark
// (one per table), each with its own merge buffers.
const concurrentIndexBuilds = 4

// serverMemory returns the bytes the caches and buffers of a server engine's settings m take
// at their largest: those its CapDefaults sizes.
func serverMemory(t *testing.T, name string, m map[string]string) int64 {
	t.Helper()
	switch name {
	case "postgres":
		sb := pgBytes(t, m["shared_buffers"])
		workers, err := strconv.ParseInt(m["autovacuum_max_workers"], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		walBuffers := min(sb/32, 16<<20) // wal_buffers=-1
		return sb + walBuffers + workers*pgBytes(t, m["autovacuum_work_mem"]) +
			pgBytes(t, m["maintenance_work_mem"]) + pgBytes(t, m["work_mem"])
	case "innodb":
		return mariaBytes(t, m["innodb_buffer_pool_size"]) + mariaBytes(t, m["innodb_log_buffer_size"])
	case "myrocks":
		return mariaBytes(t, m["rocksdb_block_cache_size"]) + rocksMemtables(t, m["rocksdb_default_cf_options"]) +
			concurrentIndexBuilds*(mariaBytes(t, m["rocksdb_merge_buf_size"])+mariaBytes(t, m["rocksdb_merge_combine_read_size"])) +
			mariaBytes(t, m["innodb_buffer_pool_size"]) + mariaBytes(t, m["innodb_log_buffer_size"])
	}
	t.Fatalf("no memory of engine %s", name)
	return 0
}

// TestServerCapDefaults: at each test cap, a server engine's CapDefaults pass the registry's
// check (the server's own validation of the values) and its caches and buffers fit in the cap;
// at a cap of 16 MiB, where the formulas' floors apply, they still pass the check.
func TestServerCapDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			reg, err := engine.NewRegistry(c.driver)
			if err != nil {
				t.Fatal(err)
			}
			for _, capBytes := range testCaps {
				cd := c.driver.CapDefaults(capBytes)
				if err := reg.Check(engine.Config{Engine: c.driver.Name, Settings: cd}); err != nil {
					t.Errorf("cap of %d MiB: %v", capBytes>>20, err)
				}
				checkCapFits(t, c.driver.Name, capBytes, serverMemory(t, c.driver.Name, engine.MergeSettings(c.driver.Settings, cd)))
			}
			// Below every formula's floor the values are still valid.
			if err := reg.Check(engine.Config{Engine: c.driver.Name, Settings: c.driver.CapDefaults(16 << 20)}); err != nil {
				t.Errorf("cap of 16 MiB: %v", err)
			}
		})
	}
}

// TestServerStartsUnderCapDefaults starts each server engine with its CapDefaults at a cap of
// 256 MiB and checks that every one of them is in force, as the server shows its variables.
func TestServerStartsUnderCapDefaults(t *testing.T) {
	t.Parallel()
	for _, c := range serverCases() {
		t.Run(c.driver.Name, func(t *testing.T) {
			c.require(t)
			cd := c.driver.CapDefaults(256 << 20)
			e, err := c.open(t, engine.Config{Settings: cd})
			if err != nil {
				t.Fatalf("open with CapDefaults %v: %v", cd, err)
			}
			want := forInstalled(t, c, engine.MergeSettings(c.driver.Settings, cd), cd)
			if got := e.Settings(); !maps.Equal(got, want) {
				t.Errorf("Settings() = %v, want %v", got, want)
			}
			for name, v := range cd {
				checkVariable(t, c, e.SQL(), name, v)
			}
			if c.driver.Name == "myrocks" {
				checkRocksOptions(t, e.dataDir)
			}
			// The server's own memory now (its caches are still empty) and its caches at
			// their largest leave the page cache at least an eighth of the cap.
			const capBytes = 256 << 20
			base := anonRSS(t, e.server().ServerPID())
			if mem := serverMemory(t, c.driver.Name, want); base+mem > capBytes*7/8 {
				t.Errorf("server memory %d MiB and caches %d MiB leave less than an eighth of a cap of %d MiB",
					base>>20, mem>>20, capBytes>>20)
			}
		})
	}
}

// checkRocksOptions checks that MyRocks' RocksDB took the direct IO and memtable settings of a
// 256 MiB cap, as the OPTIONS file it writes in the server's data directory records them.
func checkRocksOptions(t *testing.T, dataDir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dataDir, "#rocksdb", "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s/#rocksdb (%v)", dataDir, err)
	}
	opts, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"use_direct_reads=true", "use_direct_io_for_flush_and_compaction=true",
		"compaction_readahead_size=1048576", "write_buffer_size=8388608", "max_write_buffer_number=4",
		"index_type=kTwoLevelIndexSearch", "partition_filters=true", "metadata_block_size=4096"} {
		if !strings.Contains(string(opts), "\n  "+want+"\n") {
			t.Errorf("RocksDB's OPTIONS lacks %s", want)
		}
	}
}

// anonRSS returns the anonymous resident memory (RssAnon) of process pid and its children, in
// bytes.
func anonRSS(t *testing.T, pid int) int64 {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, p := range procs {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue // the process has gone
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		self, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if len(f) < 2 || (self != pid && f[1] != strconv.Itoa(pid)) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(p), "status"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			if kb, ok := strings.CutPrefix(l, "RssAnon:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
				total += n << 10
			}
		}
	}
	if total == 0 {
		t.Fatalf("no resident memory of process %d", pid)
	}
	t.Logf("anonymous resident memory of process %d and its children: %d MiB", pid, total>>20)
	return total
}

// TestSQLiteCapDefaults: at each test cap, sqlite's CapDefaults pass the registry's check and
// the page caches of 16 connections take a quarter of the cap; with those of 256 MiB, every
// connection's page cache is 4 MiB.
func TestSQLiteCapDefaults(t *testing.T) {
	d := SQLiteDriver()
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, capBytes := range testCaps {
		cd := d.CapDefaults(capBytes)
		if err := reg.Check(engine.Config{Engine: d.Name, Settings: cd}); err != nil {
			t.Errorf("cap of %d MiB: %v", capBytes>>20, err)
		}
		mb, err := strconv.ParseInt(engine.MergeSettings(d.Settings, cd)[sqliteCacheMB], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		checkCapFits(t, d.Name, capBytes, sqliteCapConns*mb<<20)
	}
	cd := d.CapDefaults(256 << 20)
	db := openSQLiteTest(t, cd)
	if got := db.Settings()[sqliteCacheMB]; got != "4" || cd[sqliteCacheMB] != "4" {
		t.Errorf("cache_mb: setting %q, in force %q, want 4", cd[sqliteCacheMB], got)
	}
	conn, err := db.SQL().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := pragma(t, conn, "cache_size"); got != "-4096" {
		t.Errorf("PRAGMA cache_size = %s, want -4096 (KiB)", got)
	}
}
