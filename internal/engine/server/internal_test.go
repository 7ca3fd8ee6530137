package server

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRelevantLines(t *testing.T) {
	pg := []string{
		`2024-05-01 10:00:00.123 UTC [14412] LOG:  starting PostgreSQL 15.6`,
		`2024-05-01 10:00:00.124 UTC [14412] LOG:  invalid value for parameter "work_mem": "12XB"`,
		`2024-05-01 10:00:00.124 UTC [14412] HINT:  Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`,
		`2024-05-01 10:00:00.125 UTC [14412] FATAL:  configuration file "/d/postgresql.conf" contains errors`,
	}
	maria := []string{
		`2024-05-01 10:00:00 0 [Warning] Could not increase number of max_open_files to more than 20000 (request: 32184)`,
		`2024-05-01 10:00:00 0 [Note] Starting MariaDB 10.11.6-MariaDB`,
		`2024-05-01 10:00:00 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'foo=1'`,
		`2024-05-01 10:00:00 0 [ERROR] Aborting`,
	}
	cases := []struct {
		kind  Kind
		lines []string
		want  []string
	}{
		{Postgres, pg, []string{
			`LOG:  invalid value for parameter "work_mem": "12XB"`,
			`HINT:  Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`,
			`FATAL:  configuration file "/d/postgresql.conf" contains errors`,
		}},
		{MariaDB, maria, []string{`[ERROR] /usr/sbin/mariadbd: unknown variable 'foo=1'`, `[ERROR] Aborting`}},
		// Nothing stands out: the last lines.
		{Postgres, pg[:1], []string{`LOG:  starting PostgreSQL 15.6`}},
		{MariaDB, nil, nil},
	}
	for _, c := range cases {
		if got := relevantLines(c.kind, c.lines); !reflect.DeepEqual(got, c.want) {
			t.Errorf("relevantLines(%s, %q)\n = %q\nwant %q", c.kind, c.lines, got, c.want)
		}
	}
	many := make([]string, 30)
	for i := range many {
		many[i] = "[ERROR] x"
	}
	if got := relevantLines(MariaDB, many); len(got) != maxRelevant {
		t.Errorf("relevantLines of %d errors: %d lines, want %d", len(many), len(got), maxRelevant)
	}
}

