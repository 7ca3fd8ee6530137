package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/result"
)

// TestDocBadInput: a document engine's DSN that does not parse or reaches no server, and a
// configuration asking FerretDB for what it does not do, are one-line errors with exit status 2
// before any work; the DSN's password is never printed.
func TestDocBadInput(t *testing.T) {
	const pw = "m0ngosecret"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"DSN that does not parse", []string{"--engines", "mongodb", "--dsn", "mongodb://u:" + pw + "@[::1"}, "does not parse as a mongodb:// URI"},
		{"DSN of another scheme", []string{"--engines", "mongodb", "--dsn", "postgres://u:" + pw + "@h/db"}, "must be a mongodb:// or mongodb+srv:// URI"},
		{"DSN that reaches no server", []string{"--engines", "mongodb", "--dsn", "mongodb://u:" + pw + "@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300"},
			"mongodb: ping the server"},
		{"transactions on FerretDB", []string{"--engines", "ferretdb", "--set", "ferretdb.transactions=true"}, "multi-document transactions (it has none)"},
		{"a write concern FerretDB ignores", []string{"--engines", "ferretdb", "--set", "ferretdb.write_concern=majority"}, "ignores them"},
		{"hints on FerretDB", []string{"--engines", "ferretdb", "--set", "ferretdb.hints=send"}, "index hints (it ignores them"},
		{"shards on a managed FerretDB", []string{"--engines", "ferretdb", "--clients", "2", "--shard", "0/2", "--shard-run", "r"},
			"a managed server is one process's own"},
		{"LinkBench's requests sharded on FerretDB", []string{"linkbench", "--engines", "ferretdb", "--dsn", "mongodb://u:" + pw + "@127.0.0.1:1/",
			"--loaders", "2", "--requesters", "2", "--shard", "1/2", "--shard-run", "r"}, "engine ferretdb loses concurrent updates of one document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--scale", "tiny", "--out", dir + "/r"}, c.args...)
			if c.args[0] == "linkbench" { // the workload after run
				args = append([]string{"run", "linkbench", "--scale", "tiny", "--out", dir + "/r"}, c.args[1:]...)
			}
			if !strings.Contains(strings.Join(c.args, " "), "--dsn") {
				args = append(args, "--data-dir", dir+"/d")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q: want %d and one line with %q", code, stderr, exitUsage, c.want)
			}
			if strings.Contains(stdout+stderr, pw) {
				t.Errorf("the password is printed:\n%s%s", stdout, stderr)
			}
		})
	}
}

