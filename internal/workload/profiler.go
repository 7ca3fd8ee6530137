package workload

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/perf"
	"github.com/enginebench/enginebench/internal/result"
)

// endTimeout bounds what a step's end does with its profile and counters: stopping perf and
// converting what it recorded (perf script), however the step ended.
const endTimeout = 5 * time.Minute

// profiler is the runner.Sampler of --cpu-profile and --counters for one configuration: perf
// record and perf stat of the DBMS's process tree, or of this process for an embedded engine
// (runtime/pprof for an engine in Go, whose frames it sees). Each step's profile is written to
// the run directory as profiles/<configuration>/<step>.pb.gz, its counters go into run.json.
type profiler struct {
	opt    Profiling
	runDir string
	config string
	of     string // result.OfDBMS or result.OfEnginebench
	roots  []int  // the DBMS's process trees' roots; nil: this process
	goOnly bool   // an embedded engine in Go: runtime/pprof, not perf
	noPerf string // why perf cannot be used here; "" when it can
	// engineModules are the Go modules whose frames are an embedded engine's (Shares).
	engineModules []string

	st stepProfile // the running step's
}

// stepProfile is what the profiler holds for the running step.
type stepProfile struct {
	name    string
	tmp     string // perf's scratch directory
	rec     *perf.Recording
	stat    *perf.Stat
	gop     []*bytes.Buffer // runtime/pprof's profiles, one per window
	sched   schedule
	on      bool
	windows []result.Window
	recErr  string
	statErr string
	// enableErr is why perf could not be enabled, the profile's note if Stop has none.
	enableErr string
}

// newProfiler returns the profiler of a configuration, or nil when nothing is profiled.
// roots are the DBMS's processes (none for an embedded engine); goOnly says an embedded engine
// is Go alone. A machine where perf cannot sample gets its reason in every step.
func newProfiler(ctx context.Context, opt Profiling, runDir, config string, roots []int, goOnly bool) *profiler {
	if !opt.On() {
		return nil
	}
	p := &profiler{opt: opt, runDir: runDir, config: config, of: result.OfDBMS, roots: roots, goOnly: goOnly}
	if len(roots) == 0 {
		p.of = result.OfEnginebench
	}
	if opt.Counters != "" || opt.CPU != "" && !goOnly {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := perf.Check(cctx, opt.Perf); err != nil {
			p.noPerf = err.Error()
		}
	}
	return p
}

// Prepare implements runner.Preparer: perf attaches to the processes before the step's clock
// starts, sampling and counting nothing until Begin.
func (p *profiler) Prepare(ctx context.Context, step string) {
	p.st = stepProfile{name: step}
	st := &p.st
	record, count := p.opt.CPU != "" && !p.goOnly, p.opt.Counters != ""
	if !record && !count {
		return
	}
	fail := func(why string) {
		if record {
			st.recErr = why
		}
		if count {
			st.statErr = why
		}
	}
	if p.noPerf != "" {
		fail(p.noPerf)
		return
	}
	var err error
	if st.tmp, err = os.MkdirTemp("", "enginebench-perf-"); err != nil {
		fail(err.Error())
		return
	}
	if record {
		st.rec, err = attach(p, func(pids []int) (*perf.Recording, error) {
			return perf.StartRecord(ctx, perf.RecordOptions{Perf: p.opt.Perf, PIDs: pids, Hz: p.opt.Hz, Dir: st.tmp})
		})
		if err != nil {
			st.recErr = err.Error()
		}
	}
	if count {
		st.stat, err = attach(p, func(pids []int) (*perf.Stat, error) {
			return perf.StartStat(ctx, perf.StatOptions{Perf: p.opt.Perf, PIDs: pids, Events: p.events(), Dir: st.tmp})
		})
		if err != nil {
			st.statErr = err.Error()
		}
	}
}

// attachTries bounds the attempts to attach perf: a process or thread that exits between the
// listing of the processes and perf's opening of its events (a connection's backend, a
// thread the Go runtime ends) makes perf refuse them all, and a new listing has it no more.
const attachTries = 3

