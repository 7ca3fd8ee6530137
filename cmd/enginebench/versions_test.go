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
			dir := t.TempDir()
			args := []string{"run", "--scale", "tiny", "--engines", "postgres", "--set", "postgres.bindir=" + c.dir, "--out", dir + "/r", "--data-dir", dir + "/d"}
			if c.set != "" {
				args = append(args, "--set", c.set)
			}
			code, _, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q: want %d and one line with %q", code, stderr, exitUsage, c.want)
			}
			if _, err := os.Stat(dir + "/r"); err == nil {
				t.Error("a results directory for bad input")
			}
		})
	}
}
