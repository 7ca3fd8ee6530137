package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/verdict"
)

// SLA returns the target of a rate-limited writer and whether the achieved rate met it: at
// least SLAThreshold of the target. A target of 0 or less is always met.
func SLA(target, achieved float64) *result.Target {
	// Compare the ratio rather than achieved >= SLAThreshold*target: the quotient of two
	// decimal rates at exactly the threshold rounds to the threshold itself.
	met := target <= 0 || achieved/target >= SLAThreshold
	return &result.Target{InsertsPerSec: target, AchievedInsertsPerSec: achieved, SLAMet: met}
}

// Run runs the step s and returns its result; it returns when every worker has returned, or
// when the stall watchdog gives up on those that do not (below).
//
// Every worker runs in its own goroutine with its own Recorder. Foreground workers run until
// they return, or until s.Duration has passed (then their context is cancelled). Background
// workers are cancelled when every foreground worker has returned (or at once if there is
// none and no Duration). A worker that returns an error other than its cancelled context's
// cancels every other worker and fails the step with that error (the first one wins); so does
// a worker that panics (the error then holds the panic and its stack). If ctx is interrupted
// (see Interrupted) the step is interrupted, with what was measured so far; cancelled with
// another cause, the step fails with that cause. A worker must return soon after its context
// is cancelled.
//
// The stall watchdog (Runner.StallTimeout, Step.StallTimeout) fails the step with a
// *StallError when no worker made progress (an operation that succeeded, a Heartbeat, a
// return) for the limit on the runner's clock, and cancels the workers, so that the caller can
// close the engine. Once the workers are cancelled (for a stall, a failure or an interrupt),
// Run waits for them until nothing progressed for the limit (after a stall: since the stall);
// then it returns without the workers that are still inside an engine call, which end, for the
// step's figures, at that moment, and the step's notes say so. They return when that call does
// (when the engine is closed), recording into their Recorder, which nothing reads any more.
//
// Seconds runs from the start until every foreground worker has returned (with none, every
// worker), at most s.Duration. Intervals holds one entry per Tick plus a last, shorter one for
// the time since the last tick; each entry's Time is its end.
func (r *Runner) Run(ctx context.Context, s Step) *result.Step {
	clock, tick := r.clockAndTick()
	for _, sm := range r.Samplers {
		if p, ok := sm.(Preparer); ok {
			p.Prepare(ctx, s.Name)
		}
	}
	if r.WorkersWait && s.Requests {
		defer procsForWaits(s.Workers)()
	}
	start := clock.Now()
	res := &result.Step{Name: s.Name, Primary: s.Primary, Status: result.StatusRunning, StartedAt: start}
	if r.Progress != nil {
		r.Progress.StepStarted(r.label(s.Name), s.ExpectUnits)
	}
	for _, sm := range r.Samplers {
		sm.Begin(ctx, start)
	}

	sr := newStepRun(ctx, &s, clock)
	defer sr.stop(nil)
	deadlineDone := sr.startDeadline(start)
	sr.startWorkers()
	st := newStepStats(r, &s, clock, start, tick)
	st.openLog(start)
	stalls, stopWatch := sr.watch(r.stallLimit(&s), start)
	sr.wait(st, tick, stalls, r.Config)
	stopWatch()
	sr.stop(nil)
	<-deadlineDone
	st.tick(ctx, sr.recs, false)

	res.Seconds = stepSeconds(&s, sr, start, st.measuredFrom())
	res.Clients = sr.clients
	res.Status, res.Error = stepStatus(ctx, sr.failErr)
	res.Notes = append(sr.notes, st.closeLog()...)
	res.Warmup, res.Notes = st.warmupResult(res.Notes)
	res.Ops, res.Retries = opResults(s.Ops, st.tot, res.Seconds)
	res.Fairness = fairness(start, sr.clientEnd)
	st.series.Trim()
	res.Intervals = st.series
	ratePercentiles(res, st.measuredFrom(), st.warmIntervals)
	res.Periods = st.periods
	endCtx := stalledContext(ctx, sr.failErr)
	for _, sm := range r.Samplers {
		sm.End(endCtx, st.last, res)
	}
	res.ClientBound = measure.ClientBound(res.Usage, r.ClientCPULimitPct)
	res.Verdicts = append(res.Verdicts, verdict.Step(res, r.Thresholds)...)
	if r.Progress != nil {
		r.Progress.StepDone(res)
	}
	return res
}