// collectionsOn returns the collections of the benchmark database of the existing document
// server dsn.
func collectionsOn(t *testing.T, eng, dsn string) []string {
	t.Helper()
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: eng, Engine: eng, DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	names, err := e.(doc.DB).Collections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// ferretServer is an existing FerretDB on SQLite, started for a test as a user's own.
func ferretServer() existingServer {
	return existingServer{"ferretdb", server.FerretDB, map[string]string{"handler": "sqlite"}}
}

// namesOn returns the tables (SQL) or collections (ferretdb) of the benchmark database of the
// existing server dsn.
func namesOn(t *testing.T, eng, dsn string) []string {
	t.Helper()
	if eng == "ferretdb" {
		return collectionsOn(t, eng, dsn)
	}
	return tablesOn(t, eng, dsn)
}

// dropOf is what the refusal of a run on a server with table left says drops it.
func dropOf(eng, table string) string {
	if eng == "ferretdb" {
		return `db.getSiblingDB("enginebench").` + table + ".drop()"
	}
	return "DROP TABLE IF EXISTS " + table
}

// TestFrozenFerretDBFailsTheStep freezes (SIGSTOP) the managed FerretDB server of an Insert
// Benchmark run while l.i0 inserts: with --stall-timeout 2s the step fails with a stall that
// names the configuration, the run ends with exit status 1 and its results written, and the
// frozen server is stopped.
func TestFrozenFerretDBFailsTheStep(t *testing.T) {
	integration(t, "starts servers")
	run, out, data := startOnServer(t, server.FerretDB, "run", "--scale", "tiny", "--engines", "ferretdb", "--steps", "l.i0",
		"--rows", "100000000", "--stall-timeout", "2s")
	run.waitForProgress(t, "l.i0")
	pids := serverProcesses(t, "ferretdb", data)
	if pids == nil {
		t.Fatal("no ferretdb of the run to freeze")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	r := run.wait(t, out, exitFailed)
	steps := r.Configs[0].Steps
	if len(steps) == 0 {
		t.Fatalf("no step in run.json; stderr:\n%s", run.stderr.String())
	}
	s := steps[len(steps)-1]
	if s.Name != "l.i0" || s.Status != result.StatusFailed || !strings.HasPrefix(s.Error, "ferretdb") || !strings.Contains(s.Error, " stalled: nothing completed for 2s") {
		t.Errorf("last step %s: %s %q; want l.i0 failed with ferretdb's stall", s.Name, s.Status, s.Error)
	}
	if ps := serverProcesses(t, "ferretdb", data); ps != nil {
		t.Errorf("ferretdb processes left after the stall: %v", ps)
	}
}

// TestFerretDBRepeatsCapAndCapacity runs the Insert Benchmark on a managed FerretDB on
// PostgreSQL with two repeats, a memory cap and a capacity search, as on the other families:
// both repeats run and verify, each under the cap with both servers' processes in its group,
// the search records its levels, the DBMS's CPU is both process trees', and the results name
// FerretDB.
func TestFerretDBRepeatsCapAndCapacity(t *testing.T) {
	integration(t, "starts servers")
	servertest.Require(t, server.FerretDB)
	servertest.Require(t, server.Postgres)
	dir := serverDataDir(t)
	out := filepath.Join(t.TempDir(), "results")
	runOK(t, "run", "--scale", "tiny", "--engines", "ferretdb", "--set", "ferretdb.backend=postgresql", "--rows", "300",
		"--steps", "l.i0,l.x", "--repeat", "2", "--memory-limit", "1G", "--capacity", "--capacity-level-seconds", "2",
		"--capacity-start", "50", "--capacity-refinements", "0", "--out", out, "--data-dir", dir)
	r := loadRun(t, out)
	if len(r.Configs) != 2 {
		t.Fatalf("%d configurations, want the two repeats of ferretdb", len(r.Configs))
	}
	for _, c := range r.Configs {
		if c.Repeat == nil || c.Status != result.StatusOK || !strings.Contains(c.Version, "FerretDB 1.24") || !strings.Contains(c.Version, "PostgreSQL") {
			t.Errorf("%s: repeat %+v, status %s %q, version %q", c.Name, c.Repeat, c.Status, c.Error, c.Version)
		}
		if c.Memory == nil || c.Memory.LimitBytes != 1<<30 || c.Memory.Scope != "server" {
			t.Errorf("%s: memory %+v, want a 1 GiB cap on the servers", c.Name, c.Memory)
		}
		if c.Capacity == nil || len(c.Capacity.Levels) == 0 {
			t.Errorf("%s: no capacity search: %+v", c.Name, c.Capacity)
		}
		var verified bool
		var dbCPU float64 // over every step: one short step's may be less than a clock tick per process
		for _, s := range c.Steps {
			verified = verified || s.Verify != nil && s.Verify.OK
			dbCPU += s.Usage[measure.KeyDBCPU]
		}
		if dbCPU <= 0 {
			t.Errorf("%s: no DBMS CPU in any step: %+v", c.Name, c.Steps)
		}
		if !verified {
			t.Errorf("%s: no step verified", c.Name)
		}
	}
}

// TestFerretDBWorkloadCollections: each workload's Tables names exactly the collections its
// run creates on a document server (run on an existing FerretDB with --keep), which the run
// drops or refuses by those names.
func TestFerretDBWorkloadCollections(t *testing.T) {
	integration(t, "starts a server")
	s := ferretServer()
	servertest.Require(t, s.kind)
	srv := servertest.Start(t, s.kind, s.settings)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"insert", []string{"--rows", "300", "--steps", "l.i0", "--clients", "2"}},
		{"iibench", []string{"--max-rows", "300"}},
		{"linkbench", []string{"--maxid1", "200", "--steps", "load", "--distribution-file", fewLinks(t)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args, _ := tinyArgsOn(t, s.engine, srv, append([]string{"--keep"}, c.args...)...)
			args = slices.Insert(args, 1, c.name)
			runOK(t, args...)
			cmd, f := runCommand(nil, nil)
			fl := cmd.Flags()
			if err := fl.Parse(args[2:]); err != nil {
				t.Fatal(err)
			}
			w, err := f.workload(fl, c.name)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(slices.Values(w.Tables()))
			if got := collectionsOn(t, s.engine, srv.DSN()); !slices.Equal(got, want) {
				t.Errorf("the run created %v; Tables says %v", got, want)
			}
			reg, _ := registry.Engines()
			e, err := reg.Open(context.Background(), engine.Config{Name: s.engine, Engine: s.engine, DSN: srv.DSN()})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := doc.DropCollections(context.Background(), e.(doc.DB), want); err != nil {
				t.Fatal(err)
			}
		})
	}
}
