package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// bgRun is the enginebench binary running in the background, for tests that signal it or
// what it started. Its output can be read while it runs.
type bgRun struct {
	cmd            *exec.Cmd
	stdout, stderr lockedBuffer
}

// startRun builds enginebench and starts it with args; it is killed at the test's end if
// still running.
func startRun(t *testing.T, args ...string) *bgRun {
	t.Helper()
	return startBinary(t, buildBinary(t), args...)
}

// buildBinary builds enginebench and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "enginebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// startBinary starts the enginebench binary bin with args; it is killed at the test's end if
// still running.
func startBinary(t *testing.T, bin string, args ...string) *bgRun {
	t.Helper()
	r := &bgRun{cmd: exec.Command(bin, args...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// waitForStep waits until run.json in out shows the run's only configuration opened and
// `done` steps finished; it fails the test if the run ends first.
func (r *bgRun) waitForStep(t *testing.T, out string, done int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.cmd.Process.Pid)); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				t.Fatalf("the run ended before step %d: %s", done, r.stderr.String())
			}
		}
		res, err := result.Load(out)
		if err == nil && len(res.Configs) == 1 && res.Configs[0].Version != "" && len(res.Configs[0].Steps) >= done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not reach step %d: %s", done, r.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitForOutput waits until the run's stderr satisfies ok; it fails the test if the run ends
// first.
func (r *bgRun) waitForOutput(t *testing.T, what string, ok func(stderr string) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute) // a safety net: the run's progress ends the wait
	for !ok(r.stderr.String()) {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.cmd.Process.Pid)); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				t.Fatalf("the run ended before %s: %s", what, r.stderr.String())
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not reach %s: %s", what, r.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wait waits for the run to end with exit status code and returns its run.json from out.
func (r *bgRun) wait(t *testing.T, out string, code int) *result.Run {
	t.Helper()
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code {
		t.Fatalf("exit: %v, want status %d; stderr:\n%s", err, code, r.stderr.String())
	}
	res, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
