package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
)

// startHog starts a busy loop pinned to each CPU and returns once every one has started (it
// says so on its stdout); the test's cleanup kills them.
func startHog(t *testing.T) {
	t.Helper()
	for cpu := range runtime.NumCPU() {
		cmd := exec.Command("sh", "-c", "echo started; while :; do :; done")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(cmd.Process.Pid, &set); err != nil {
			t.Logf("hog %d not pinned to CPU %d: %v", cmd.Process.Pid, cpu, err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "started\n" {
			t.Fatalf("hog on CPU %d: %q, %v", cpu, line, err)
		}
	}
}

// stepVerdict returns the verdict of check on the step named step of the run's only
// configuration.
func stepVerdict(t *testing.T, run *result.Run, step, check string) result.Verdict {
	t.Helper()
	if run.Status != result.StatusOK || len(run.Configs) != 1 {
		t.Fatalf("run %s with %d configurations", run.Status, len(run.Configs))
	}
	for _, s := range run.Configs[0].Steps {
		if s.Name != step {
			continue
		}
		for _, v := range s.Verdicts {
			if v.Check == check {
				return v
			}
		}
		t.Fatalf("step %s has no %s verdict: %+v", step, check, s.Verdicts)
	}
	t.Fatalf("no step %s", step)
	return result.Verdict{}
}

// TestOtherCPUFlagsAHog runs a query step of an embedded engine with a busy loop on every CPU
// started by the test: run.json flags it for other processes' CPU, with the figure in its
// message. The same step without the hog is not run here: `go test` runs other packages beside
// this one, so a quiet host cannot be promised; that the client's and the DBMS's own CPU are
// not counted as other processes' is tested on set counters (measure.TestEnvUsage), and a
// figure under the threshold passing in verdict.TestEnvStep.
func TestOtherCPUFlagsAHog(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	startHog(t) // killed at the test's end
	args, out := tinyArgs(t, "sqlite", "--steps", "l.i0,l.x,qr100", "--query-seconds", "2")
	runOK(t, args...)
	v := stepVerdict(t, loadRun(t, out), "qr100", "other_cpu")
	if v.State != result.VerdictFlag || v.Value == nil || *v.Value <= *v.Threshold ||
		!strings.Contains(v.Message, "of the CPUs during qr100: figures may be noisy") {
		t.Errorf("with the hog: %+v, want other_cpu flagged with its figure", v)
	}
	t.Logf("with the hog: %s", v.Message)
}

// TestCachedPresetReadingFromDeviceIsFlagged runs a query step of the cached preset made to
// read from the device: its sizes cut to a few seconds' load and query, and a memory cap (as
// TestMemoryCapReadsReachDevice's postgres case) far smaller than its data (500,000 rows read
// about 7 device reads a query here; 300,000 only 0.2, too near the threshold). The step declared
// cached data and read from the device at every query: run.json flags it with the figures.
func TestCachedPresetReadingFromDeviceIsFlagged(t *testing.T) {
	integration(t, "runs postgres under a memory cap")
	requireCap(t)
	servertest.Require(t, server.Postgres)
	out := filepath.Join(t.TempDir(), "results")
	args := []string{"run", "insert", "--scale", "cached", "--engines", "postgres", "--clients", "1",
		"--steps", "l.i0,l.x,qp100", "--rows", "500000", "--query-seconds", "2", "--memory-limit", "64M",
		"--set", "postgres.shared_buffers=8MB", "--set", "postgres.maintenance_work_mem=16MB",
		"--out", out, "--data-dir", serverDataDir(t)}
	if b, err := exec.Command(buildBinary(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, b)
	}
	run := loadRun(t, out)
	if run.Workload.Scale != "cached" {
		t.Fatalf("scale %q, want cached", run.Workload.Scale)
	}
	v := stepVerdict(t, run, "qp100", "cached_reads")
	if v.State != result.VerdictFlag || v.Value == nil || *v.Value <= *v.Threshold ||
		!strings.Contains(v.Message, "device reads per query during qp100 of the cached preset") ||
		!strings.Contains(v.Message, "the data was not cached") {
		t.Errorf("qp100: %+v, want cached_reads flagged with the reads per query", v)
	}
	t.Logf("qp100: %s", v.Message)
	for _, s := range run.Configs[0].Steps {
		for _, v := range s.Verdicts {
			if s.Name != "qp100" && (v.Check == "cached_reads" || v.Check == "iobound_reads") {
				t.Errorf("step %s (a load) judged for its reads: %+v", s.Name, v)
			}
		}
	}
}
