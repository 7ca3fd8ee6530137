package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The version lines of the MySQL family's servers, as their --version prints them.
func TestParseServerVersion(t *testing.T) {
	for _, c := range []struct {
		line    string
		product Product
		version string
		from576 bool
	}{
		{"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)", ProductMariaDB, "10.11.19-MariaDB-0+deb12u1", true},
		{"mariadbd  Ver 11.4.2-MariaDB for Linux on x86_64 (MariaDB Server)", ProductMariaDB, "11.4.2-MariaDB", true},
		{"/usr/sbin/mysqld  Ver 10.3.39-MariaDB-0+deb10u1 for debian-linux-gnu on x86_64 (Debian 10)", ProductMariaDB, "10.3.39-MariaDB-0+deb10u1", true},
		{"/usr/sbin/mysqld  Ver 8.0.33 for Linux on x86_64 (MySQL Community Server - GPL)", ProductMySQL, "8.0.33", true},
		{"/opt/mysql-8.4/bin/mysqld  Ver 8.4.0 for Linux on x86_64 (MySQL Community Server - GPL)", ProductMySQL, "8.4.0", true},
		{"mysqld  Ver 5.7.44 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))", ProductMySQL, "5.7.44", true},
		{"mysqld  Ver 5.6.51 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))", ProductMySQL, "5.6.51", false},
		{"mysqld  Ver 8.0.32 for Linux on x86_64 (Source distribution)", ProductMySQL, "8.0.32", true},
		{"/usr/sbin/mysqld  Ver 8.0.33-25 for Linux on x86_64 (Percona Server (GPL), Release '25', Revision '60c9e2c5')", ProductPercona, "8.0.33-25", true},
		{"mysqld  Ver 5.7.44-48 for Linux on x86_64 (Percona Server (GPL), Release 48, Revision 497f936a373)", ProductPercona, "5.7.44-48", true},
	} {
		v, err := parseServerVersion(c.line + "\n")
		if err != nil || v.product != c.product || v.version != c.version || v.atLeast(5, 7, 6) != c.from576 {
			t.Errorf("%q: %+v (%v), want %s %s (5.7.6 or later: %v)", c.line, v, err, c.product, c.version, c.from576)
		}
	}
	for _, line := range []string{"postgres (PostgreSQL) 15.18", "", "mongod version v7.0.2"} {
		if v, err := parseServerVersion(line); err == nil {
			t.Errorf("%q: %+v, want an error", line, v)
		}
	}
}

