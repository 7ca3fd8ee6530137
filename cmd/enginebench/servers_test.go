package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
)

// serverDataDir returns a data root that a server running as another user can reach.
func serverDataDir(t *testing.T) string {
	dir := servertest.DataDir(t)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "root")
}

// TestServerMatrixSpec runs a spec with two configurations of postgres that differ in a server
// setting: both run, each on its own managed server with its setting in force, and the
// server's CPU is charged to the DBMS, the harness's to the client. The spec's client CPU
// limit is so low that the client of every load exceeds it: the load is marked client-bound
// in run.json and in the summary.
func TestServerMatrixSpec(t *testing.T) {
	integration(t, "starts servers")
	servertest.Require(t, server.Postgres)
	spec := writeSpec(t, `scale: tiny
params: {steps: "l.i0,l.x,l.i1,cleanup", client-cpu-limit: 0.001}
configs:
  - name: pg-base
    engine: postgres
    settings: {shared_buffers: 128MB, max_wal_size: 1GB}
  - name: pg-nosync
    base: pg-base
    settings: {fsync: "off"}
`)
	out, data := filepath.Join(t.TempDir(), "results"), serverDataDir(t)
	stdout, _ := runOK(t, "run", "--config", spec, "--out", out, "--data-dir", data)
	run := loadRun(t, out)
	if len(run.Configs) != 2 || run.Configs[0].Name != "pg-base" || run.Configs[1].Name != "pg-nosync" {
		t.Fatalf("configs %+v", run.Configs)
	}
	if a, b := run.Configs[0].Settings["fsync"], run.Configs[1].Settings["fsync"]; a == b || b != "off" {
		t.Errorf("fsync in force: base %q, nosync %q", a, b)
	}
	for _, c := range run.Configs {
		if c.Engine != "postgres" || c.Status != result.StatusOK || len(c.Steps) != 4 {
			t.Errorf("%s: engine %s status %s, %d steps: %s", c.Name, c.Engine, c.Status, len(c.Steps), c.Error)
			continue
		}
		for _, s := range c.Steps {
			checkStep(t, c.Name, s)
		}
		e := c.Steps[0].Efficiency
		if e == nil || e.DBCPUpq == nil || *e.DBCPUpq <= 0 || e.ClientCPUpq == nil || *e.ClientCPUpq <= 0 {
			t.Errorf("%s l.i0: the server's and the client's CPU are not both measured: %s", c.Name, show(e))
		}
		if r := c.Steps[0].Resources; r == nil || r.ClientCPUPct == nil || *r.ClientCPUPct <= 0.001 || !c.Steps[0].ClientBound {
			t.Errorf("%s l.i0: client share %s, client_bound %v; want above the limit of 0.001%%, and marked",
				c.Name, show(r), c.Steps[0].ClientBound)
		}
		// The cleanup vacuumed every table and checkpointed. (Its dead_tuples after are not
		// checked: PostgreSQL publishes table statistics lazily, so a count can lag; so does
		// the checkpoint count, which the checkpointer publishes after it has woken the
		// session that asked for the checkpoint: the step's notes say the CHECKPOINT ended.)
		before, after := c.Steps[3].EngineStatsBefore, c.Steps[3].EngineStats
		if len(before) == 0 || after["vacuum_runs"] < before["vacuum_runs"]+1 {
			t.Errorf("%s cleanup: no VACUUM: before %v, after %v", c.Name, before, after)
		}
		if !slices.ContainsFunc(c.Steps[3].Notes, func(n string) bool { return strings.HasPrefix(n, "CHECKPOINT: ") }) {
			t.Errorf("%s cleanup: no CHECKPOINT in the step's notes %q", c.Name, c.Steps[3].Notes)
		}
	}
	if run.ClientCPULimitPct != 0.001 {
		t.Errorf("run.json: client_cpu_limit_pct %v, want 0.001 from the spec", run.ClientCPULimitPct)
	}
	if !strings.Contains(stdout, "(client-bound)") || !strings.Contains(stdout, "more than 0.001% of the CPUs") {
		t.Errorf("the summary does not mark the client-bound loads or lacks the legend:\n%s", stdout)
	}
	if csv, err := os.ReadFile(filepath.Join(out, "intervals.csv")); err != nil || !strings.Contains(string(csv), ",client_cpu_pct,") {
		t.Errorf("intervals.csv has no client_cpu_pct column: %v", err)
	}
	if serverProcesses(t, "postgres", data) != nil {
		t.Error("a server process is left")
	}
}

// TestExternalServer runs against a server the test started, as a user's own server: with
// --dsn on its socket and --db-pid, the server's process tree is measured, and nothing of the
// server's data directory is removed. Not in parallel: the check that the client stays under
// --client-cpu-limit 100 measures the whole test process, which other in-process runs would
// share.
func TestExternalServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	args, out := tinyArgsOn(t, "postgres", srv, "--steps", "l.i0,l.x", "--db-pid", strconv.Itoa(srv.PID()), "--client-cpu-limit", "100")
	runOK(t, args...)
	run := loadRun(t, out)
	c := run.Configs[0]
	if c.Status != result.StatusOK || len(c.Steps) != 2 || c.Version == "" {
		t.Fatalf("config %+v", c)
	}
	for _, s := range c.Steps {
		checkStep(t, c.Name, s)
	}
	e, z := c.Steps[0].Efficiency, c.Steps[0].Size
	if e == nil || e.DBCPUpq == nil || *e.DBCPUpq <= 0 || z == nil || z.DBGB1 == nil || *z.DBGB1 <= 0 {
		t.Errorf("l.i0: the server given by --db-pid and --data-dir is not measured: %s %s", show(e), show(z))
	}
	// The client's share is measured; no client can use more than all the CPUs.
	if r := c.Steps[0].Resources; r == nil || r.ClientCPUPct == nil || *r.ClientCPUPct <= 0 || c.Steps[0].ClientBound {
		t.Errorf("l.i0: client share %s, client_bound %v; want measured and under --client-cpu-limit 100", show(r), c.Steps[0].ClientBound)
	}
	if run.ClientCPULimitPct != 100 {
		t.Errorf("run.json: client_cpu_limit_pct %v, want 100 from --client-cpu-limit", run.ClientCPULimitPct)
	}
	if err := srv.Alive(); err != nil {
		t.Errorf("the run stopped the user's server: %v", err)
	}
	if _, err := os.Stat(filepath.Join(srv.DataDir(), "PG_VERSION")); err != nil {
		t.Errorf("the user's server's data directory was changed: %v", err)
	}
}