// clockAndTick returns the runner's clock and tick interval, or their defaults: the system
// clock and a second.
func (r *Runner) clockAndTick() (Clock, time.Duration) {
	clock := r.Clock
	if clock == nil {
		clock = SystemClock()
	}
	tick := r.Tick
	if tick <= 0 {
		tick = time.Second
	}
	return clock, tick
}

// stepSeconds returns the step's measured time, from measured (its start, or the end of its
// warm-up) until every foreground worker had returned (with none, every worker), at most
// until s.Duration after start.
func stepSeconds(s *Step, sr *stepRun, start, measured time.Time) float64 {
	end := sr.fgEnd
	if sr.clients == 0 {
		end = sr.allEnd
	}
	if s.Duration > 0 && end.Sub(start) > s.Duration {
		end = start.Add(s.Duration)
	}
	return max(end.Sub(measured).Seconds(), 0)
}

// opResults returns each operation's totals over a step of seconds, and its retries (nil
// when there were none).
func opResults(specs []OpSpec, tot []opStats, seconds float64) (map[string]*result.Op, map[string]int64) {
	ops := map[string]*result.Op{}
	var retries map[string]int64
	for i, spec := range specs {
		t := &tot[i]
		op := &result.Op{Count: t.count, Units: t.units, Errors: t.errors, Found: t.found,
			Background: spec.Background, Latency: measure.Summarize(t.svc)}
		if seconds > 0 {
			op.PerSec = float64(t.units) / seconds
		}
		if t.rt != nil && t.rt.Count() > 0 {
			rt := measure.Summarize(t.rt)
			op.Response = &rt
		}
		ops[spec.Name] = op
		if t.retries > 0 {
			if retries == nil {
				retries = map[string]int64{}
			}
			retries[spec.Name] += t.retries
		}
	}
	return ops, retries
}

// stalledContext returns the context for the samplers' End: ctx, or when the step stalled
// (failErr is a *StallError), a context derived from ctx and cancelled with the stall as its
// cause, so that a sampler does not wait for an engine that stopped answering.
func stalledContext(ctx context.Context, failErr error) context.Context {
	var se *StallError
	if !errors.As(failErr, &se) {
		return ctx
	}
	c, cancel := context.WithCancelCause(ctx)
	cancel(se)
	return c
}

// stallLimit returns the stall watchdog's limit for s; 0: none.
func (r *Runner) stallLimit(s *Step) time.Duration {
	switch {
	case s.StallTimeout > 0:
		return s.StallTimeout
	case s.StallTimeout < 0:
		return 0
	}
	return max(r.StallTimeout, 0)
}

// stepStatus returns the status and error of a step that Run ran: failed with failErr (the
// first worker's error or a stall, which came before any interrupt); interrupted when ctx was
// interrupted; failed with ctx's cause when something else cancelled it; ok otherwise.
func stepStatus(ctx context.Context, failErr error) (status, msg string) {
	switch {
	case failErr != nil:
		return result.StatusFailed, failErr.Error()
	case Interrupted(ctx):
		return result.StatusInterrupted, "interrupted"
	case ctx.Err() != nil:
		return result.StatusFailed, context.Cause(ctx).Error()
	}
	return result.StatusOK, ""
}

// ratePercentiles sets the p50 and p99 of each op's per-second rate (see measure.RatePercentile)
// over the step's whole measured intervals: every one after the skip of a warm-up, which
// ended at from (else from is the step's start), but the last, which the step's end cuts
// short, each its units over its length. An interval of no length (a manual clock that stood
// still) has no rate.
func ratePercentiles(res *result.Step, from time.Time, skip int) {
	ivs := res.Intervals
	if ivs.Len() < skip+2 {
		return
	}
	whole := ivs.Len() - 1
	rates := make([]float64, 0, whole-skip)
	for name, op := range res.Ops {
		rates = rates[:0]
		from := from
		for i := skip; i < whole; i++ {
			if secs := ivs.Time(i).Sub(from).Seconds(); secs > 0 {
				o, _ := ivs.Op(i, name)
				rates = append(rates, float64(o.Units)/secs)
			}
			from = ivs.Time(i)
		}
		if v, ok := measure.RatePercentile(rates, 50); ok {
			op.RateP50 = &v
		}
		if v, ok := measure.RatePercentile(rates, 99); ok {
			op.RateP99 = &v
		}
	}
}

