package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
	"github.com/enginebench/enginebench/internal/testfs"
)

// TestOnlyBadInputExitsTwo: a command's error that is not bad input exits 1; bad input, and
// cobra's own errors (unknown command, too many arguments), exit 2.
func TestOnlyBadInputExitsTwo(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"a failure of the machine", []string{"fail"}, exitFailed},
		{"bad input", []string{"bad"}, exitUsage},
		{"an exit status of its own", []string{"interrupted"}, exitInterrupted},
		{"unknown command", []string{"nosuch"}, exitUsage},
		{"too many arguments", []string{"version", "x"}, exitUsage},
		{"unknown flag", []string{"fail", "--nosuch"}, exitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			root := newRootCmd(&out, &errb)
			root.AddCommand(
				&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error {
					return fmt.Errorf("write results: %w", syscall.EIO)
				}},
				&cobra.Command{Use: "bad", RunE: func(*cobra.Command, []string) error { return usagef("no such thing") }},
				&cobra.Command{Use: "interrupted", RunE: func(*cobra.Command, []string) error {
					return exitError{exitInterrupted, "interrupted"}
				}})
			if code := runRoot(root, c.args, &errb); code != c.want {
				t.Errorf("exit %d, want %d; stderr %q", code, c.want, errb.String())
			}
		})
	}
}

// TestDirErrorStatus: a directory the user named that cannot be used is bad input; a failure of
// the machine while preparing it is not.
func TestDirErrorStatus(t *testing.T) {
	for err, want := range map[error]int{
		fmt.Errorf("results directory x cannot be created: %w", &fs.PathError{Op: "mkdir", Path: "x", Err: syscall.EACCES}): exitUsage,
		fmt.Errorf("x: %w", syscall.ENOTDIR):                exitUsage,
		fmt.Errorf("x is not writable: %w", syscall.ENOSPC): exitUsage,
		fmt.Errorf("x: %w", syscall.EROFS):                  exitUsage,
		errors.New("results directory x is not empty"):      exitUsage,
		fmt.Errorf("results directory x: %w", syscall.EIO):  exitFailed,
		fmt.Errorf("data directory x: %w", syscall.ENOMEM):  exitFailed,
		fmt.Errorf("lock x: %w", syscall.EMFILE):            exitFailed,
		usagef("already bad input"):                         exitUsage,
		exitError{exitFailed, "already a failure"}:          exitFailed,
	} {
		var out bytes.Buffer
		root := newRootCmd(&out, &out)
		root.AddCommand(&cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return pathError(err) }})
		if code := runRoot(root, []string{"x"}, &out); code != want {
			t.Errorf("%v: exit %d, want %d", err, code, want)
		}
	}
}

// TestSignalsStopThenAbort: the first stop signal cancels the run's context and says how to
// stop at once; the second closes the abort channel. SIGHUP counts as SIGTERM does.
func TestSignalsStopThenAbort(t *testing.T) {
	var log servertest.Buffer
	sig := notifySignals(&log)
	defer sig.stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	<-sig.ctx.Done()
	select {
	case <-sig.abort:
		t.Fatal("the first signal closed the abort channel")
	default:
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	<-sig.abort
	got := log.String()
	if !strings.Contains(got, "SIGHUP (terminal closed): stopping:") || !strings.Contains(got, "press Ctrl-C again to kill the servers at once") ||
		!strings.Contains(got, "second stop signal, SIGTERM: killing the servers at once; results are still written") {
		t.Errorf("messages:\n%s", got)
	}
}

// TestDataDirParentMustExist: a --data-dir whose parent does not exist is refused, and
// nothing is created; a refused run removes the directories it created.
func TestDataDirParentMustExist(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexistent", "x")
	runBad(t, "data directory "+missing+": its parent "+filepath.Join(dir, "nonexistent")+" is not an existing directory",
		"run", "--scale", "tiny", "--engines", "sqlite", "--out", filepath.Join(dir, "r"), "--data-dir", missing)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused run created %v", entries)
	}
	// Refused after the data root was created and checked: the results directory is not
	// empty. The data root it created (default data/<run id>, and data/) is gone.
	full := filepath.Join(dir, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	t.Chdir(dir)
	runBad(t, "results directory "+full+" is not empty", "run", "--scale", "tiny", "--engines", "sqlite,pebble", "--out", full)
	given := filepath.Join(dir, "given")
	runBad(t, "results directory "+full+" is not empty", "run", "--scale", "tiny", "--engines", "sqlite,pebble", "--out", full, "--data-dir", given)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused runs left %v, want only %s", entries, full)
	}
}

