package workload

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/testwait"
)

// spinWork burns a fixed amount of CPU (about half a second here): enough for a profiler at
// 100 Hz to see it.
func spinWork() uint64 {
	x := uint64(1)
	for i := range 300_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	return x
}

var spinSink uint64

// profiledStep runs a step whose one worker spins, with p as its sampler, and returns it.
func profiledStep(t *testing.T, p *profiler, name string) *result.Step {
	t.Helper()
	rn := &runner.Runner{Samplers: []runner.Sampler{p}, Tick: time.Hour}
	st := rn.Run(context.Background(), runner.Step{Name: name, Workers: []runner.Worker{{Run: func(context.Context, *runner.Recorder) error {
		spinSink += spinWork()
		return nil
	}}}})
	if st.Status != result.StatusOK {
		t.Fatalf("%s: %s %s", name, st.Status, st.Error)
	}
	return st
}

// readProfile parses the profile file of pr under dir.
func readProfile(t *testing.T, dir string, pr *result.Profile) *profile.Profile {
	t.Helper()
	if pr == nil || pr.File == "" || pr.Error != "" {
		t.Fatalf("no profile: %+v", pr)
	}
	f, err := os.Open(filepath.Join(dir, pr.File))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prof, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}

// An embedded engine in Go is profiled with runtime/pprof: the step's file holds the
// worker's frames, which are enginebench's, so its CPU is the harness's share.
func TestProfilerRuntimePprof(t *testing.T) {
	dir := t.TempDir()
	p := newProfiler(context.Background(), Profiling{CPU: result.ModeStep, Hz: DefaultProfileHz}, dir, "pebble/1", nil, true)
	st := profiledStep(t, p, "l.i0")
	pr := st.Profile
	prof := readProfile(t, dir, pr)
	if pr.File != "profiles/pebble_1/l.i0.pb.gz" || pr.Tool != "runtime/pprof" || pr.Of != result.OfEnginebench || pr.Hz != 100 {
		t.Errorf("profile %+v", pr)
	}
	if !hasFunction(prof, "internal/workload.spinWork") {
		t.Errorf("no spinWork frame in %d samples", len(prof.Sample))
	}
	if pr.Samples == 0 || pr.Shares[result.ShareHarness] <= 0 || pr.Shares[result.ShareEngine] != 0 || pr.Partial {
		t.Errorf("samples %d, shares %v, partial %v", pr.Samples, pr.Shares, pr.Partial)
	}
	if len(pr.Windows) != 1 || !pr.Windows[0].Start.Equal(st.StartedAt) || pr.Windows[0].Seconds <= 0 {
		t.Errorf("windows %+v, want the step's from %v", pr.Windows, st.StartedAt)
	}
}

func hasFunction(prof *profile.Profile, suffix string) bool {
	return slices.ContainsFunc(prof.Function, func(f *profile.Function) bool { return strings.HasSuffix(f.Name, suffix) })
}

// An embedded engine in C is profiled and counted with perf on this process.
func TestProfilerPerfOfThisProcess(t *testing.T) {
	requirePerf(t)
	dir := t.TempDir()
	p := newProfiler(context.Background(), Profiling{CPU: result.ModeStep, Hz: 499, Counters: CountersSoftware}, dir, "sqlite", nil, false)
	if p.noPerf != "" {
		t.Fatal(p.noPerf)
	}
	st := profiledStep(t, p, "qr100")
	pr := st.Profile
	prof := readProfile(t, dir, pr)
	if pr.Tool != "perf record" || pr.Event != "cpu-clock" || pr.Hz != 499 || pr.Samples == 0 || pr.CPUSeconds <= 0 || len(prof.Sample) == 0 {
		t.Errorf("profile %+v", pr)
	}
	cs := st.Counters
	if cs == nil || cs.Error != "" || cs.Of != result.OfEnginebench || len(cs.Events) == 0 || cs.Events[0].Event != "task-clock" ||
		cs.Events[0].Value == nil || *cs.Events[0].Value <= 0 || cs.Events[0].Unit != "msec" {
		t.Fatalf("counters %+v", cs)
	}
}

// A server's process tree is profiled with perf from its root: its children that run when the
// step starts are sampled (here the root waits and its child spins).
func TestProfilerServerTree(t *testing.T) {
	requirePerf(t)
	root := exec.Command("sh", "-c", "sh -c 'i=0; while [ $i -lt 1000000000 ]; do i=$((i+1)); done' & sleep 1000")
	root.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-root.Process.Pid, syscall.SIGKILL)
		root.Wait()
	})
	testwait.Until(t, "the root's child", time.Minute, func() bool {
		tree, err := measure.ProcessTree([]int{root.Process.Pid})
		return err == nil && len(tree) >= 3
	})
	dir := t.TempDir()
	p := newProfiler(context.Background(), Profiling{CPU: result.ModeStep, Hz: 499, Counters: CountersSoftware}, dir, "postgres", []int{root.Process.Pid}, false)
	st := profiledStep(t, p, "l.i1")
	pr := st.Profile
	prof := readProfile(t, dir, pr)
	if pr.Of != result.OfDBMS || pr.Shares != nil || pr.Partial || pr.Samples == 0 {
		t.Errorf("profile %+v", pr)
	}
	children := 0
	for _, s := range prof.Sample {
		if pids := s.NumLabel["pid"]; len(pids) == 1 && pids[0] != int64(root.Process.Pid) {
			children++
		}
	}
	if children == 0 {
		t.Errorf("no sample of the root's children among %d", len(prof.Sample))
	}
	if c := st.Counters; c == nil || c.Of != result.OfDBMS || c.Error != "" || c.Events[0].Value == nil || *c.Events[0].Value <= 0 {
		t.Errorf("counters %+v", c)
	}
}

