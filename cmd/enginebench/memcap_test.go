package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/result"
)

// requireCap skips a test that needs a memory cap where none can be made, with the reason;
// under CI=true as root it fails instead.
func requireCap(t *testing.T) {
	t.Helper()
	if err := cgroup.Check(); err != nil {
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatalf("CI=true as root and no memory cap: %v", err)
		}
		t.Skipf("no memory cap here: %v", err)
	}
}

// capCase is one engine of TestMemoryCapReadsReachDevice: the same data and the same step,
// with and without the cap.
type capCase struct {
	engine, scope string
	args          []string
	// blockReads names the engine's own counter of blocks it read from outside its cache.
	blockReads string
	dataDir    func(t *testing.T) string
}

// TestMemoryCapReadsReachDevice loads the same data into an embedded engine (pebble, in the
// enginebench process) and a managed server (postgres, its process tree), then runs the same
// point-query step, once under a memory cap smaller than the data and once without. The
// engine's own counters show it reading blocks from outside its cache in every query both ways;
// /proc (the DBMS's read_bytes) shows those reads reaching the device under the cap, and served
// by the page cache without it.
func TestMemoryCapReadsReachDevice(t *testing.T) {
	integration(t, "runs engines under a memory cap")
	requireCap(t)
	cases := []capCase{
		{engine: "pebble", scope: "process", blockReads: "block_cache_misses", dataDir: tempData,
			args: []string{"--memory-limit", "128M", "--rows", "3000000",
				"--set", "pebble.cache_mb=16", "--set", "pebble.memtable_mb=16"}},
		{engine: "postgres", scope: "server", blockReads: "blks_read", dataDir: pgData,
			args: []string{"--memory-limit", "64M", "--rows", "700000",
				"--set", "postgres.shared_buffers=8MB", "--set", "postgres.maintenance_work_mem=16MB"}},
	}
	for _, c := range cases {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			if c.engine == "postgres" {
				servertest.Require(t, server.Postgres)
			}
			capped := runCapCase(t, c, c.args)
			uncapped := runCapCase(t, c, append(c.args, "--memory-limit", "none"))
			checkCapped(t, c, capped)
			if uncapped.Configs[0].Memory != nil {
				t.Errorf("uncapped run records a memory cap: %+v", uncapped.Configs[0].Memory)
			}
			cq, uq := perQuery(t, capped, c.blockReads), perQuery(t, uncapped, c.blockReads)
			t.Logf("per query: capped %.1f KB read from the device, %.1f %s; uncapped %.1f KB, %.1f",
				cq.deviceKB, cq.blocks, c.blockReads, uq.deviceKB, uq.blocks)
			// Both ways the engine goes outside its own cache for blocks at least once a query
			// (its cache is smaller than the data): the OS serves those reads. How many a query
			// differs with the step's background writes and flushes, the same both ways while the
			// queries are fewer under the cap, so only their presence is compared.
			if cq.blocks < 1 || uq.blocks < 1 {
				t.Errorf("the engine's %s per query: capped %.2f, uncapped %.2f: want at least one both ways",
					c.blockReads, cq.blocks, uq.blocks)
			}
			if cq.totalKB < 1024 || cq.deviceKB < 10*uq.deviceKB {
				t.Errorf("device reads: capped %.0f KB in all (%.2f per query), uncapped %.2f per query: "+
					"want the capped step to read from the device and the uncapped one not", cq.totalKB, cq.deviceKB, uq.deviceKB)
			}
		})
	}
}

func tempData(t *testing.T) string { return filepath.Join(t.TempDir(), "data") }
func pgData(t *testing.T) string   { return serverDataDir(t) }