// TestLockedDirectoriesAreRefused: while another run holds a results directory or a data root
// (its lock, taken here by the test), a run that names it is refused, exit 2, naming the
// holder's pid and run; once released, the same run goes ahead.
func TestLockedDirectoriesAreRefused(t *testing.T) {
	for _, which := range []string{"results", "data"} {
		t.Run(which, func(t *testing.T) {
			dir := t.TempDir()
			out, data := filepath.Join(dir, "results"), filepath.Join(dir, "data")
			locked := map[string]string{"results": out, "data": data}[which]
			os.Mkdir(locked, 0o755)
			l, err := runlock.Acquire(locked, runlock.Info{PID: 4242, RunID: "20260101-000000-insert", Role: which})
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"run", "--scale", "tiny", "--engines", "null", "--rows", "1000", "--steps", "l.i0",
				"--out", out, "--data-dir", data}
			runBad(t, which+" directory "+locked+" is in use by another enginebench run, run 20260101-000000-insert (pid 4242)", args...)
			if entries, _ := os.ReadDir(locked); len(entries) != 1 || entries[0].Name() != runlock.FileName {
				t.Errorf("the refused run touched %s: %v", locked, entries)
			}
			l.Release()
			runOK(t, args...) // after the release
			for _, d := range []string{out, data} {
				if _, err := os.Stat(filepath.Join(d, runlock.FileName)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the run left its lock file in %s: %v", d, err)
				}
			}
		})
	}
}

// TestTwoRunsStartedTogether: two runs started at once on one results directory, or on one
// data directory: one runs, the other is refused with exit 2 naming the first's pid.
func TestTwoRunsStartedTogether(t *testing.T) {
	integration(t, "builds the binary")
	bin := buildBinary(t)
	for _, shared := range []string{"--out", "--data-dir"} {
		t.Run(shared, func(t *testing.T) {
			dir := t.TempDir()
			args := func(i int) []string {
				out, data := filepath.Join(dir, "results"), filepath.Join(dir, "data")
				if shared == "--out" {
					data += strconv.Itoa(i)
				} else {
					out += strconv.Itoa(i)
				}
				// A load that runs until it is interrupted.
				return []string{"run", "--scale", "tiny", "--engines", "pebble", "--rows", "100000000", "--out", out, "--data-dir", data}
			}
			a, b := startBinary(t, bin, args(1)...), startBinary(t, bin, args(2)...)
			// The loser ends on its own; the winner runs until interrupted.
			ended := make(chan *bgRun, 2)
			for _, r := range []*bgRun{a, b} {
				go func() { r.cmd.Wait(); ended <- r }()
			}
			loser := <-ended
			winner := a
			if loser == a {
				winner = b
			}
			if code := loser.cmd.ProcessState.ExitCode(); code != exitUsage {
				t.Fatalf("the run that ended first: exit %d, want %d: %s", code, exitUsage, loser.stderr.String())
			}
			msg := loser.stderr.String()
			if !strings.Contains(msg, "is in use by another enginebench run, run ") || !strings.Contains(msg, fmt.Sprintf("(pid %d)", winner.cmd.Process.Pid)) {
				t.Errorf("the refused run's message %q does not name the other run and its pid %d", msg, winner.cmd.Process.Pid)
			}
			winner.cmd.Process.Signal(syscall.SIGINT)
			<-ended
			if code := winner.cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("the winner: exit %d, want %d: %s", code, exitInterrupted, winner.stderr.String())
			}
		})
	}
}

