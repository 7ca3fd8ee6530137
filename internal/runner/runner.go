// Package runner runs one step of a workload: its clients as goroutines, open-loop pacing,
// per-client recording merged once a second, progress, and the step's totals. It knows no
// workload and no engine: a workload hands it workers, and it hands back a result.Step.
package runner

import (
	"context"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/verdict"
)

// SLAThreshold is the share of a target rate that a rate-limited writer must achieve.
const SLAThreshold = 0.95

// Clock tells time and waits. Tests use a ManualClock to make pacing and recording
// deterministic.
type Clock interface {
	Now() time.Time
	// SleepUntil blocks until the clock reaches t or ctx is done (then it returns ctx.Err()).
	SleepUntil(ctx context.Context, t time.Time) error
	// WaitUntil blocks until the clock reaches t or ctx is done (then it returns ctx.Err()),
	// like SleepUntil, except that it never moves a virtual clock: it waits for whoever moves
	// it. A watchdog waits with it, so that it never makes time pass for what it watches.
	WaitUntil(ctx context.Context, t time.Time) error
}

// Op identifies an operation type of a step: an index into Step.Ops.
type Op int

// OpSpec declares an operation type of a step.
type OpSpec struct {
	// Name is the operation's name in results: insert, delete, query, load, ADD_LINK, ...
	Name string
	// Background marks operations of background (rate-limited) writers.
	Background bool
	// Total marks a synthetic operation that workers never record: the runner adds to it,
	// every interval, every operation of the step that is neither Background nor Total, so
	// that it holds the step's total rate and latency over all operation types (requests).
	Total bool
}

// Worker is one goroutine of a step.
type Worker struct {
	// Client is the client index this worker belongs to (0-based); fairness compares clients.
	Client int
	// Background workers run until every foreground worker has returned (or the step's
	// Duration has passed), then their context is cancelled. They are not part of fairness.
	Background bool
	// Run does the work, recording every operation through rec. Returning ctx.Err() after the
	// step's context is cancelled for the normal end of the step is not an error.
	Run func(ctx context.Context, rec *Recorder) error
}

// Step describes a step to run.
type Step struct {
	Name string
	// Primary names the operation whose rate is the step's headline (result.Step.Primary),
	// set on the result before the step's verdicts judge it; empty for none.
	Primary string
	Ops     []OpSpec
	Workers []Worker
	// Duration, when > 0, ends the step after that long by cancelling the workers' context.
	Duration time.Duration
	// ExpectUnits, when > 0, is the number of units of ProgressOp the step will do in all; it
	// gives the progress line a percentage and an ETA.
	ExpectUnits int64
	// ProgressOp is the operation whose rate the progress line shows.
	ProgressOp Op
	// Report, when > 0, also reports the step every Report (in whole ticks), plus a last,
	// shorter period at its end: each operation over the period and since the start, in the
	// result's Periods.
	Report time.Duration
	// OnPeriod, when set, is called from the runner's goroutine with each period as it ends,
	// before it is stored: it may add the workload's own figures (Rows) and show the period.
	// It must return quickly.
	OnPeriod func(p *result.Period)
	// Requests says that the step's foreground workers are request loops, each waiting for
	// the server's reply most of its time and computing little between (LinkBench's
	// requesters, the Insert Benchmark's query clients), as a load's makers of rows are not:
	// on a Runner whose workers wait in blocking calls (WorkersWait), such a step gets
	// processors of its own (procsForWaits).
	Requests bool
	// StallTimeout, when > 0, is the step's stall limit instead of Runner.StallTimeout; < 0
	// turns the watchdog off for the step (its operations are long by nature, and nothing
	// calls Heartbeat while they run).
	StallTimeout time.Duration
}

// Sampler measures what the runner does not time itself (CPU, IO, sizes, engine stats): it adds
// metrics to each interval of a step and its totals to the step's result. The runner calls
// its methods from one goroutine, in the order Begin, Sample (once per interval), End; a slow
// sampler delays the interval, so a sampler bounds its own work.
type Sampler interface {
	// Begin is called when a step starts, before its workers: it takes the baseline.
	Begin(ctx context.Context, now time.Time)
	// Sample returns the metrics of the interval since the previous Sample or Begin; nil
	// when it has none.
	Sample(ctx context.Context, now time.Time) map[string]float64
	// End is called after the step's last Sample, with the step's result complete but for
	// what the sampler adds to it (usage, size, engine stats). When the step stalled, ctx is
	// done with the *StallError as its cause (context.Cause): the engine may not answer, and
	// End should not wait for it; when the step was interrupted, ctx is done with
	// context.Canceled, and End still measures what it can.
	End(ctx context.Context, now time.Time, res *result.Step)
}

