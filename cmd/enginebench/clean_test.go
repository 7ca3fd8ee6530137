package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/killedrun"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
	"github.com/enginebench/enginebench/internal/testwait"
)

// TestKilledRunIsFoundAndCleaned kills a run of a managed PostgreSQL with SIGKILL mid-load. What
// it left (a results directory whose run.json says running, its data directory with the
// server's data, the server's socket directory) is listed by the next run that meets it and by
// enginebench clean, which marks the run killed; clean --remove removes the data and socket
// directories, never the results.
func TestKilledRunIsFoundAndCleaned(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	servertest.Require(t, server.Postgres)
	base := reachable(t) // the server's user reaches the data and socket directories
	sockets := reachable(t)
	t.Setenv("TMPDIR", sockets) // where the servers' socket directories go, here and in the child
	out, data := filepath.Join(base, "results", "run1"), filepath.Join(base, "data", "run1")
	os.Mkdir(filepath.Dir(data), 0o755)
	r := startIn(t, out, data, "run", "--scale", "tiny", "--engines", "postgres", "--rows", "100000000")
	r.waitForStep(t, out, 0)
	pg := serverProcesses(t, "postgres", data)
	if len(pg) == 0 {
		t.Fatal("no postgres server runs")
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	waitGone(t, "postgres", data) // killed with enginebench (parent-death signal)
	sockDirs, _ := filepath.Glob(filepath.Join(sockets, "eb-pg-*"))
	if len(sockDirs) != 1 {
		t.Fatalf("socket directories %v, want the killed server's", sockDirs)
	}
	if st, _, _ := runlock.Probe(out); st != runlock.Stale {
		t.Fatalf("the killed run's results lock: %v, want stale", st)
	}

	// The next run beside it lists what the killed run left.
	_, stderr := runOK(t, "run", "--scale", "tiny", "--engines", "null", "--rows", "1000", "--steps", "l.i0",
		"--out", filepath.Join(base, "results", "run2"), "--data-dir", filepath.Join(base, "data", "run2"))
	for _, want := range []string{"runs killed while running left", "results directory " + out + " (run.json says running, run ",
		"data directory " + data + " (", "socket directory " + sockDirs[0] + " of a server that is gone"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the next run's stderr lacks %q:\n%s", want, stderr)
		}
	}
	// A run on the killed run's directories is refused.
	runBad(t, "results directory "+out+" holds what run ", "run", "--scale", "tiny", "--engines", "null", "--out", out,
		"--data-dir", filepath.Join(base, "data", "run3"))
	runBad(t, "data directory "+data+" holds what run ", "run", "--scale", "tiny", "--engines", "null",
		"--out", filepath.Join(base, "results", "run4"), "--data-dir", data)

	// clean lists, and marks the run killed; it removes nothing.
	stdout, _ := runOK(t, "clean", filepath.Join(base, "results"), filepath.Join(base, "data"))
	for _, want := range []string{"results directory " + out + " (run.json says running, run ", ": marked killed",
		"data directory " + data, "left (--remove removes it)", "socket directory " + sockDirs[0],
		"enginebench clean --remove removes the data and socket directories and the cgroups"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("clean's output lacks %q:\n%s", want, stdout)
		}
	}
	res, err := result.Load(out)
	if err != nil || res.Status != result.StatusKilled || res.Configs[0].Status != result.StatusKilled || res.Validate() != nil {
		t.Fatalf("run.json after clean: %+v, %v", res, err)
	}
	for _, d := range []string{data, sockDirs[0]} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("clean without --remove removed %s: %v", d, err)
		}
	}
	if code, _, stderr := runCLI(t, "report", out); code != 0 {
		t.Errorf("report of the killed run: exit %d: %s", code, stderr)
	}

	// clean --remove removes the data and socket directories, and keeps the results.
	code, stdout, stderr := runCLI(t, "clean", "--remove", filepath.Join(base, "results"), filepath.Join(base, "data"))
	if code != 0 || strings.Count(stdout, ": removed") < 2 {
		t.Fatalf("clean --remove: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, d := range []string{data, sockDirs[0]} {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("clean --remove left %s: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "run.json")); err != nil {
		t.Errorf("clean --remove touched the results: %v", err)
	}
	if code, stdout, _ = runCLI(t, "clean", filepath.Join(base, "results"), filepath.Join(base, "data")); code != 0 ||
		!strings.Contains(stdout, "nothing left by killed runs") {
		t.Errorf("clean after --remove: exit %d\n%s", code, stdout)
	}
}

// TestCleanLeavesLiveRunsAlone: a live run's directories (locked) and a running server's socket
// directory are not listed, and --remove removes none of them.
func TestCleanLeavesLiveRunsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	servertest.Require(t, server.Postgres)
	base, sockets := reachable(t), reachable(t)
	t.Setenv("TMPDIR", sockets)
	out, data := filepath.Join(base, "results", "run1"), filepath.Join(base, "data", "run1")
	os.Mkdir(filepath.Dir(data), 0o755)
	r := startIn(t, out, data, "run", "--scale", "tiny", "--engines", "postgres", "--rows", "100000000")
	r.waitForStep(t, out, 0)
	// An empty socket directory of a server that may still be starting stays too.
	starting := filepath.Join(sockets, "eb-my-12345")
	os.Mkdir(starting, 0o700)
	code, stdout, stderr := runCLI(t, "clean", "--remove", filepath.Join(base, "results"), filepath.Join(base, "data"))
	if code != 0 || !strings.Contains(stdout, "nothing left by killed runs") {
		t.Errorf("clean --remove during a run: exit %d\n%s%s", code, stdout, stderr)
	}
	sockDirs, _ := filepath.Glob(filepath.Join(sockets, "eb-*"))
	if len(sockDirs) != 2 {
		t.Errorf("socket directories after clean: %v, want the live server's and the starting one", sockDirs)
	}
	// The same empty directory, older than a server takes to start, is a leftover.
	old := time.Now().Add(-2 * killedrun.SocketGrace)
	os.Chtimes(starting, old, old)
	if found := killedrun.SocketDirs(time.Now()); len(found) != 1 || found[0].Path != starting {
		t.Errorf("socket leftovers %v, want only %s", found, starting)
	}
	if res := r.interrupt(t, out); res.Status != result.StatusInterrupted {
		t.Errorf("the live run: status %s", res.Status)
	}
}

// reachable returns a fresh directory that a managed server's user can search.
func reachable(t *testing.T) string {
	dir := servertest.DataDir(t)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitGone waits until no process named name runs under dir, or fails the test after a bound.
func waitGone(t *testing.T, name, dir string) {
	t.Helper()
	testwait.Until(t, name+" to end under "+dir, time.Minute, func() bool { return len(serverProcesses(t, name, dir)) == 0 })
}

func TestCleanBadInput(t *testing.T) {
	runBad(t, "no such file or directory", "clean", filepath.Join(t.TempDir(), "nosuch"))
	runBad(t, "unknown flag", "clean", "--rm")
}
