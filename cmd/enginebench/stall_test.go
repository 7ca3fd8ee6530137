package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/result"
)

// freezeServers stops (SIGSTOP) every mariadbd process of the run whose data is under data,
// and fails the test when there is none.
func freezeServers(t *testing.T, data string) {
	t.Helper()
	pids := serverProcesses(t, "mariadbd", data)
	if pids == nil {
		t.Fatal("no mariadbd of the run to freeze")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
}

// checkStalledRun checks a run that a frozen server ended: exit status 1, the step named
// step (any step when empty) failed with an error that names the configuration innodb and
// says that it stalled, the run failed, its results written, and no mariadbd of the run left.
func checkStalledRun(t *testing.T, run *bgRun, out, data, step string) {
	t.Helper()
	r := run.wait(t, out, exitFailed)
	steps := r.Configs[0].Steps
	if len(steps) == 0 {
		t.Fatalf("no step in run.json; stderr:\n%s", run.stderr.String())
	}
	s := steps[len(steps)-1]
	t.Logf("%s: %s", s.Name, s.Error)
	if s.Status != result.StatusFailed || !strings.HasPrefix(s.Error, "innodb") || !strings.Contains(s.Error, " stalled: nothing completed for 2s") ||
		step != "" && s.Name != step {
		t.Errorf("last step %s: %s %q; want %s failed with innodb's stall", s.Name, s.Status, s.Error, step)
	}
	if r.Status != result.StatusFailed || r.Configs[0].Status != result.StatusFailed || !strings.Contains(r.Configs[0].Error, "stalled") {
		t.Errorf("run %s, configuration %s %q; want both failed with the stall", r.Status, r.Configs[0].Status, r.Configs[0].Error)
	}
	for _, f := range []string{"run.json", "intervals.csv", "summary.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("results: %v", err)
		}
	}
	if ps := serverProcesses(t, "mariadbd", data); ps != nil {
		t.Errorf("mariadbd processes left after the stall: %v", ps)
	}
}

// TestFrozenServerFailsTheStep freezes (SIGSTOP) the managed MariaDB server of an Insert
// Benchmark run while l.i0 inserts: with --stall-timeout 2s the step fails with a stall that
// names the configuration, the run ends with exit status 1 and its results written, and the
// frozen server is stopped.
func TestFrozenServerFailsTheStep(t *testing.T) {
	integration(t, "starts servers")
	run, out, data := startOnServer(t, server.MariaDB, "run", "--scale", "tiny", "--engines", "innodb", "--steps", "l.i0",
		"--rows", "100000000", "--stall-timeout", "2s", "--set", "innodb.innodb_buffer_pool_size=128M")
	run.waitForProgress(t, "l.i0")
	freezeServers(t, data)
	checkStalledRun(t, run, out, data, "l.i0")
}

// TestFrozenServerAfterTheMeasuredStep freezes the managed MariaDB server once l.i0's measured
// part has ended (its progress says so), in a run of l.i0 and l.x verified after each: the
// freeze lands outside the runner's loop (l.i0's verification, the binary log's reset before
// l.x), or in l.x, its index build or its verification, each watched. The run ends with a
// step failed with the stall, exit status 1, and no server left.
func TestFrozenServerAfterTheMeasuredStep(t *testing.T) {
	integration(t, "starts servers")
	run, out, data := startOnServer(t, server.MariaDB, "run", "--scale", "tiny", "--engines", "innodb", "--steps", "l.i0,l.x",
		"--verify", "each-step", "--rows", "300000", "--stall-timeout", "2s", "--set", "innodb.innodb_buffer_pool_size=128M")
	run.waitForOutput(t, "the end of l.i0's measured part", func(stderr string) bool {
		return stepLine(stderr, "l.i0", ": ok in ")
	})
	freezeServers(t, data)
	checkStalledRun(t, run, out, data, "")
}