// Preparer is a Sampler with work to do before a step's clock starts (a profiler attaching to
// the DBMS's processes), so that the step's measured time does not include it. Prepare is
// called before Begin, and End follows whatever Prepare did.
type Preparer interface {
	Prepare(ctx context.Context, step string)
}

// Progress shows a running step to the user. The runner names a step by its label: the
// configuration and the step ("innodb l.i1"), or the step alone when Runner.Config is empty;
// StepDone ends the step the last StepStarted began.
type Progress interface {
	StepStarted(label string, expectUnits int64)
	// Tick is called once a second.
	Tick(s Status)
	StepDone(r *result.Step)
}

// PeriodProgress is a Progress that also shows each period of a step that reports them
// (Step.Report); label is the step's, as StepStarted had it.
type PeriodProgress interface {
	Period(label string, p *result.Period)
}

// Status is the state of a running step, given to Progress once a second.
type Status struct {
	Step        string // the step's label: "innodb l.i1"
	Elapsed     time.Duration
	Units       int64   // units of the progress op done so far
	Rate        float64 // units per second over the last second
	ExpectUnits int64
	Duration    time.Duration // the step's fixed duration, if any
	ETA         time.Duration // 0 when unknown
	// Idle is the time since the step's last progress (an operation that succeeded, a
	// Heartbeat, a worker's return), or since its start: what the stall watchdog measures.
	Idle time.Duration
}

// Runner runs steps.
type Runner struct {
	Clock    Clock
	Progress Progress  // may be nil
	Samplers []Sampler // may be empty
	// Tick is the interval of the per-second series; 0 means one second.
	Tick time.Duration
	// ClientCPULimitPct is the client-saturation check's limit: a step whose samplers measured
	// the client using more than this percentage of all CPUs is marked ClientBound. 0: no check.
	ClientCPULimitPct float64
	// Thresholds are the limits of the step's verdicts (package verdict), judged after its
	// samplers end; nil: the defaults.
	Thresholds verdict.Thresholds
	// StallTimeout is the stall watchdog's limit: a step in which no worker made progress (an
	// operation that succeeded, a Heartbeat, a return) for this long on Clock fails with a
	// *StallError, and its workers are cancelled (see Run). 0 turns the watchdog off.
	StallTimeout time.Duration
	// Config names the engine configuration the steps run on, in a stall's error and in
	// every progress line.
	Config string
	// WorkersWait says that the steps' workers wait for a server's replies in blocking system
	// calls (engine.BlockingClient): during a step of requests (Step.Requests) with at least
	// as many foreground workers as Go's scheduler has processors, it has a processor per
	// worker and two more, so that a wait does not make the runtime hand processors between
	// threads, which preempts the server where the two share CPUs (procsForWaits).
	WorkersWait bool
	// Histograms, when set, gets the latency histograms of every interval of every step as
	// the runner collects them (the run directory's HdrHistogram logs, package hdrlog).
	Histograms HistogramLog
	// Warmup, when > 0, is left out of the figures of every step that runs for a Duration
	// (--exclude-warmup): the step's measured time starts at its first tick at or after
	// Warmup, when its totals are reset and every Rebaser sampler takes its baseline again.
	// The intervals before are kept in the series; the step's Warmup says how many. A step
	// that ends before its warm-up does counts everything, and its notes say so.
	Warmup time.Duration
}

// Rebaser is a Sampler whose step totals (End) can start later than Begin: at the end of a
// step's warm-up (Runner.Warmup) the runner calls Rebase with the time of the tick that ended
// it, after that tick's Sample, and the totals End adds to the step then count from now.
type Rebaser interface {
	Rebase(ctx context.Context, now time.Time)
}

// HistogramLog receives the latency histograms of every interval of the steps a Runner runs,
// from the runner's goroutine, once a tick: what it does with them (write them to disk) takes
// nothing from the operations' hot path.
type HistogramLog interface {
	// Step is called when step of configuration config starts at start; the returned
	// StepLog gets the step's intervals. An error leaves the step without a log (its notes say
	// why); the step runs on.
	Step(config, step string, start time.Time) (StepLog, error)
}

// StepLog receives the latency histograms of one step's intervals.
type StepLog interface {
	// Interval is called once per interval (from start to end) and operation type that
	// measured a latency in it: svc is its service time, rt its response time (nil for a
	// closed-loop operation; either may be empty). The histograms are the runner's, valid
	// only during the call. An operation type named twice in a step gets a call for each.
	// An error ends the step's log: Close is called and no interval follows.
	Interval(op string, start, end time.Time, svc, rt *measure.Histogram) error
	// Close is called after the step's last interval.
	Close() error
}

// Recorder records the operations of one worker. It is owned by that worker: Do takes no
// lock and allocates nothing.
type Recorder struct {
	recorderState // implemented in recorder.go
}