// runCapCase runs the case's engine with args (l.i0, then l.x, then qp100) through the binary
// and returns its run.json.
func runCapCase(t *testing.T, c capCase, args []string) *result.Run {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	all := append([]string{"run", "insert", "--scale", "tiny", "--engines", c.engine, "--clients", "1",
		"--steps", "l.i0,l.x,qp100", "--query-seconds", "5", "--out", out, "--data-dir", c.dataDir(t)}, args...)
	cmd := exec.Command(buildBinary(t), all...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(all, " "), err, b)
	}
	return loadRun(t, out)
}

// checkCapped checks the memory record of a capped run: the cap, where it applied, a peak
// within it and page cache charged to it.
func checkCapped(t *testing.T, c capCase, run *result.Run) {
	t.Helper()
	m := run.Configs[0].Memory
	want := map[string]int64{"pebble": 128 << 20, "postgres": 64 << 20}[c.engine]
	switch {
	case m == nil:
		t.Fatal("capped run records no memory cap")
	case m.LimitBytes != want || m.Scope != c.scope:
		t.Errorf("memory %+v: want limit %d, scope %s", m, want, c.scope)
	case m.PeakBytes == nil || *m.PeakBytes > want+1<<20:
		t.Errorf("peak %v beyond the cap %d", m.PeakBytes, want)
	case m.CacheBytes <= 0 || m.OOMKills != 0:
		t.Errorf("memory %+v: want page cache charged and no OOM kill", m)
	}
	if m != nil && (m.HarnessPeakBytes == nil || *m.HarnessPeakBytes <= 0) {
		t.Errorf("harness peak %v with scope %s, want enginebench's VmHWM", m.HarnessPeakBytes, c.scope)
	}
}

// queryFigures are qp100's figures: device KB in all and per query, engine block reads per query.
type queryFigures struct{ totalKB, deviceKB, blocks float64 }

// perQuery returns the qp100 step's device reads (the DBMS's read_bytes) and the engine's
// block reads during it (its counter's growth since l.x), per query.
func perQuery(t *testing.T, run *result.Run, counter string) queryFigures {
	t.Helper()
	steps := run.Configs[0].Steps
	if run.Status != result.StatusOK || len(steps) != 3 || steps[2].Name != "qp100" {
		t.Fatalf("run %s: steps %+v", run.Status, steps)
	}
	prev, qp := steps[1], steps[2]
	kb, ok := qp.Usage["db_read_kb"]
	q := qp.Ops["query"]
	if !ok || q == nil || q.Count == 0 {
		t.Fatalf("qp100: usage %v, query op %+v", qp.Usage, q)
	}
	after, ok1 := qp.EngineStats[counter]
	before, ok2 := prev.EngineStats[counter]
	if !ok1 || !ok2 {
		t.Fatalf("no engine counter %s: %v / %v", counter, prev.EngineStats, qp.EngineStats)
	}
	n := float64(q.Count)
	return queryFigures{totalKB: kb, deviceKB: kb / n, blocks: (after - before) / n}
}

