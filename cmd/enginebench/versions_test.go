package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/result"
)

// pg17BinDir is where scripts/install-postgres.sh installs the second PostgreSQL version.
const pg17BinDir = "/opt/postgresql-17/bin"

// requirePG17 skips the test (fails it with CI=true, which installs it) without PostgreSQL 17.
func requirePG17(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(pg17BinDir, "postgres")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL 17 is not installed (scripts/install-postgres.sh): %v", err)
		}
		t.Skipf("PostgreSQL 17 is not installed (scripts/install-postgres.sh): %v", err)
	}
}

// TestPostgresVersionsSideBySide runs configs/postgres-versions.yaml: PostgreSQL 15 and 17 in
// one run, each a managed server from its bindir that reports its own version, with the
// published settings of its version (vacuum_buffer_usage_limit from 16 on), and run.json
// records each one's binary, checksum and build options; the same from the command line
// (--engines NAME=ENGINE, --set NAME.bindir).
func TestPostgresVersionsSideBySide(t *testing.T) {
	integration(t, "starts two servers")
	requirePG17(t)
	out := filepath.Join(t.TempDir(), "results")
	runOK(t, "run", "--config", filepath.Join("..", "..", "configs", "postgres-versions.yaml"), "--rows", "1000", "--steps", "l.i0,l.x",
		"--no-calibrate", "--out", out, "--data-dir", serverDataDir(t))
	r := loadRun(t, out)
	if len(r.Configs) != 2 {
		t.Fatalf("%d configurations, want pg15 and pg17", len(r.Configs))
	}
	for i, want := range []struct{ name, version, bindir string }{
		{"pg15", "15.", "/usr/lib/postgresql/15/bin"},
		{"pg17", "17.", pg17BinDir},
	} {
		c := r.Configs[i]
		if c.Name != want.name || c.Status != result.StatusOK || !strings.HasPrefix(c.Version, want.version) {
			t.Errorf("configuration %d: %s %s (%s), version %q; want %s of version %s*", i, c.Name, c.Status, c.Error, c.Version, want.name, want.version)
		}
		if c.Settings["bindir"] != want.bindir || c.Settings["shared_buffers"] == "" {
			t.Errorf("%s: settings bindir %q, shared_buffers %q", c.Name, c.Settings["bindir"], c.Settings["shared_buffers"])
		}
		if b := c.Build; !strings.HasPrefix(b[server.BuildBinary], filepath.Dir(want.bindir)) || len(b[server.BuildSHA256]) != 64 || b[server.BuildConfigure] == "" ||
			b[server.BuildDebugSymbols] == "" || b[server.BuildFramePointers] == "" {
			t.Errorf("%s: build %v, want the binary under %s with its sha256 and configure options", c.Name, b, filepath.Dir(want.bindir))
		}
	}
	if _, on15 := r.Configs[0].Settings["vacuum_buffer_usage_limit"]; on15 || r.Configs[1].Settings["vacuum_buffer_usage_limit"] != "256MB" {
		t.Errorf("vacuum_buffer_usage_limit: 15 %q, 17 %q; want it on 17 only, as the reference's pg17 file has it",
			r.Configs[0].Settings["vacuum_buffer_usage_limit"], r.Configs[1].Settings["vacuum_buffer_usage_limit"])
	}
	if r.Configs[0].Build[server.BuildSHA256] == r.Configs[1].Build[server.BuildSHA256] {
		t.Error("both configurations ran the same binary")
	}
	flags := filepath.Join(t.TempDir(), "flags")
	runOK(t, "run", "--scale", "tiny", "--engines", "pg15=postgres,pg17=postgres", "--set", "pg17.bindir="+pg17BinDir, "--rows", "1000",
		"--steps", "l.i0", "--no-calibrate", "--out", flags, "--data-dir", serverDataDir(t))
	if r := loadRun(t, flags); len(r.Configs) != 2 || !strings.HasPrefix(r.Configs[0].Version, "15.") || !strings.HasPrefix(r.Configs[1].Version, "17.") {
		t.Errorf("--engines pg15=postgres,pg17=postgres: %d configurations %+v", len(r.Configs), r.Configs)
	}
}