// attach starts perf on the processes to sample now with start, listing them again and
// retrying when it fails; the error is the last attempt's.
func attach[T any](p *profiler, start func(pids []int) (T, error)) (T, error) {
	var zero T
	var err error
	for range attachTries {
		var pids []int
		if pids, err = p.pids(); err != nil {
			return zero, err
		}
		var s T
		if s, err = start(pids); err == nil {
			return s, nil
		}
	}
	return zero, err
}

// pids returns the processes to sample now: the DBMS's trees, or this process.
func (p *profiler) pids() ([]int, error) {
	if len(p.roots) == 0 {
		return []int{os.Getpid()}, nil
	}
	return measure.ProcessTree(p.roots)
}

// events returns the perf stat events of --counters.
func (p *profiler) events() []string {
	events := perf.SoftwareEvents()
	// The reference's names of two software events are perf's aliases of those events.
	alias := map[string]string{"migrations": "cpu-migrations", "faults": "page-faults"}
	if p.opt.Counters == CountersAll {
		for _, g := range perf.ReferenceEvents() {
			for _, e := range g {
				if a, ok := alias[e]; ok {
					e = a
				}
				if !slices.Contains(events, e) {
					events = append(events, e)
				}
			}
		}
	}
	return events
}

// Begin implements runner.Sampler: the counters start, and the profile of ModeStep.
func (p *profiler) Begin(ctx context.Context, now time.Time) {
	st := &p.st
	st.sched = schedule{start: now}
	if st.stat != nil {
		if err := st.stat.Enable(ctx); err != nil {
			st.statErr = err.Error()
		}
	}
	if p.opt.CPU == result.ModeStep {
		p.enable(ctx, now)
	}
}

// Sample implements runner.Sampler: in ModeWindows it opens and closes the windows.
func (p *profiler) Sample(ctx context.Context, now time.Time) map[string]float64 {
	st := &p.st
	if p.opt.CPU != result.ModeWindows {
		return nil
	}
	switch {
	case !st.on && !now.Before(st.sched.opens(st.sched.n)):
		st.sched.n++
		p.enable(ctx, now)
	case st.on && !now.Before(st.windows[len(st.windows)-1].Start.Add(windowLength)):
		p.disable(ctx, now)
	}
	return nil
}

// enable starts sampling the CPU: a window opens.
func (p *profiler) enable(ctx context.Context, now time.Time) {
	st := &p.st
	switch {
	case p.opt.CPU == "" || st.recErr != "":
		return
	case p.goOnly:
		var b bytes.Buffer
		if err := pprof.StartCPUProfile(&b); err != nil {
			st.recErr = fmt.Sprintf("runtime/pprof: %v", err)
			return
		}
		st.gop = append(st.gop, &b)
	case st.rec != nil:
		// A perf that cannot be enabled has most likely exited with the processes it samples
		// (a server that died as the step began): Stop keeps what it has and says why.
		if err := st.rec.Enable(ctx); err != nil && st.enableErr == "" {
			st.enableErr = err.Error()
		}
	}
	st.on = true
	st.windows = append(st.windows, result.Window{Start: now})
}

// disable stops sampling the CPU: the open window closes at now.
func (p *profiler) disable(ctx context.Context, now time.Time) {
	st := &p.st
	if !st.on {
		return
	}
	st.on = false
	w := &st.windows[len(st.windows)-1]
	w.Seconds = max(now.Sub(w.Start).Seconds(), 0)
	if p.goOnly {
		pprof.StopCPUProfile()
		return
	}
	// A perf that cannot be disabled has exited (every sampled process has): Stop says so and
	// keeps what it recorded.
	_ = st.rec.Disable(ctx)
}