// TestServerKilledMidStep kills the managed server during l.i1: the step fails with an error
// that says the server exited, the steps before it are in run.json, the exit status is 1, and
// no process of the server is left.
func TestServerKilledMidStep(t *testing.T) {
	integration(t, "starts servers")
	run, out, data := startOnServer(t, server.Postgres, "run", "--scale", "tiny", "--engines", "postgres", "--steps", "l.i0,l.x,l.i1",
		"--rows-l.i1", "100000000", "--set", "postgres.shared_buffers=128MB", "--cpu-profile", "--counters=software")
	run.waitForStep(t, out, 2)
	pid := postmasterPID(t, filepath.Join(data, "postgres"))
	run.waitForStarted(t, "l.i1")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := run.wait(t, out, exitFailed)
	steps := r.Configs[0].Steps
	if len(steps) != 3 || steps[0].Status != result.StatusOK || steps[1].Status != result.StatusOK {
		t.Fatalf("steps %+v", steps)
	}
	if s := steps[2]; s.Status != result.StatusFailed || !strings.Contains(s.Error, fmt.Sprintf("(pid %d) exited", pid)) {
		t.Errorf("l.i1: status %s, error %q: want a failure that says the server exited", s.Status, s.Error)
	}
	if ps := serverProcesses(t, "postgres", data); ps != nil {
		t.Errorf("server processes left: %v", ps)
	}
	// The profile and the counters of the failed step are kept as far as they went, marked so.
	for _, s := range steps {
		pr, cs := s.Profile, s.Counters
		if pr == nil || pr.File == "" || pr.Of != result.OfDBMS || cs == nil || cs.Error != "" || len(cs.Events) == 0 {
			t.Errorf("%s: profile %+v, counters %+v", s.Name, pr, cs)
			continue
		}
		if _, err := os.Stat(filepath.Join(out, pr.File)); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		failed := s.Status == result.StatusFailed
		if pr.Partial != failed || cs.Partial != failed || failed && (pr.Note == "" || cs.Note == "") {
			t.Errorf("%s (%s): profile partial %v %q, counters partial %v %q", s.Name, s.Status, pr.Partial, pr.Note, cs.Partial, cs.Note)
		}
	}
}

// TestInterruptStopsTheServer sends Ctrl-C during a run on a managed MariaDB server: the run
// ends interrupted with its results written, and the server is stopped.
func TestInterruptStopsTheServer(t *testing.T) {
	integration(t, "starts servers")
	run, out, data := startOnServer(t, server.MariaDB, "run", "--scale", "tiny", "--engines", "innodb", "--rows", "100000000",
		"--set", "innodb.innodb_buffer_pool_size=128M", "--cpu-profile")
	if serverProcesses(t, "mariadbd", data) == nil {
		t.Fatal("no mariadbd running during the run")
	}
	run.waitForProgress(t, "l.i0")
	r := run.interrupt(t, out)
	if r.Status != result.StatusInterrupted || len(r.Configs[0].Steps) != 1 || r.Configs[0].Steps[0].Ops["insert"] == nil {
		t.Fatalf("run %s, steps %+v", r.Status, r.Configs[0].Steps)
	}
	// The interrupted step's profile is written as far as it went, and marked so.
	if pr := r.Configs[0].Steps[0].Profile; pr == nil || pr.File == "" || !pr.Partial || !strings.Contains(pr.Note, "interrupted") {
		t.Errorf("the interrupted step's profile: %+v", pr)
	} else if _, err := os.Stat(filepath.Join(out, pr.File)); err != nil {
		t.Error(err)
	}
	if ps := serverProcesses(t, "mariadbd", data); ps != nil {
		t.Errorf("server processes left after Ctrl-C: %v", ps)
	}
	checkRemoved(t, filepath.Join(data, "innodb"))
}

// postmasterPID reads the postmaster's PID from its data directory.
func postmasterPID(t *testing.T, dataDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}

// serverProcesses returns the PIDs of running processes named name whose command line or
// working directory lies under dir; nil when there are none.
func serverProcesses(t *testing.T, name, dir string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(comm)), name) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			continue // a zombie is gone, only not yet reaped
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if strings.Contains(string(cmdline), dir) || strings.HasPrefix(cwd, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestUnreachableDataDirExitsTwo refuses, before any work, a data directory the managed server
// (which runs as its own user when enginebench runs as root) cannot reach.
func TestUnreachableDataDirExitsTwo(t *testing.T) {
	servertest.Require(t, server.Postgres)
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another user")
	}
	dir := t.TempDir() // mode 0700: the postgres user cannot search it
	out := filepath.Join(dir, "results")
	runBad(t, "cannot reach the data directory", "run", "--scale", "tiny", "--engines", "postgres",
		"--data-dir", filepath.Join(dir, "data"), "--out", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("results directory created: %v", err)
	}
}