// Without perf the steps run and each says why it has no profile or counters; a Go engine's
// profile does not need perf.
func TestProfilerWithoutPerf(t *testing.T) {
	dir := t.TempDir()
	opt := Profiling{CPU: result.ModeStep, Hz: DefaultProfileHz, Counters: CountersAll, Perf: "/nonexistent/perf"}
	p := newProfiler(context.Background(), opt, dir, "rocksdb", nil, false)
	st := profiledStep(t, p, "l.i0")
	if p.noPerf == "" || st.Profile.Error != p.noPerf || st.Counters.Error != p.noPerf || strings.Contains(p.noPerf, "\n") {
		t.Errorf("no perf %q: profile %+v, counters %+v", p.noPerf, st.Profile, st.Counters)
	}
	if !strings.Contains(p.noPerf, "/nonexistent/perf") {
		t.Errorf("reason %q does not name the binary", p.noPerf)
	}
	if _, err := os.Stat(filepath.Join(dir, result.ProfilesDir)); !os.IsNotExist(err) {
		t.Errorf("a profile directory without a profile: %v", err)
	}
	g := newProfiler(context.Background(), opt, dir, "pebble", nil, true)
	if st := profiledStep(t, g, "l.i0"); st.Profile.Error != "" || st.Profile.File == "" || st.Counters.Error == "" {
		t.Errorf("pebble without perf: profile %+v, counters %+v", st.Profile, st.Counters)
	}
}

// In windows mode a window opens 50 s after the step's start and closes 10 s later, on the
// runner's clock; a step that ends before 50 s has none and says so.
func TestProfilerWindows(t *testing.T) {
	dir := t.TempDir()
	p := newProfiler(context.Background(), Profiling{CPU: result.ModeWindows, Hz: DefaultProfileHz}, dir, "pebble", nil, true)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	p.Prepare(ctx, "qr100")
	p.Begin(ctx, t0)
	for _, s := range []int{1, 49, 50, 55, 60, 61, 109, 110, 115} {
		if s == 50 || s == 110 {
			spinSink += spinWork() / 4
		}
		p.Sample(ctx, at(s))
	}
	res := &result.Step{Name: "qr100", Status: result.StatusInterrupted}
	p.End(ctx, at(116), res)
	pr := res.Profile
	want := []result.Window{{Start: at(50), Seconds: 10}, {Start: at(110), Seconds: 6}}
	if pr == nil || !slices.Equal(pr.Windows, want) || pr.Mode != result.ModeWindows {
		t.Fatalf("windows %+v, want %+v", pr, want)
	}
	if !pr.Partial || !strings.Contains(pr.Note, "interrupted") || pr.File == "" {
		t.Errorf("an interrupted step's profile: %+v", pr)
	}
	readProfile(t, dir, pr)

	p.Prepare(ctx, "qp100")
	p.Begin(ctx, t0)
	p.Sample(ctx, at(49))
	res = &result.Step{Name: "qp100", Status: result.StatusOK}
	p.End(ctx, at(49), res)
	if res.Profile.File != "" || !strings.Contains(res.Profile.Error, "no window") {
		t.Errorf("a step shorter than the first window: %+v", res.Profile)
	}
}

func requirePerf(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("perf is not installed (.ci/run installs linux-perf)")
		}
		t.Skip("perf is not installed")
	}
}

// attach lists the processes again and retries a perf that failed to start (a thread that
// exited in between), at most attachTries times, and gives the last error.
func TestAttachRetries(t *testing.T) {
	p := &profiler{}
	calls := 0
	got, err := attach(p, func(pids []int) (int, error) {
		calls++
		if len(pids) != 1 || pids[0] != os.Getpid() {
			t.Errorf("pids %v, want this process", pids)
		}
		if calls < attachTries {
			return 0, errors.New("perf did not start")
		}
		return 7, nil
	})
	if got != 7 || err != nil || calls != attachTries {
		t.Errorf("%d, %v after %d calls; want 7 after %d", got, err, calls, attachTries)
	}
	calls = 0
	if _, err := attach(p, func([]int) (int, error) { calls++; return 0, errors.New("refused") }); err == nil || err.Error() != "refused" || calls != attachTries {
		t.Errorf("%v after %d calls, want refused after %d", err, calls, attachTries)
	}
}

// A server that dies between perf's attaching and the step's start (perf ends with it, so it
// cannot be enabled) still gets its profile file, empty, marked partial with perf's note.
func TestProfilerServerGoneBeforeBegin(t *testing.T) {
	requirePerf(t)
	srv := exec.Command("sleep", "1000")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := newProfiler(context.Background(), Profiling{CPU: result.ModeStep, Hz: 99}, dir, "innodb", []int{srv.Process.Pid}, false)
	ctx := context.Background()
	p.Prepare(ctx, "l.i1")
	srv.Process.Kill()
	srv.Wait()
	t0 := time.Now()
	p.Begin(ctx, t0)
	res := &result.Step{Name: "l.i1", Status: result.StatusFailed}
	p.End(ctx, t0.Add(time.Second), res)
	pr := res.Profile
	if pr == nil || pr.Error != "" || pr.File == "" || !pr.Partial || pr.Note == "" || pr.Samples != 0 {
		t.Fatalf("profile %+v", pr)
	}
	readProfile(t, dir, pr)
}
