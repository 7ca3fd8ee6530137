package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/testwait"
)

// bgRun is the enginebench binary running in the background, for tests that signal it or
// what it started. Its output can be read while it runs.
type bgRun struct {
	cmd            *exec.Cmd
	stdout, stderr servertest.Buffer
}

// startRun starts the enginebench binary (built once per test process) with args; it is
// killed at the test's end if still running.
func startRun(t *testing.T, args ...string) *bgRun {
	t.Helper()
	return startBinary(t, buildBinary(t), args...)
}

// startIn starts the enginebench binary with args, then --out out and --data-dir data.
func startIn(t *testing.T, out, data string, args ...string) *bgRun {
	t.Helper()
	return startRun(t, append(args, "--out", out, "--data-dir", data)...)
}

// startTiny starts the enginebench binary with args into a fresh results and data directory,
// and returns the run and both directories.
func startTiny(t *testing.T, args ...string) (r *bgRun, out, data string) {
	t.Helper()
	dir := t.TempDir()
	out, data = filepath.Join(dir, "results"), filepath.Join(dir, "data")
	return startIn(t, out, data, args...), out, data
}

// startOnServer starts the enginebench binary with args, on a managed server of kind, into a
// fresh results directory and a data root that the server's user can reach (the test skips
// without the server's binaries), and waits until the run has opened its configuration (the
// server is up); it returns the run and both directories.
func startOnServer(t *testing.T, kind server.Kind, args ...string) (r *bgRun, out, data string) {
	t.Helper()
	servertest.Require(t, kind)
	out, data = filepath.Join(t.TempDir(), "results"), serverDataDir(t)
	r = startIn(t, out, data, args...)
	r.waitForStep(t, out, 0)
	return r, out, data
}

// testBinary is the enginebench binary the tests of this process share: built by the first
// test that needs it, into a directory that TestMain makes before the tests (which may point
// TMPDIR elsewhere) and removes after them.
var testBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// parallelTests is how many of this package's parallel tests run at once unless -test.parallel
// is given (its default is the number of CPUs): they spend their time waiting on servers, fsync
// and the runs' progress lines rather than on the CPUs.
const parallelTests = 6

// TestMain makes the shared binary's directory, runs the tests and removes the directory.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
	dir, err := os.MkdirTemp("", "enginebench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testBinary.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary returns the path of the enginebench binary, building it on the first call of
// the test process; every test fails with the build's error if it failed.
func buildBinary(t *testing.T) string {
	t.Helper()
	testBinary.once.Do(func() {
		bin := filepath.Join(testBinary.dir, "enginebench")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			testBinary.err = fmt.Errorf("%w\n%s", err, out)
			return
		}
		testBinary.path = bin
	})
	if testBinary.err != nil {
		t.Fatalf("build: %v", testBinary.err)
	}
	return testBinary.path
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
	r.waitFor(t, fmt.Sprintf("step %d", done), func() bool {
		res, err := result.Load(out)
		return err == nil && len(res.Configs) == 1 && res.Configs[0].Version != "" && len(res.Configs[0].Steps) >= done
	})
}

// waitForOutput waits until the run's stderr satisfies ok; it fails the test if the run ends
// first.
func (r *bgRun) waitForOutput(t *testing.T, what string, ok func(stderr string) bool) {
	t.Helper()
	r.waitFor(t, what, func() bool { return ok(r.stderr.String()) })
}

// waitFor waits until the run reaches what (reached holds), failing the test if the run ends
// first or after a safety bound: the run's progress ends the wait.
func (r *bgRun) waitFor(t *testing.T, what string, reached func() bool) {
	t.Helper()
	testwait.Until(t, "the run to reach "+what, 3*time.Minute, func() bool {
		if reached() {
			return true
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.cmd.Process.Pid)); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				err := r.cmd.Wait() // reaps it once its output is copied: all of stderr is in the message
				t.Fatalf("the run ended (%v) before %s: %s", err, what, r.stderr.String())
			}
		}
		return false
	})
}

// stepProgressed reports whether stderr holds a plain status line (runner/progress.go) of
// step that shows units done: a count other than zero before "/expected (pct%)" or " done".
func stepProgressed(stderr, step string) bool {
	re := regexp.MustCompile(`(?m)^(?:\S+ )?` + regexp.QuoteMeta(step) + `: [^\n]*?, (\S+?)(?:/\S+ \(\d+%\)| done)`)
	for _, m := range re.FindAllStringSubmatch(stderr, -1) {
		if strings.Trim(m[1], "0.,") != "" {
			return true
		}
	}
	return false
}

// waitForProgress waits until the run's stderr shows step with units done (its plain status
// line, every 10 seconds); it fails the test if the run ends first.
func (r *bgRun) waitForProgress(t *testing.T, step string) {
	t.Helper()
	r.waitForOutput(t, "units done by "+step, func(stderr string) bool { return stepProgressed(stderr, step) })
}

// stepLine reports whether stderr has a progress line of step (after its configuration's
// name) that goes on with rest: "innodb l.i0: started".
func stepLine(stderr, step, rest string) bool {
	return regexp.MustCompile(`(?m)^(?:\S+ )?` + regexp.QuoteMeta(step+rest)).MatchString(stderr)
}

// waitForStarted waits until the run's stderr says that step started.
func (r *bgRun) waitForStarted(t *testing.T, step string) {
	t.Helper()
	r.waitForOutput(t, step+" started", func(stderr string) bool {
		return stepLine(stderr, step, ": started")
	})
}

// interrupt sends the run Ctrl-C (SIGINT) and returns its run.json from out once it has ended
// with the status of an interrupted run.
func (r *bgRun) interrupt(t *testing.T, out string) *result.Run {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	return r.wait(t, out, exitInterrupted)
}

// checkRemoved fails the test unless dir (an engine's data directory) is gone.
func checkRemoved(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data directory %s left behind: %v", dir, err)
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

// stepProgressed reads the runner's own plain status lines: with units done, of an expected
// count or of a fixed duration, and not with none or of another step.
func TestStepProgressedReadsStatusLines(t *testing.T) {
	for _, c := range []struct {
		s    runner.Status
		want bool
	}{
		{runner.Status{Step: "l.i0", Units: 123_456, ExpectUnits: 100_000_000, ETA: time.Hour}, true},
		{runner.Status{Step: "l.i0", Units: 0, ExpectUnits: 100_000_000}, false},
		{runner.Status{Step: "run.1", Units: 999_600, Duration: 10 * time.Minute}, true},
		{runner.Status{Step: "run.1", Units: 0, Duration: 10 * time.Minute}, false},
		{runner.Status{Step: "l.i1", Units: 5}, true},
		{runner.Status{Step: "l.i1", Units: 0}, false},
	} {
		var buf bytes.Buffer
		p := runner.NewProgress(&buf, false)
		p.StepStarted(c.s.Step, c.s.ExpectUnits)
		c.s.Elapsed, c.s.Rate = 10*time.Second, float64(c.s.Units)/10
		p.Tick(c.s)
		if got := stepProgressed(buf.String(), c.s.Step); got != c.want {
			t.Errorf("%q: progressed %v, want %v", buf.String(), got, c.want)
		}
		if stepProgressed(buf.String(), "l.i") {
			t.Errorf("%q: progressed for another step", buf.String())
		}
	}
}