// TestBinDirBadInput: a bindir that is not a directory, one without a PostgreSQL server, one
// whose postgres is another program, one of a version older or newer than the published
// settings, and a setting that the bindir's version does not know (naming the version) are
// one-line errors with exit status 2 before any work.
func TestBinDirBadInput(t *testing.T) {
	empty := t.TempDir()
	// Programs that say they are another server, or PostgreSQL versions the published settings
	// were not made for (they are never started: the run is refused before).
	say := func(version string) string {
		dir := t.TempDir()
		for _, name := range []string{"postgres", "initdb"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho '"+version+"'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	other := say("mysqld  Ver 8.0.33")
	for _, c := range []struct{ name, dir, set, want string }{
		{"missing", filepath.Join(empty, "nope"), "", "is not a directory"},
		{"no server", empty, "", "holds no PostgreSQL server (postgres and initdb)"},
		{"another program", other, "", `is not PostgreSQL's server (postgres --version: "mysqld  Ver 8.0.33")`},
		{"too old", say("postgres (PostgreSQL) 9.6.24"), "", "PostgreSQL 9.6.24: the published settings are for PostgreSQL 10 to 18"},
		{"too new", say("postgres (PostgreSQL) 19.1"), "", "PostgreSQL 19.1: the published settings are for PostgreSQL 10 to 18"},
		// vacuum_defer_cleanup_age is gone from PostgreSQL 16 on.
		{"a setting the version does not know", pg17BinDir, "postgres.vacuum_defer_cleanup_age=0",
			`postgres 17.11 (bindir=` + pg17BinDir + `): postgres: unknown server setting "vacuum_defer_cleanup_age"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.dir == pg17BinDir {
				requirePG17(t)
			}
			badInstallation(t, "postgres", "bindir", c.dir, c.set, c.want)
		})
	}
}

// TestMariaDBBaseDir runs the innodb engine from Debian's MariaDB named as an installation
// (basedir=/usr: /usr/sbin/mariadbd, /usr/bin/mariadb-install-db): the managed server starts
// from it, reports its version, and run.json records its binary and product.
func TestMariaDBBaseDir(t *testing.T) {
	integration(t, "starts a server")
	if err := server.CheckBinDir(server.MariaDB, "/usr"); err != nil {
		t.Skipf("no MariaDB in /usr: %v", err)
	}
	out := filepath.Join(t.TempDir(), "results")
	runOK(t, "run", "--engines", "innodb", "--set", "innodb.basedir=/usr", "--set", "innodb.innodb_buffer_pool_size=128M",
		"--set", "innodb.innodb_log_file_size=256M", "--rows", "1000", "--steps", "l.i0", "--no-calibrate", "--out", out, "--data-dir", serverDataDir(t))
	r := loadRun(t, out)
	if len(r.Configs) != 1 {
		t.Fatalf("%d configurations, want 1", len(r.Configs))
	}
	c := r.Configs[0]
	if c.Status != result.StatusOK || !strings.HasSuffix(c.Version, "-MariaDB") || c.Settings["basedir"] != "/usr" {
		t.Errorf("%s %s (%s): version %q, basedir %q; want a MariaDB from /usr", c.Name, c.Status, c.Error, c.Version, c.Settings["basedir"])
	}
	if _, ok := c.Settings["innodb_redo_log_capacity"]; ok {
		t.Errorf("a MySQL-only default on MariaDB: %v", c.Settings)
	}
	if b := c.Build; b[server.BuildBinary] != "/usr/sbin/mariadbd" || len(b[server.BuildSHA256]) != 64 || b[server.BuildProduct] != string(server.ProductMariaDB) {
		t.Errorf("build %v, want /usr/sbin/mariadbd with its sha256, product MariaDB", b)
	}
}

// TestBaseDirBadInput: for innodb and myrocks, a basedir without a MySQL-family server, one
// whose mysqld is another program, a setting that a MySQL 8.0 does not know, and MyRocks on a
// MySQL are one-line errors with exit status 2 before any work.
func TestBaseDirBadInput(t *testing.T) {
	stub := func(version string) string {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		help, err := filepath.Abs(filepath.Join("..", "..", "internal", "engine", "server", "testdata", "mysqld-8.0-help.txt"))
		if err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --version) echo '" + version + "'; exit 0;; --help) cat '" + help + "'; exit 0;; esac; done\nexit 1\n"
		if err := os.WriteFile(filepath.Join(dir, "bin", "mysqld"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	mysql80 := stub("/opt/mysql/bin/mysqld  Ver 8.0.33 for Linux on x86_64 (MySQL Community Server - GPL)")
	for _, c := range []struct{ name, engine, dir, set, want string }{
		{"no server", "innodb", t.TempDir(), "", "holds no MySQL or MariaDB server (mariadbd or mysqld in its sbin/ or bin/)"},
		{"another program", "innodb", stub("postgres (PostgreSQL) 15.18"), "", `is not a MySQL or MariaDB server (--version: "postgres (PostgreSQL) 15.18")`},
		{"a setting MySQL 8.0 does not know", "innodb", mysql80, "innodb.query_cache_type=1",
			"innodb MySQL 8.0.33 (basedir=" + mysql80 + "): mysql: unknown server setting \"query_cache_type\""},
		{"MyRocks on MySQL", "myrocks", mysql80, "", "MyRocks on MySQL (Facebook's MySQL, built in; Percona Server, the plugin ha_rocksdb) is not run managed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			badInstallation(t, c.engine, "basedir", c.dir, c.set, c.want)
		})
	}
}

// badInstallation runs engine with its installation setting (bindir, basedir) at dir, and the
// --set set when given, and checks that it is refused before any work: exit status 2, one line
// with want, no results directory.
func badInstallation(t *testing.T, engine, setting, dir, set, want string) {
	t.Helper()
	tmp := t.TempDir()
	args := []string{"run", "--scale", "tiny", "--engines", engine, "--set", engine + "." + setting + "=" + dir, "--out", tmp + "/r", "--data-dir", tmp + "/d"}
	if set != "" {
		args = append(args, "--set", set)
	}
	code, _, stderr := runCLI(t, args...)
	if code != exitUsage || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want %d and one line with %q", code, stderr, exitUsage, want)
	}
	if _, err := os.Stat(tmp + "/r"); err == nil {
		t.Error("a results directory for bad input")
	}
}