// End implements runner.Sampler: sampling stops, the profile is written and the counters are
// read, as far as they went when the step was interrupted or failed.
func (p *profiler) End(ctx context.Context, now time.Time, res *result.Step) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	st := &p.st
	p.disable(ctx, now)
	if st.stat != nil {
		_ = st.stat.Disable(ctx) // as the recording's: Stop says why
	}
	if p.opt.CPU != "" {
		res.Profile = p.finishProfile(ctx, res)
	}
	if p.opt.Counters != "" {
		res.Counters = p.finishCounters(ctx, res)
	}
	if st.tmp != "" {
		os.RemoveAll(st.tmp)
	}
	p.st = stepProfile{}
}

// finishProfile stops the step's profile and writes its file.
func (p *profiler) finishProfile(ctx context.Context, res *result.Step) *result.Profile {
	st := &p.st
	pr := &result.Profile{Tool: "perf record", Of: p.of, Event: "cpu-clock", Hz: p.opt.Hz, Mode: p.opt.CPU, Windows: st.windows}
	if p.goOnly {
		pr.Tool, pr.Event, pr.Hz = "runtime/pprof", "", 100
	}
	if st.recErr != "" {
		if st.rec != nil {
			st.rec.Close()
		}
		pr.Error = st.recErr
		return pr
	}
	prof, note, err := p.stopProfile(ctx)
	switch {
	case err != nil:
		pr.Error = err.Error()
		return pr
	case len(st.windows) == 0:
		pr.Error = fmt.Sprintf("no window: the step ended before its first one, %v after its start", windowGap)
		return pr
	}
	pr.Samples, pr.CPUSeconds = profileTotals(prof)
	if p.of == result.OfEnginebench {
		pr.Shares = profileShares(prof, p.engineModules)
	}
	if note == "" && st.enableErr != "" {
		note = "perf could not be enabled: " + st.enableErr
	}
	pr.Note = note
	pr.Partial = note != "" || res.Status != result.StatusOK
	if res.Status != result.StatusOK && pr.Note == "" {
		pr.Note = "the step " + res.Status + ": the profile stops where it did"
	}
	file := result.ProfileFile(p.config, st.name)
	if err := writeProfile(filepath.Join(p.runDir, file), prof); err != nil {
		pr.Error = err.Error()
		return pr
	}
	pr.File = file
	return pr
}

// stopProfile ends the step's sampling and returns its profile, with a note when it stops
// short (a sampled process exited).
func (p *profiler) stopProfile(ctx context.Context) (*profile.Profile, string, error) {
	st := &p.st
	if p.goOnly {
		var profs []*profile.Profile
		for _, b := range st.gop {
			pp, err := profile.Parse(b)
			if err != nil {
				return nil, "", fmt.Errorf("runtime/pprof: %w", err)
			}
			profs = append(profs, pp)
		}
		if len(profs) == 0 {
			return nil, "", nil
		}
		merged, err := profile.Merge(profs)
		return merged, "", err
	}
	if st.rec == nil {
		return nil, "", nil
	}
	prof, out, err := st.rec.Stop(ctx)
	return prof, out.Note, err
}

// finishCounters stops the step's perf stat and returns its counts.
func (p *profiler) finishCounters(ctx context.Context, res *result.Step) *result.Counters {
	st := &p.st
	cs := &result.Counters{Tool: "perf stat", Of: p.of, Mode: result.ModeStep}
	if st.statErr != "" {
		cs.Error = st.statErr
		if st.stat != nil {
			st.stat.Close()
		}
		return cs
	}
	events, out, err := st.stat.Stop(ctx)
	if err != nil {
		cs.Error = err.Error()
		return cs
	}
	cs.Events, cs.Note = events, out.Note
	cs.Partial = out.Note != "" || res.Status != result.StatusOK
	if res.Status != result.StatusOK && cs.Note == "" {
		cs.Note = "the step " + res.Status + ": the counts stop where it did"
	}
	return cs
}

// writeProfile writes prof (gzipped protobuf, pprof's format) at path, its directory created.
func writeProfile(path string, prof *profile.Profile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	var b bytes.Buffer
	if err := prof.Write(&b); err != nil {
		return fmt.Errorf("profile %s: %w", path, err)
	}
	return result.WriteFile(path, b.Bytes())
}