// normalEnd reports whether a worker's error is a normal end: nil, or its own cancelled
// context's error.
func normalEnd(err error, wctx context.Context) bool {
	return err == nil || wctx.Err() != nil &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// fairness compares the clients' durations from start to the end of each client's last
// foreground worker; nil without clients.
func fairness(start time.Time, clientEnd map[int]time.Time) *result.Fairness {
	if len(clientEnd) == 0 {
		return nil
	}
	secs := make([]float64, 0, len(clientEnd))
	for _, t := range clientEnd {
		secs = append(secs, max(t.Sub(start).Seconds(), 0))
	}
	sort.Float64s(secs)
	f := &result.Fairness{MinSeconds: secs[0], MaxSeconds: secs[len(secs)-1]}
	f.DiffSeconds = f.MaxSeconds - f.MinSeconds
	if f.MinSeconds > 0 {
		f.Pct = f.DiffSeconds / f.MinSeconds * 100
	}
	return f
}

// sample calls every sampler and sets their metrics in interval i of series (a later
// sampler's value of a metric wins).
func (r *Runner) sample(ctx context.Context, now time.Time, series *result.Series, i int) {
	for _, s := range r.Samplers {
		for k, v := range s.Sample(ctx, now) {
			series.SetMetric(i, k, v)
		}
	}
}

// stepStats are the runner's aggregates of a running step: the current interval and the
// step's totals, one entry per operation type, and the per-second series so far. Only the
// runner's goroutine uses them.
type stepStats struct {
	r       *Runner
	s       *Step
	clock   Clock
	every   time.Duration // the tick interval
	start   time.Time
	last    time.Time // time of the previous tick
	iv, tot []opStats
	spare   *opBuffer // the recorders' shared spare interval buffer (see Recorder.collect)
	series  *result.Series
	// log gets each interval's histograms (Runner.Histograms); nil: none. logNote says why
	// it ended early.
	log     StepLog
	logNote string
	// per accumulates the ticks of the current period (Step.Report) since lastPeriod; prev
	// holds the records of the last period recorded, which began at prevStart.
	per, prev             []opStats
	lastPeriod, prevStart time.Time
	periods               []result.Period
	// warmEnd is when the step's warm-up ends (Runner.Warmup), zero without one; warming is
	// true until a tick at or after it ends the warm-up, at warmedAt, after warmIntervals
	// intervals.
	warmEnd       time.Time
	warming       bool
	warmedAt      time.Time
	warmIntervals int
}

// newStepStats returns the statistics of step s, started at start, ticking every tick.
func newStepStats(r *Runner, s *Step, clock Clock, start time.Time, tick time.Duration) *stepStats {
	n := len(s.Ops)
	st := &stepStats{r: r, s: s, clock: clock, start: start, last: start, lastPeriod: start, every: tick,
		spare: newOpBuffer(n), series: &result.Series{}, iv: make([]opStats, n), tot: make([]opStats, n), per: make([]opStats, n), prev: make([]opStats, n)}
	if r.Warmup > 0 && s.Duration > 0 {
		st.warmEnd, st.warming = start.Add(r.Warmup), true
	}
	return st
}

// endWarmup ends the step's warm-up at the tick of now, once the interval that ends then was
// added to the totals: the totals and the current period are reset (the warm-up's records
// are left out of the step's figures), the measured time starts now, and every Rebaser
// sampler takes its baseline again.
func (st *stepStats) endWarmup(ctx context.Context, now time.Time) {
	st.warming, st.warmedAt, st.warmIntervals = false, now, st.series.Len()
	for i := range st.tot {
		st.tot[i].reset()
		st.per[i].reset()
	}
	st.lastPeriod = now
	for _, sm := range st.r.Samplers {
		if rb, ok := sm.(Rebaser); ok {
			rb.Rebase(ctx, now)
		}
	}
}

// measuredFrom returns when the step's measured time began: the end of its warm-up, or its
// start.
func (st *stepStats) measuredFrom() time.Time {
	if st.warmedAt.IsZero() {
		return st.start
	}
	return st.warmedAt
}

// warmupResult returns the warm-up the step left out (nil when it had none) and notes with
// a note added when the step ended before its warm-up did.
func (st *stepStats) warmupResult(notes []string) (*result.Warmup, []string) {
	switch {
	case st.warming:
		return nil, append(notes, fmt.Sprintf("the step ended before a tick ended its warm-up of %s: its figures count all of it",
			numfmt.Seconds(st.r.Warmup.Seconds())))
	case st.warmedAt.IsZero():
		return nil, notes
	}
	return &result.Warmup{AskedSeconds: st.r.Warmup.Seconds(), Seconds: st.warmedAt.Sub(st.start).Seconds(),
		Intervals: st.warmIntervals}, notes
}

// tick collects every recorder's records of the interval that ends now, appends the interval
// to the series with the samplers' metrics, adds it to the totals and, for a periodic tick,
// reports progress.
func (st *stepStats) tick(ctx context.Context, recs []*Recorder, periodic bool) {
	for _, rec := range recs {
		st.spare = rec.collect(st.iv, st.spare)
	}
	st.sumTotals()
	now := st.clock.Now()
	in := st.series.Append(st.series.Len()+1, now)
	for i, spec := range st.s.Ops {
		o, _ := st.series.Op(in, spec.Name) // ops of the same name add up
		st.series.SetOp(in, spec.Name, st.iv[i].addInterval(o))
	}
	st.r.sample(ctx, now, st.series, in)
	st.logInterval(now)

	var ivUnits int64
	p := int(st.s.ProgressOp)
	if p >= 0 && p < len(st.iv) {
		ivUnits = st.iv[p].units
	}
	for i := range st.iv {
		st.tot[i].merge(&st.iv[i])
		if st.s.Report > 0 {
			st.per[i].merge(&st.iv[i])
		}
		st.iv[i].reset()
	}
	switch {
	case st.warming && periodic && !now.Before(st.warmEnd):
		st.endWarmup(ctx, now)
	case !st.warming || !periodic: // a step that ends in its warm-up has it in its last period
		st.period(now, periodic)
	}
	secs := now.Sub(st.last).Seconds()
	st.last = now
	if periodic && st.r.Progress != nil {
		st.progress(now, secs, ivUnits, recs)
	}
}

// addInterval adds an operation's figures of one interval to x, as intervals.csv holds them:
// the counts add up, and the latencies are o's when it measured any.
func (o *opStats) addInterval(x result.IntervalOp) result.IntervalOp {
	x.Count += o.count
	x.Units += o.units
	x.Errors += o.errors
	if o.svc != nil && o.svc.Count() > 0 {
		x.P50 = measure.Us(o.svc.ValueAtPercentile(50))
		x.P99 = measure.Us(o.svc.ValueAtPercentile(99))
		x.Max = measure.Us(o.svc.Max())
	}
	if o.rt != nil && o.rt.Count() > 0 {
		x.RtP99 = measure.Us(o.rt.ValueAtPercentile(99))
		x.RtMax = measure.Us(o.rt.Max())
	}
	return x
}

// progress reports the step's progress at now to the runner's Progress: ivUnits of the
// progress operation in the last interval, of secs.
func (st *stepStats) progress(now time.Time, secs float64, ivUnits int64, recs []*Recorder) {
	status := Status{Step: st.r.label(st.s.Name), Elapsed: now.Sub(st.start), ExpectUnits: st.s.ExpectUnits,
		Duration: st.s.Duration}
	if p := int(st.s.ProgressOp); p >= 0 && p < len(st.tot) {
		status.Units = st.tot[p].units
	}
	if secs > 0 {
		status.Rate = float64(ivUnits) / secs
	}
	status.ETA = eta(status)
	status.Idle = now.Sub(lastProgress(st.start.UnixNano(), recs))
	st.r.Progress.Tick(status)
}

// period ends the current period at now when it has lasted Step.Report (within half a tick),
// or at the step's end (final tick), and records it. A last period shorter than half of
// Step.Report joins the one before it, so that it does not show a rate made of the few
// operations that ended in a moment.
func (st *stepStats) period(now time.Time, periodic bool) {
	if st.s.Report <= 0 {
		return
	}
	start := st.lastPeriod
	length := now.Sub(start)
	if periodic && length < st.s.Report-st.every/2 || !periodic && length <= 0 {
		return
	}
	if !periodic && length < st.s.Report/2 && len(st.periods) > 0 {
		for i := range st.per {
			st.per[i].merge(&st.prev[i])
		}
		start = st.prevStart
		st.periods = st.periods[:len(st.periods)-1]
	}
	p := result.Period{End: now.Sub(st.start).Seconds(), Seconds: now.Sub(start).Seconds(),
		Ops: make(map[string]result.PeriodOp, len(st.s.Ops))}
	cum := now.Sub(st.measuredFrom()).Seconds() // since the step's measured start
	for i, spec := range st.s.Ops {
		o, t := &st.per[i], &st.tot[i]
		po := result.PeriodOp{Count: o.count, Units: o.units, Errors: o.errors,
			Latency: periodLatency(o.svc), CumUnits: t.units, CumLatency: periodLatency(t.svc)}
		if p.Seconds > 0 {
			po.PerSec = float64(o.units) / p.Seconds
		}
		if cum > 0 {
			po.CumPerSec = float64(t.units) / cum
		}
		p.Ops[spec.Name] = po
	}
	if st.s.OnPeriod != nil {
		st.s.OnPeriod(&p)
	}
	if pp, ok := st.r.Progress.(PeriodProgress); ok {
		pp.Period(st.r.label(st.s.Name), &p)
	}
	st.periods = append(st.periods, p)
	// Keep this period's records, in case the last one joins it.
	st.prev, st.per = st.per, st.prev
	for i := range st.per {
		st.per[i].reset()
	}
	st.prevStart, st.lastPeriod = start, now
}

// periodLatency summarizes h without the distribution buckets and the quartiles, which a
// period does not need.
func periodLatency(h *measure.Histogram) result.Latency {
	l := measure.Summarize(h)
	l.Buckets, l.P25, l.P75 = nil, nil, nil
	return l
}

// sumTotals adds the interval's records of every plain operation to each Total operation.
func (st *stepStats) sumTotals() {
	for t, spec := range st.s.Ops {
		if !spec.Total {
			continue
		}
		for i, o := range st.s.Ops {
			if !o.Total && !o.Background {
				st.iv[t].merge(&st.iv[i])
			}
		}
		st.iv[t].retries = 0 // retries stay with the operation that was retried
	}
}

// eta estimates the time left: from the expected units at the average rate so far, or from
// the step's fixed duration; 0 when unknown.
func eta(s Status) time.Duration {
	switch {
	case s.ExpectUnits > 0:
		if s.Units >= s.ExpectUnits {
			return 0
		}
		if s.Units <= 0 || s.Elapsed <= 0 {
			return 0
		}
		avg := float64(s.Units) / s.Elapsed.Seconds()
		return time.Duration(float64(s.ExpectUnits-s.Units) / avg * 1e9)
	case s.Duration > 0:
		return max(s.Duration-s.Elapsed, 0)
	}
	return 0
}

// openLog opens the step's histogram log (Runner.Histograms), if the runner has one.
func (st *stepStats) openLog(start time.Time) {
	if st.r.Histograms == nil {
		return
	}
	l, err := st.r.Histograms.Step(st.r.Config, st.s.Name, start)
	if err != nil {
		st.logNote = fmt.Sprintf("latency histograms not logged: %v", err)
		return
	}
	st.log = l
}

// logInterval gives the histograms of the interval that ends at now to the step's log; an
// error ends the log.
func (st *stepStats) logInterval(now time.Time) {
	if st.log == nil {
		return
	}
	for i, spec := range st.s.Ops {
		o := &st.iv[i]
		if (o.svc == nil || o.svc.Count() == 0) && (o.rt == nil || o.rt.Count() == 0) {
			continue
		}
		if err := st.log.Interval(spec.Name, st.last, now, o.svc, o.rt); err != nil {
			st.logNote = fmt.Sprintf("latency histograms logged only until %s: %v",
				now.UTC().Format(time.RFC3339), errors.Join(err, st.log.Close()))
			st.log = nil
			return
		}
	}
}

// closeLog closes the step's histogram log and returns the notes on what it could not log.
func (st *stepStats) closeLog() []string {
	if st.log != nil {
		if err := st.log.Close(); err != nil {
			st.logNote = fmt.Sprintf("latency histograms: %v", err)
		}
		st.log = nil
	}
	if st.logNote == "" {
		return nil
	}
	return []string{st.logNote}
}
