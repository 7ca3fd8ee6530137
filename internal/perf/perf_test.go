package perf

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// spin is a shell loop that burns CPU. (A re-exec of the test binary would not do: go test
// strips its binary's symbols, so perf could name none of its functions.)
const spin = "while :; do :; done"

// needPerf skips the test when perf is not installed or may not run here.
func needPerf(t *testing.T) context.Context {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed (Debian's linux-perf): ", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	if err := Check(ctx, ""); err != nil {
		t.Skip("perf may not sample here: ", err)
	}
	return ctx
}

// spinner starts a spinning shell.
func spinner(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd, _ := startChild(t, exec.Command("sh", "-c", spin))
	return cmd
}

func startChild(t *testing.T, cmd *exec.Cmd) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, stdin
}

// cpuTicks is a process's user and system CPU time, in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}

// runFor waits until pid has run for ticks more clock ticks of CPU.
func runFor(ctx context.Context, t *testing.T, pid int, ticks int64) {
	t.Helper()
	until := cpuTicks(t, pid) + ticks
	for cpuTicks(t, pid) < until {
		select {
		case <-ctx.Done():
			t.Fatalf("process %d did not run for %d ticks: %v", pid, ticks, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// record samples pids while during runs, enabled.
func record(ctx context.Context, t *testing.T, pids []int, during func()) (*profile.Profile, Outcome) {
	t.Helper()
	r, err := StartRecord(ctx, RecordOptions{PIDs: pids, Hz: 499, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	during()
	if err := r.Disable(ctx); err != nil && !strings.Contains(err.Error(), "exited") {
		t.Fatal(err)
	}
	p, out, err := r.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return roundTrip(t, p), out
}

// roundTrip writes p as a pprof file and parses it back.
func roundTrip(t *testing.T, p *profile.Profile) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Sample) != len(p.Sample) {
		t.Fatalf("%d samples written, %d read back", len(p.Sample), len(q.Sample))
	}
	return q
}

// exe is the path of pid's executable.
func exe(t *testing.T, pid int) string {
	t.Helper()
	path, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// samplesIn counts p's samples of pid with a frame of the executable file, and sums their
// CPU.
func samplesIn(p *profile.Profile, file string, pid int) (n int, cpu int64) {
	for _, s := range p.Sample {
		if len(s.NumLabel["pid"]) == 0 || s.NumLabel["pid"][0] != int64(pid) {
			continue
		}
		for _, l := range s.Location {
			if len(l.Line) > 0 && l.Line[0].Function.Filename == file && l.Line[0].Function.Name != "" {
				n, cpu = n+1, cpu+s.Value[1]
				break
			}
		}
	}
	return n, cpu
}

func TestRecordSamplesAProcess(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	pid := cmd.Process.Pid
	file := exe(t, pid)
	p, out := record(ctx, t, []int{pid}, func() { runFor(ctx, t, pid, 30) })
	if out.Partial {
		t.Errorf("partial: %s", out.Note)
	}
	if n, cpu := samplesIn(p, file, pid); n == 0 || cpu <= 0 {
		t.Fatalf("%d samples in %s (%d ns) of %d samples", n, file, cpu, len(p.Sample))
	}
	if p.SampleType[1].Type != "cpu" || p.SampleType[1].Unit != "nanoseconds" || p.DurationNanos <= 0 || p.Period <= 0 {
		t.Errorf("sample types %v, duration %d, period %d", p.SampleType, p.DurationNanos, p.Period)
	}
}

func TestRecordSamplesAChildForkedLater(t *testing.T) {
	ctx := needPerf(t)
	sh := exec.Command("sh", "-c", `read x; sh -c "$0" & echo $!; wait`, spin)
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	_, stdin := startChild(t, sh)
	var child int
	var file string
	p, _ := record(ctx, t, []int{sh.Process.Pid}, func() {
		if _, err := io.WriteString(stdin, "fork\n"); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		var err error
		if child, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
			t.Fatalf("the child's pid: %q: %v", line, err)
		}
		t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
		file = exe(t, child)
		runFor(ctx, t, child, 30)
	})
	if n, _ := samplesIn(p, file, child); n == 0 {
		t.Fatalf("no sample of the child %d forked after perf attached to %d, in %d samples", child, sh.Process.Pid, len(p.Sample))
	}
}

func TestRecordOfAProcessThatExitsIsPartial(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	pid := cmd.Process.Pid
	file := exe(t, pid)
	p, out := record(ctx, t, []int{pid}, func() {
		runFor(ctx, t, pid, 20)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if !out.Partial || out.Note == "" {
		t.Errorf("outcome %+v, want partial with a note", out)
	}
	if n, _ := samplesIn(p, file, pid); n == 0 {
		t.Errorf("no sample of the process before it exited, in %d samples", len(p.Sample))
	}
}

// A recording never enabled has no sample: perf opens its events disabled (-D -1) and the
// kernel takes none until it enables them.
func TestDisabledRecordingHasNoSamples(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	r, err := StartRecord(ctx, RecordOptions{PIDs: []int{cmd.Process.Pid}, Hz: 499})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	runFor(ctx, t, cmd.Process.Pid, 20)
	p, out, err := r.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 0 || out.Partial {
		t.Errorf("%d samples of a disabled recording, outcome %+v", len(p.Sample), out)
	}
}

func TestStatCountsAProcess(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	events := append(SoftwareEvents(), "cycles")
	st, err := StartStat(ctx, StatOptions{PIDs: []int{cmd.Process.Pid}, Events: events, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	runFor(ctx, t, cmd.Process.Pid, 20)
	if err := st.Disable(ctx); err != nil {
		t.Fatal(err)
	}
	cs, out, err := st.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Partial || len(cs) != len(events) {
		t.Fatalf("outcome %+v, %d counters for %d events", out, len(cs), len(events))
	}
	for i, c := range cs {
		if c.Event != events[i] || (c.Value == nil) == (c.Reason == "") {
			t.Errorf("counter %d: %+v, want %s with a value or a reason", i, c, events[i])
		}
	}
	if tc := cs[0]; tc.Value == nil || *tc.Value <= 0 || tc.Unit != "msec" {
		t.Errorf("task-clock %+v, want msec > 0", tc)
	}
}

func TestStatOfAProcessThatExitsIsPartial(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	st, err := StartStat(ctx, StatOptions{PIDs: []int{cmd.Process.Pid}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	runFor(ctx, t, cmd.Process.Pid, 10)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cs, out, err := st.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Partial || out.Note == "" || cs[0].Value == nil || *cs[0].Value <= 0 {
		t.Errorf("outcome %+v, task-clock %+v: want partial with a note, and a count", out, cs[0])
	}
}

func TestCheck(t *testing.T) {
	err := Check(t.Context(), "/nonexistent/perf")
	if err == nil || !strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Check with no perf: %v, want one line saying it is not found", err)
	}
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf is not installed or the test is not root: Check may refuse")
	}
	if err := Check(t.Context(), ""); err != nil {
		t.Errorf("Check as root: %v", err)
	}
}

func TestStartRecordOfNoProcessSaysWhy(t *testing.T) {
	ctx := needPerf(t)
	cmd := spinner(t)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_, err := StartRecord(ctx, RecordOptions{PIDs: []int{cmd.Process.Pid}})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("StartRecord of an exited process: %v, want perf's reason in one line", err)
	}
}

// A perf that the kernel refuses (run as another user than the sampled process's, without
// CAP_PERFMON: a managed server's processes when enginebench is not root) says so in one line.
func TestStartRecordRefusedSaysWhy(t *testing.T) {
	ctx := needPerf(t)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and setpriv to run perf as another user")
	}
	bin, err := lookPerf("")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "perf")
	// The wrapper lets nobody write perf's output where the package put it (a directory of
	// root's), so that what refuses is the kernel.
	script := "#!/bin/sh\nprev=\nfor a; do [ \"$prev\" = -o ] && chmod 777 \"$(dirname \"$a\")\"; prev=$a; done\n" +
		"exec " + setpriv + " --reuid=nobody --regid=nogroup --clear-groups " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := spinner(t)
	for _, start := range []func() error{
		func() error {
			_, err := StartRecord(ctx, RecordOptions{Perf: wrapper, PIDs: []int{cmd.Process.Pid}, Dir: os.TempDir()})
			return err
		},
		func() error {
			_, err := StartStat(ctx, StatOptions{Perf: wrapper, PIDs: []int{cmd.Process.Pid}, Dir: os.TempDir()})
			return err
		},
	} {
		err := start()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "perf_event_paranoid") {
			t.Errorf("perf as nobody on root's process: %v, want perf's reason in one line", err)
		}
	}
}