// stubInstall makes a basedir whose sub/name answers --version with version and --help
// with the file help, as a server binary does.
func stubInstall(t *testing.T, sub, name, version, help string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in\n" +
		"--version) echo '" + version + "'; exit 0;;\n"
	if help != "" {
		script += "--help) cat '" + help + "'; exit 0;;\n"
	}
	script += "esac; done\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, sub, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

const mysql80Version = "/opt/mysql/bin/mysqld  Ver 8.0.33 for Linux on x86_64 (MySQL Community Server - GPL)"

const mysql56Version = "mysqld  Ver 5.6.51 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))"

// addScript writes an executable dir/sub/name that starts with the line first.
func addScript(t *testing.T, dir, sub, name, first string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, sub, name)
	if err := os.WriteFile(p, []byte(first+"\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A basedir's mysqld is MySQL's, Percona's or MariaDB's by its --version, each run by its
// flavor: MySQL from 5.7.6 initialised by mysqld itself, 5.6 by its mysql_install_db (with the
// interpreter it names); MySQL before 5.6 or 5.7's development releases, a 5.6 without
// mysql_install_db or its perl, another program, or no server are one-line errors.
func TestBinariesInBaseDir(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		perl = "/bin/sh" // the script is not run: only its interpreter is looked for
	}
	for _, c := range []struct {
		sub, name, version string
		product            Product
		script             string // mysql_install_db in scripts/ (5.6), "" for none
	}{
		{"bin", "mysqld", mysql80Version, ProductMySQL, ""},
		{"sbin", "mysqld", "mysqld  Ver 8.0.33-25 for Linux on x86_64 (Percona Server (GPL), Release '25', Revision '60c9e2c5')", ProductPercona, ""},
		{"bin", "mysqld", mysql56Version, ProductMySQL, "#!" + perl},
		{"bin", "mysqld", mysql56Version, ProductMySQL, "#!/usr/bin/env sh"},
	} {
		dir := stubInstall(t, c.sub, c.name, c.version, "")
		init := filepath.Join(dir, c.sub, c.name)
		if c.script != "" {
			init = addScript(t, dir, "scripts", "mysql_install_db", c.script)
		}
		k, bins, err := resolveFlavor(mariaFlavor{}, dir)
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		if _, isMySQL := k.(mysqlFlavor); !isMySQL || bins.product != c.product || bins.init != resolveExe(init) || bins.base != dir ||
			bins.installsWithScript() != (c.script != "") {
			t.Errorf("%s: flavor %T, binaries %+v", c.version, k, bins)
		}
	}
	for _, c := range []struct{ sub, name, version, script, want string }{
		{"bin", "mysqld", "mysqld  Ver 5.5.62 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))", "#!/bin/sh",
			"a managed MySQL needs 5.6 (mysql_install_db) or 5.7.6 and later"},
		{"bin", "mysqld", "mysqld  Ver 5.7.5-m15 for linux-glibc2.5 on x86_64 (MySQL Community Server (GPL))", "#!/bin/sh",
			"a development release of 5.7: a managed MySQL 5.7 needs 5.7.6 or later"},
		{"bin", "mysqld", mysql56Version, "", "has MySQL 5.6.51's server but no mysql_install_db (in its scripts/ or bin/)"},
		{"bin", "mysqld", mysql56Version, "#!/nonexistent/bin/perl -w", "scripts/mysql_install_db needs /nonexistent/bin/perl (#!/nonexistent/bin/perl -w), which is not installed"},
		{"bin", "mysqld", mysql56Version, "#!/usr/bin/env nonexistent-perl", "needs nonexistent-perl (#!/usr/bin/env nonexistent-perl), which is not on PATH"},
		{"bin", "mysqld", "postgres (PostgreSQL) 15.18", "", `is not a MySQL or MariaDB server (--version: "postgres (PostgreSQL) 15.18")`},
		{"bin", "postgres", "postgres (PostgreSQL) 15.18", "", "holds no MySQL or MariaDB server (mariadbd or mysqld in its sbin/ or bin/)"},
		{"sbin", "mariadbd", "mariadbd  Ver 11.4.2-MariaDB for Linux on x86_64 (MariaDB Server)", "", "has MariaDB's server but no mariadb-install-db"},
	} {
		dir := stubInstall(t, c.sub, c.name, c.version, "")
		if c.script != "" {
			addScript(t, dir, "scripts", "mysql_install_db", c.script)
		}
		err := CheckBinDir(MariaDB, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mariadb: setting basedir: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s (%q): %v, want one line with %q", c.version, c.script, err, c.want)
		}
	}
}

// The initialisation of a MySQL server: mysqld --initialize-insecure with its option file
// first, the basedir, the data directory and the user; for 5.6, mysql_install_db with the
// same and --force, and --keep-my-cnf from 5.6.20 (an older one takes no such option).
func TestMySQLInitArgs(t *testing.T) {
	got := mysqlInitArgs("/tmp/eb-my-1/init.cnf", "/opt/mysql-8.0", "/data/c1", "mysql")
	want := []string{"--defaults-file=/tmp/eb-my-1/init.cnf", "--initialize-insecure", "--basedir=/opt/mysql-8.0", "--datadir=/data/c1", "--user=mysql"}
	if !slices.Equal(got, want) {
		t.Errorf("mysqlInitArgs = %q, want %q", got, want)
	}
	for _, c := range []struct {
		version string
		want    []string
	}{
		{mysql56Version, []string{"--defaults-file=/tmp/eb-my-1/init.cnf", "--basedir=/opt/mysql-5.6.51", "--datadir=/data/c1", "--user=mysql", "--force", "--keep-my-cnf"}},
		{"mysqld  Ver 5.6.19 for linux-glibc2.5 on x86_64 (MySQL Community Server (GPL))",
			[]string{"--defaults-file=/tmp/eb-my-1/init.cnf", "--basedir=/opt/mysql-5.6.51", "--datadir=/data/c1", "--user=mysql", "--force"}},
	} {
		v, err := parseServerVersion(c.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := mysqlInstallDBArgs("/tmp/eb-my-1/init.cnf", "/opt/mysql-5.6.51", "/data/c1", "mysql", v); !slices.Equal(got, c.want) {
			t.Errorf("mysqlInstallDBArgs(%s) = %q, want %q", v.version, got, c.want)
		}
	}
}

// A MySQL server's option file: section [mysqld], its basedir, the managed paths, the socket
// only, no X Protocol, file import and export off where the version has the value NULL
// (5.6.34 on), and the settings after enginebench's own (a later line wins).
func TestMySQLOptions(t *testing.T) {
	s := &Server{dataDir: "/data/c1", sockPath: "/tmp/eb-my-1/mysqld.sock"}
	for _, c := range []struct {
		base, version string
		settings      []setting
		fileOff       bool
	}{
		{"/opt/mysql-8.0", "8.0.36", []setting{{"innodb_redo_log_capacity", "2G"}, {"innodb_dedicated_server", "ON"}}, true},
		{"/opt/mysql-5.7", "5.7.44", []setting{{"innodb_log_file_size", "128M"}, {"innodb_log_files_in_group", "15"}}, true},
		{"/opt/mysql-5.6.51", "5.6.51", []setting{{"innodb_file_format", "Barracuda"}, {"innodb_checksum_algorithm", "crc32"}}, true},
		{"/opt/mysql-5.6.33", "5.6.33", []setting{{"innodb_file_format", "Barracuda"}, {"innodb_log_files_in_group", "15"}}, false},
	} {
		v, err := parseServerVersion("mysqld  Ver " + c.version + " for Linux on x86_64 (MySQL Community Server - GPL)")
		if err != nil {
			t.Fatal(err)
		}
		cnf := mysqlOptions(s, c.base, v, c.settings)
		lines := splitLines(cnf)
		for _, want := range []string{"[mysqld]", "basedir=" + c.base, "datadir=/data/c1", "socket=/tmp/eb-my-1/mysqld.sock",
			"tmpdir=/tmp/eb-my-1", "skip-networking", "loose-mysqlx=OFF",
			c.settings[0].name + "=" + c.settings[0].value, c.settings[1].name + "=" + c.settings[1].value} {
			if !slices.Contains(lines, want) {
				t.Errorf("%s: no line %q in\n%s", c.base, want, cnf)
			}
		}
		fileOff := slices.Index(lines, "secure-file-priv=NULL")
		if (fileOff >= 0) != c.fileOff || strings.Contains(cnf, "[mariadbd]") || fileOff > slices.Index(lines, c.settings[0].name+"="+c.settings[0].value) {
			t.Errorf("%s: secure-file-priv=NULL at line %d (want it: %v), MariaDB's section, or a setting before enginebench's own:\n%s", c.base, fileOff, c.fileOff, cnf)
		}
	}
	if cnf := mariaOptions(s, mariaSection, "", nil); !strings.Contains(cnf, "\n[mariadbd]\n") || strings.Contains(cnf, "basedir=") {
		t.Errorf("MariaDB's option file without a basedir:\n%s", cnf)
	}
}

// The settings check of a MySQL server: names from its --verbose --help, a name MySQL 8.0
// does not know (the query cache) refused naming it; a TCP port refused.
func TestMySQLCheckSettings(t *testing.T) {
	help, err := filepath.Abs(filepath.Join("testdata", "mysqld-8.0-help.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(help)
	if err != nil {
		t.Fatal(err)
	}
	known := mariaOptionNames(string(text))
	settings := []setting{{"innodb_redo_log_capacity", "2G"}, {"innodb-dedicated-server", "ON"}, {"query_cache_type", "0"},
		{"loose_innodb_log_writer_threads", "OFF"}, {"skip-log-bin", ""}, {"innodb_undo_tablespaces", "32"}}
	if got := unknownOptions(known, settings); !slices.Equal(got, []string{"query_cache_type", "innodb_undo_tablespaces"}) {
		t.Errorf("unknown options %q, want query_cache_type and innodb_undo_tablespaces", got)
	}
	dir := stubInstall(t, "bin", "mysqld", mysql80Version, help)
	err = CheckSettings(MariaDB, dir, map[string]string{"innodb_redo_log_capacity": "2G", "query_cache_type": "0"})
	if err == nil || err.Error() != `mysql: unknown server setting "query_cache_type"` {
		t.Errorf("CheckSettings = %v, want query_cache_type refused", err)
	}
	for name, want := range map[string]string{"port": "a managed MySQL listens on its private socket only", "mysqlx_port": "managed by enginebench"} {
		err = CheckSettings(MariaDB, dir, map[string]string{name: "33061"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckSettings(%s) = %v, want %q", name, err, want)
		}
	}
}