func TestQuote(t *testing.T) {
	pg := map[string]string{"": "''", "1GB": "'1GB'", "it's": "'it''s'", `a\b`: `'a\\b'`}
	for in, want := range pg {
		if got := pgQuote(in); got != want {
			t.Errorf("pgQuote(%q) = %s, want %s", in, got, want)
		}
	}
	maria := map[string]string{"1G": "1G", "ha_rocksdb": "ha_rocksdb", "a#b": `"a#b"`, ` x`: `" x"`,
		`say "hi"`: `"say \"hi\""`, `C:\new`: `"C:\\new"`, "a;b": `"a;b"`}
	for in, want := range maria {
		if got := mariaQuote(in); got != want {
			t.Errorf("mariaQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSplitSettings(t *testing.T) {
	port, list, err := splitSettings(mariaFlavor{}, map[string]string{"port": "3307", "b_x": "1", "a-y": ""})
	if err != nil || port != 3307 || !reflect.DeepEqual(list, []setting{{"a-y", ""}, {"b_x", "1"}}) {
		t.Errorf("splitSettings = %d, %v, %v", port, list, err)
	}
	bad := []struct {
		k    flavor
		m    map[string]string
		want string
	}{
		{pgFlavor{}, map[string]string{"port": "70000"}, "not a TCP port"},
		{pgFlavor{}, map[string]string{"PORT": "x"}, "not a TCP port"},
		{pgFlavor{}, map[string]string{"Listen_Addresses": "*"}, "managed by enginebench"},
		{pgFlavor{}, map[string]string{"work_mem = 1; x": "1"}, "invalid server setting name"},
		{pgFlavor{}, map[string]string{"work_mem": "1\nlisten_addresses='*'"}, "one line"},
		{mariaFlavor{}, map[string]string{"bind_address": "::"}, "managed by enginebench"},
		{mariaFlavor{}, map[string]string{"loose-skip-networking": "0"}, "managed by enginebench"},
		{mariaFlavor{}, map[string]string{"innodb_page_size": "4k", "innodb-page-size": "8k"}, "are the same"},
	}
	for _, c := range bad {
		if _, _, err := splitSettings(c.k, c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("splitSettings(%s, %q) = %v, want an error with %q", c.k.kind(), c.m, err, c.want)
		}
	}
}

func TestMariaOptionNames(t *testing.T) {
	help := "mariadbd  Ver 10.11\n" +
		"  -a, --ansi          Use ANSI SQL syntax\n" +
		"  --innodb-buffer-pool-size=# \n" +
		"                      The size of the memory buffer\n" +
		"  --skip-name-resolve Don't resolve hostnames.\n" +
		"\n" +
		"Variables (--variable-name=value)\n" +
		"and boolean options {FALSE|TRUE}                             Value (after reading options)\n" +
		"------------------------------------------------------------ -------------\n" +
		"plugin-dir                                                   /usr/lib/mysql/plugin/\n"
	known := mariaOptionNames(help)
	for _, n := range []string{"ansi", "innodb-buffer-pool-size", "skip-name-resolve", "plugin-dir"} {
		if !known[n] {
			t.Errorf("option %s not found in %v", n, known)
		}
	}
	for name, want := range map[string]bool{
		"innodb-buffer-pool-size": true, "skip-ansi": true, "enable-ansi": true, "maximum-innodb-buffer-pool-size": true,
		"loose-anything": true, "innodb-buffer-pool": false, "ansii": false,
	} {
		if got := mariaKnown(known, name); got != want {
			t.Errorf("mariaKnown(%s) = %v, want %v", name, got, want)
		}
	}
	if got := mariaVariable(help, "plugin-dir"); got != "/usr/lib/mysql/plugin/" {
		t.Errorf("mariaVariable(plugin-dir) = %q", got)
	}
}

func TestInstallFailure(t *testing.T) {
	aborted := []string{
		"2026-11-22 21:36:33 0 [Note] Starting MariaDB",
		"2026-11-22 21:36:33 0 [Warning] io_uring_queue_init() failed",
		"2026-11-22 21:36:33 0 [ERROR] Aborting",
		"Installation of system tables failed!",
	}
	badValue := []string{
		"2026-11-22 21:36:33 0 [ERROR] mariadbd: Error while setting value 'lots' to 'innodb_buffer_pool_size'",
		"2026-11-22 21:36:33 0 [ERROR] Aborting",
	}
	crashed := []string{
		"Installing MariaDB/MySQL system tables in '/tmp/x/data' ...",
		"261123 22:01:34 [ERROR] /usr/sbin/mariadbd got signal 11 ;",
		"Sorry, we probably made a mistake, and this is a bug.",
	}
	if !unexplainedAbort(crashed) {
		t.Error("unexplainedAbort: a bootstrap that crashed on a signal is tried again")
	}
	if !unexplainedAbort(aborted) || unexplainedAbort(badValue) || unexplainedAbort([]string{"all fine"}) {
		t.Error("unexplainedAbort: want true only for an abort with no other error")
	}
	got := strings.Join(installFailure(aborted), "\n")
	if !strings.Contains(got, "io_uring_queue_init() failed") || !strings.Contains(got, "Aborting") || strings.Contains(got, "Installation of") {
		t.Errorf("installFailure = %q: want the lines before the abort and the abort", got)
	}
	if got := strings.Join(installFailure(badValue), "\n"); !strings.Contains(got, "innodb_buffer_pool_size") {
		t.Errorf("installFailure = %q: want the server's error", got)
	}
}

// TestCappedMalloc: under a cap a MariaDB server preloads the first jemalloc found, else keeps
// glibc malloc with two arenas and says how to install jemalloc; PostgreSQL keeps glibc.
func TestCappedMalloc(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libjemalloc.so.2")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "libjemalloc.so.2")
	for _, tc := range []struct {
		kind      Kind
		paths     []string
		preload   string
		allocator string
	}{
		{MariaDB, []string{missing, lib}, "LD_PRELOAD=" + lib, "jemalloc " + lib},
		{MariaDB, []string{missing}, "", "apt-get install libjemalloc2"},
		{Postgres, []string{lib}, "", "glibc malloc"},
	} {
		env, allocator := cappedMalloc(tc.kind, tc.paths)
		if !slices.Contains(env, "MALLOC_ARENA_MAX=2") {
			t.Errorf("%s %v: env %q lacks MALLOC_ARENA_MAX=2", tc.kind, tc.paths, env)
		}
		gotPreload := ""
		for _, e := range env {
			if strings.HasPrefix(e, "LD_PRELOAD=") {
				gotPreload = e
			}
		}
		if gotPreload != tc.preload || !strings.Contains(allocator, tc.allocator) {
			t.Errorf("%s %v: preload %q, allocator %q; want %q and %q", tc.kind, tc.paths, gotPreload, allocator, tc.preload, tc.allocator)
		}
	}
}

// A managed mongod's configuration file binds it to its private socket only, puts its
// database in the data directory, and writes each setting as a dotted YAML option; the options
// enginebench manages are refused.
func TestMongodConf(t *testing.T) {
	s := &Server{dataDir: "/d", sockPath: "/s/mongod.sock"}
	_, settings, err := splitSettings(mongodFlavor{}, map[string]string{
		"storage.wiredTiger.engineConfig.cacheSizeGB": "1", "storage.wiredTiger.collectionConfig.blockCompressor": "none"})
	if err != nil {
		t.Fatal(err)
	}
	got := mongodConf(s, settings)
	for _, want := range []string{`storage.dbPath: "/d/db"`, `net.bindIp: "/s/mongod.sock"`,
		"storage.wiredTiger.engineConfig.cacheSizeGB: 1\n", `storage.wiredTiger.collectionConfig.blockCompressor: "none"`} {
		if !strings.Contains(got, want) {
			t.Errorf("mongod.conf lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "port") || strings.Contains(got, "127.0.0.1") {
		t.Errorf("mongod.conf opens TCP:\n%s", got)
	}
	for _, name := range []string{"net.port", "storage.dbPath", "systemLog.path", "security.authorization", "replication.replSetName"} {
		if _, _, err := splitSettings(mongodFlavor{}, map[string]string{name: "x"}); err == nil || !strings.Contains(err.Error(), "managed by enginebench") {
			t.Errorf("setting %s: %v, want it refused", name, err)
		}
	}
}