// TestMemoryCapRefused runs with a memory cap as a user who cannot make a cgroup: the run is
// refused before it starts (exit 2, one line with the reason, nothing written).
func TestMemoryCapRefused(t *testing.T) {
	integration(t, "runs the binary as another user")
	dir, err := os.MkdirTemp("", "enginebench-nocap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "enginebench")
	b, err := os.ReadFile(buildBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	cmd := exec.Command(bin, "run", "--scale", "tiny", "--engines", "sqlite", "--memory-limit", "256M",
		"--out", out, "--data-dir", filepath.Join(dir, "data"))
	cmd.Dir = dir
	if os.Geteuid() == 0 { // root can make a cgroup: run as nobody, who cannot
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
		t.Fatalf("exit %v, want %d; stderr %q", err, exitUsage, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "memory cap of 256 MiB (from --memory-limit) cannot be applied here") {
		t.Errorf("stderr %q: want one line saying why the cap cannot be applied", msg)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run made its results directory: %v", err)
	}
}

// TestEnginesShowCapDefaults: `enginebench engines ENGINE` says what memory_limit does to each
// engine: the settings its CapDefaults gives at 1 GiB, or that it keeps its settings.
func TestEnginesShowCapDefaults(t *testing.T) {
	reg, err := registry.Engines()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range reg.Drivers() {
		_, stdout, _ := runCLI(t, "engines", d.Name)
		if !strings.Contains(stdout, "memory_limit (every engine enginebench runs)") {
			t.Errorf("engines %s does not mention memory_limit:\n%s", d.Name, stdout)
		}
		var cd map[string]string
		if d.CapDefaults != nil {
			cd = d.CapDefaults(1 << 30)
		}
		for k, v := range cd {
			if !strings.Contains(stdout, " "+k+"="+v) {
				t.Errorf("engines %s lacks %s=%s under a cap:\n%s", d.Name, k, v, stdout)
			}
		}
		if keeps := strings.Contains(stdout, "its settings stay as they are under a cap"); keeps != (len(cd) == 0) {
			t.Errorf("engines %s: says it keeps its settings: %t, with %d cap settings", d.Name, keeps, len(cd))
		}
	}
}

// TestKilledCappedRunLeavesGroup kills (SIGKILL) a run of an embedded engine under a memory
// cap: the run cannot remove the group it is in, whose name says which process made it. The
// next run lists it, enginebench clean lists it, and clean --remove removes it.
func TestKilledCappedRunLeavesGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs enginebench")
	}
	requireCap(t)
	dir := t.TempDir()
	out, data := filepath.Join(dir, "results", "run1"), filepath.Join(dir, "data", "run1")
	os.Mkdir(filepath.Dir(data), 0o755)
	r := startIn(t, out, data, "run", "--scale", "tiny", "--engines", "sqlite", "--memory-limit", "256M",
		"--rows", "100000000")
	r.waitForStep(t, out, 0)
	group := memoryGroup(t, r.cmd.Process.Pid)
	if want := fmt.Sprintf("enginebench-%d-sqlite", r.cmd.Process.Pid); filepath.Base(group) != want {
		t.Fatalf("the run is in group %s, want one named %s", group, want)
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	if _, err := os.Stat(group); err != nil {
		t.Fatalf("the killed run's group %s: %v", group, err)
	}
	_, stderr := runOK(t, "run", "--scale", "tiny", "--engines", "null", "--rows", "1000", "--steps", "l.i0",
		"--out", filepath.Join(dir, "results", "run2"), "--data-dir", filepath.Join(dir, "data", "run2"))
	want := fmt.Sprintf("memory cgroup %s of enginebench process %d, which is gone", group, r.cmd.Process.Pid)
	if !strings.Contains(stderr, want) {
		t.Errorf("the next run's stderr lacks %q:\n%s", want, stderr)
	}
	stdout, _ := runOK(t, "clean", filepath.Join(dir, "results"), filepath.Join(dir, "data"))
	if !strings.Contains(stdout, want+": left (--remove removes it)") {
		t.Errorf("clean's output lacks %q:\n%s", want, stdout)
	}
	stdout, _ = runOK(t, "clean", "--remove", filepath.Join(dir, "results"), filepath.Join(dir, "data"))
	if !strings.Contains(stdout, want+": removed") {
		t.Errorf("clean --remove's output lacks %q:\n%s", want, stdout)
	}
	if _, err := os.Stat(group); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("clean --remove left the group %s: %v", group, err)
	}
}

// memoryGroup returns the directory of the memory cgroup process pid is in.
func memoryGroup(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if _, path, ok := strings.Cut(line, ":memory:"); ok {
			return filepath.Join("/sys/fs/cgroup/memory", path)
		}
		if path, ok := strings.CutPrefix(line, "0::"); ok && !strings.Contains(string(b), ":memory:") {
			return filepath.Join("/sys/fs/cgroup", path)
		}
	}
	t.Fatalf("no memory cgroup in /proc/%d/cgroup:\n%s", pid, b)
	return ""
}