// TestStopSignals: SIGHUP (a closed terminal) stops a run as Ctrl-C does: the step in
// progress is interrupted and everything is written. A second stop signal is announced as
// killing the servers at once, and the results are still written. The two pending signals
// may reach the process in either order (the kernel hands them to different threads), so
// the second is whichever was not announced first.
func TestStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, c := range []struct {
		name    string
		signals []syscall.Signal
		want    []*regexp.Regexp
	}{
		{"SIGHUP", []syscall.Signal{syscall.SIGHUP}, []*regexp.Regexp{
			regexp.MustCompile(`SIGHUP \(terminal closed\): stopping:`), regexp.MustCompile(`press Ctrl-C again`)}},
		{"two signals", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, []*regexp.Regexp{
			regexp.MustCompile(`(?s)Ctrl-C \(SIGINT\): stopping:.*second stop signal, SIGTERM: killing the servers at once; results are still written|` +
				`SIGTERM: stopping:.*second stop signal, Ctrl-C \(SIGINT\): killing the servers at once; results are still written`)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "results")
			r := startRun(t, "run", "--scale", "tiny", "--engines", "pebble", "--rows", "100000000",
				"--out", out, "--data-dir", filepath.Join(dir, "data"))
			r.waitForStep(t, out, 0)
			// Stopped, the process receives every signal at once when it continues: a second
			// signal arrives while the first is being handled, whatever the machine's speed.
			// (Signals of one kind would merge into one while pending.)
			r.cmd.Process.Signal(syscall.SIGSTOP)
			for _, s := range c.signals {
				r.cmd.Process.Signal(s)
			}
			r.cmd.Process.Signal(syscall.SIGCONT)
			res := r.wait(t, out, exitInterrupted)
			if res.Status != result.StatusInterrupted || len(res.Configs) != 1 || len(res.Configs[0].Steps) != 1 ||
				res.Configs[0].Steps[0].Status != result.StatusInterrupted {
				t.Errorf("run.json: status %s, configs %+v", res.Status, res.Configs)
			}
			for _, w := range c.want {
				if !w.MatchString(r.stderr.String()) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr.String())
				}
			}
			for _, f := range []string{"summary.md", "report.html"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
		})
	}
}

// TestInterruptLeavesNoLaterConfigDirectories: a run interrupted during its first configuration
// creates no directory for the later ones, so the same command runs again.
func TestInterruptLeavesNoLaterConfigDirectories(t *testing.T) {
	integration(t, "builds the binary")
	r, out, data := startTiny(t, "run", "--scale", "tiny", "--engines", "pebble,sqlite", "--rows", "100000000")
	r.waitForStep(t, out, 0)
	r.interrupt(t, out)
	if entries, err := os.ReadDir(data); err != nil || len(entries) != 0 {
		t.Fatalf("the interrupted run left %v in its data directory (%v)", entries, err)
	}
	// The run again on the same --data-dir.
	runOK(t, "run", "--scale", "tiny", "--engines", "pebble,sqlite", "--rows", "2000", "--steps", "l.i0",
		"--out", filepath.Join(t.TempDir(), "again"), "--data-dir", data)
}

// TestResultsOnAFullFilesystem: a results directory on a filesystem without room for results
// is refused before any work, exit 2, and leaves nothing.
func TestResultsOnAFullFilesystem(t *testing.T) {
	for size, want := range map[string]string{
		"4m":   "MiB free; results need at least 8 MiB (choose another --out)",
		"512k": "/run1 is not writable: write ",
	} {
		t.Run(size, func(t *testing.T) {
			mnt := testfs.Tmpfs(t, size)
			out := filepath.Join(mnt, "results", "run1")
			data := filepath.Join(t.TempDir(), "data")
			runBad(t, want, "run", "--scale", "tiny", "--engines", "pebble", "--out", out, "--data-dir", data)
			if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
				t.Errorf("the refused run left %v in the results filesystem", entries)
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the refused run left its data directory: %v", err)
			}
		})
	}
}

// TestResultsFilesystemFillsDuringTheRun: when the results' filesystem fills up during the
// run, the failed write is announced at once, the run goes on, and at its end nothing claims
// results that were not written: no results: or report: line, exit 1, and the run.json
// written before the disk filled is intact.
func TestResultsFilesystemFillsDuringTheRun(t *testing.T) {
	integration(t, "builds the binary")
	fsys := testfs.Tmpfs(t, "12m")
	out := filepath.Join(fsys, "results")
	r := startRun(t, "run", "--scale", "tiny", "--engines", "pebble", "--rows", "100000000",
		"--out", out, "--data-dir", filepath.Join(t.TempDir(), "data"))
	r.waitForStep(t, out, 0)
	testfs.Fill(t, fsys)
	r.cmd.Process.Signal(syscall.SIGINT)
	err := r.cmd.Wait()
	if code := r.cmd.ProcessState.ExitCode(); code != exitFailed {
		t.Fatalf("exit %d (%v), want %d\n%s", code, err, exitFailed, r.stderr.String())
	}
	stdout, stderr := r.stdout.String(), r.stderr.String()
	for _, want := range []string{"CANNOT WRITE RESULTS in " + out, "no space left on device", "RESULTS NOT SAVED: " + out} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "results:") || strings.Contains(stdout, "report:") {
		t.Errorf("stdout names results that were not written:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err == nil {
		t.Error("report.html exists")
	}
	saved, err := result.Load(out)
	if err != nil || saved.Status != result.StatusRunning || len(saved.Configs) != 1 {
		t.Errorf("run.json written before the disk filled: %+v, %v", saved, err)
	}
}
