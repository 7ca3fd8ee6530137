package iibench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// stepName is iiBench's one step.
const stepName = "run"

// Operations of the run step, in the order of its OpSpecs.
const (
	opInsert runner.Op = iota
	opQuery
)

// Workload is iiBench with its parameters.
type Workload struct {
	p     Params
	hooks *testHooks // nil outside tests
}

// testHooks let a test act at the points of a run where an interrupt must be told from a
// failure: each, when set, is called just before its phase.
type testHooks struct {
	create, verify func()
}

// New returns iiBench for p, which it validates.
func New(p Params) (*Workload, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Workload{p: p}, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return Name }

// Scale implements workload.Workload.
func (w *Workload) Scale() string { return w.p.Scale }

// Params implements workload.Workload.
func (w *Workload) Params() map[string]any { return w.p.ParamMap() }

// Fidelity is the variant the workload runs and when it verifies.
func (w *Workload) Fidelity() workload.Fidelity { return w.p.Fidelity }

// EstimateBytes is a rough upper bound of the data directory size one configuration needs:
// every row with its index entries, twice over for logs and not yet compacted copies. A run
// limited only by time is estimated at 100,000 rows a second. It saturates at math.MaxInt64.
func (w *Workload) EstimateBytes() int64 {
	rows := float64(w.p.totalRows())
	if w.p.MaxRows == 0 {
		rows = w.p.Seconds * 100_000
	}
	perRow := w.p.RowBytes() + 40 + float64(w.p.SecondaryIndexes)*40
	if est := rows * perRow * 2; est < math.MaxInt64 { // float64(MaxInt64) is 2^63
		return int64(est)
	}
	return math.MaxInt64
}

// Clients are the insert threads and then the query threads (insert thread c is client c,
// query thread q client InsertThreads + q): a sharded run splits them over its shards.
func (w *Workload) Clients() int { return w.p.InsertThreads + w.p.QueryThreads }

// TimedSteps implements workload.Timed: the run's one step when --seconds ends it.
func (w *Workload) TimedSteps() []workload.TimedStep {
	if w.p.Seconds <= 0 {
		return nil
	}
	return []workload.TimedStep{{Name: stepName, Duration: workload.Seconds(w.p.Seconds)}}
}

// MemoryLimit implements workload.Capped: the scale preset's memory cap in bytes, 0 for none.
func (w *Workload) MemoryLimit() int64 { return w.p.MemoryLimit }

// run is the state of the benchmark on one engine configuration.
type run struct {
	p   *Params
	env workload.Env
	eng engine.Engine
	be  backend
	// form is how the engine's family holds a row.
	form form
	// inserted counts the rows committed.
	inserted atomic.Int64
	// logs are what each insert thread wrote, for verification; each is its thread's alone
	// until the step has ended.
	logs []insertLog
	// opCtx is the context of engine calls outside the operations (sessions): cancelled on
	// interrupt but not at the normal end of the step. An operation takes its recorder's
	// OpContext, so that the recorder sees the interrupt before the operation's error, which
	// is then none of the engine's.
	opCtx context.Context
	start time.Time // the start of the run: the first dateandtime
	hooks *testHooks
}

// newRun returns the run of w on eng, whose engine calls are cancelled with ctx.
func (w *Workload) newRun(ctx context.Context, env workload.Env, eng engine.Engine) (*run, error) {
	be, err := newBackend(eng, &w.p)
	if err != nil {
		return nil, err
	}
	return &run{p: &w.p, env: env, eng: eng, be: be, form: formOf(eng), opCtx: ctx, logs: make([]insertLog, w.p.InsertThreads),
		hooks: w.hooks}, nil
}

// Run implements workload.Workload: create the table, run, verify.
func (w *Workload) Run(ctx context.Context, env workload.Env, eng engine.Engine, emit func(*result.Step)) error {
	r, err := w.newRun(ctx, env, eng)
	if err != nil {
		return err
	}
	return workload.Emit(emit, r.step(ctx))
}

// The barriers of a sharded run besides the step's own (docs/scale-out.md, Shards): at endStep
// the shards hand each other their insert threads' ledgers once every thread of every shard
// has stopped; at doneStep they meet once each has verified, after which shard 0 drops the
// table.
const (
	endStep  = "run.end"
	doneStep = "run.verified"
)

// step creates the table, runs the insert and query threads, verifies and derives the
// efficiency and cost figures. An error while the run's context is cancelled (Ctrl-C) makes the
// step interrupted, not failed, in every phase. In a sharded run, shard 0 creates the table
// before the step's barrier, the others wait there for it.
func (r *run) step(ctx context.Context) *result.Step {
	started := time.Now()
	if err := r.createAndMeet(ctx); err != nil {
		return workload.SetupFailed(ctx, stepName, started, err)
	}
	p := r.p
	r.start = r.env.Runner.Clock.Now()
	st := r.env.Runner.Run(ctx, r.threads())
	if st.Status == result.StatusOK && p.MaxInsertRate > 0 {
		var achieved float64
		if op := st.Ops["insert"]; op != nil {
			achieved = op.PerSec
		}
		st.Target = runner.SLA(p.MaxInsertRate*float64(p.ownInserters())/float64(p.InsertThreads), achieved)
	}
	ended := r.end(ctx, st)
	verifyStart := time.Now()
	if st.Status == result.StatusOK && p.VerifyAfter(true, true) { // one step: the last
		r.check(ctx, st)
	}
	if ended {
		r.done(ctx, st, time.Since(verifyStart))
	}
	measure.Derive(st, measure.Basis{PerOp: "insert", PerWrite: "insert", BytesPerWrite: r.rowBytes(),
		LiveBytes: float64(r.tableRows()) * r.rowBytes()})
	if p.CostPerHour > 0 {
		st.Cost = stepCost(p.CostPerHour, st)
	}
	return st
}

// threads returns the step of this shard's insert and query threads.
func (r *run) threads() runner.Step {
	p := r.p
	s := runner.Step{Name: stepName, Primary: "insert", Ops: []runner.OpSpec{{Name: "insert"}, {Name: "query"}},
		ProgressOp: opInsert,
		Duration:   time.Duration(p.Seconds * float64(time.Second)),
		Report:     time.Duration(p.ReportSeconds * float64(time.Second)),
		OnPeriod:   func(per *result.Period) { per.Rows = r.inserted.Load() }}
	for c := 0; c < p.InsertThreads; c++ {
		if !p.owns(c) {
			continue
		}
		rows := p.threadRows(c)
		s.ExpectUnits += rows
		s.Workers = append(s.Workers, runner.Worker{Client: c, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.inserter(ctx, rec, c, rows)
		}})
	}
	idx := p.Indexes()
	for q := 0; q < p.QueryThreads; q++ {
		if !p.owns(p.InsertThreads + q) {
			continue
		}
		s.Workers = append(s.Workers, runner.Worker{Client: p.InsertThreads + q, Background: true,
			Run: func(ctx context.Context, rec *runner.Recorder) error {
				return r.querier(ctx, rec, q, idx[q%len(idx)])
			}})
	}
	return s
}

// createAndMeet creates the table (shard 0 of a sharded run only) and waits at the step's
// barrier (Env.Meet) for the other shards or the run's start time. A shard 0 that cannot
// create the table tells the others it will not come.
func (r *run) createAndMeet(ctx context.Context) error {
	if h := r.hooks; h != nil && h.create != nil {
		h.create()
	}
	if r.p.Shard.Leader() {
		if err := r.create(ctx); err != nil {
			r.env.Leave(stepName)
			return err
		}
	}
	return r.env.Meet(ctx, stepName, 0)
}

// end is the end barrier of a sharded run: when the shard's threads ended ok it hands their
// ledgers to the others and takes theirs (ledger.go), so that it verifies every row of the
// table; else it tells the others it will not come. The others' threads, which may end later
// (a row limit), are given as long again as this shard's step took beyond the shard timeout.
// It reports whether every shard arrived; a barrier that fails fails st.
func (r *run) end(ctx context.Context, st *result.Step) bool {
	if !r.p.Shard.Sharded() {
		return false
	}
	if st.Status != result.StatusOK {
		r.env.Leave(endStep)
		return false
	}
	all, err := r.env.Share(ctx, endStep, r.ledger(), stepTime(st))
	if err == nil {
		err = r.adopt(all)
	}
	if err != nil {
		stopped(ctx, st, err)
		return false
	}
	return true
}

// done is the last barrier of a sharded run: the shards meet once each has verified, so that
// shard 0, which drops the table, never drops it under another's verification. Another
// shard's verification is given as long again as took (the same table, read at the same
// time) beyond the shard timeout. A barrier that fails fails st when it was ok.
func (r *run) done(ctx context.Context, st *result.Step, took time.Duration) {
	if ctx.Err() != nil {
		r.env.Leave(doneStep)
		return
	}
	if err := r.env.Meet(ctx, doneStep, took); err != nil && st.Status == result.StatusOK {
		stopped(ctx, st, err)
	}
}

// create creates the table, watched for stalls (env.Watch): the error is a
// *runner.StallError when a frozen server held it for the stall limit.
func (r *run) create(ctx context.Context) error {
	ph := r.env.Watch(ctx, r.eng, "creating the table", false)
	defer ph.Stop()
	return ph.Err(r.be.create(ph.Ctx))
}

// stopped ends st with err: interrupted when the run's context is cancelled (err is then its
// consequence, whatever the driver made of it), else failed.
func stopped(ctx context.Context, st *result.Step, err error) *result.Step {
	if ctx.Err() != nil {
		st.Status, st.Error = result.StatusInterrupted, "interrupted"
		return st
	}
	st.Status, st.Error = result.StatusFailed, err.Error()
	return st
}

// check verifies the table after the run into st: a failed verification fails the step, as
// does one that stalled (with the stall's error), an interrupted one interrupts it.
func (r *run) check(ctx context.Context, st *result.Step) {
	if h := r.hooks; h != nil && h.verify != nil {
		h.verify()
	}
	v, err := r.verify(ctx)
	switch {
	case ctx.Err() != nil:
		stopped(ctx, st, err)
	case isStall(err):
		st.Status, st.Error = result.StatusFailed, err.Error()
	case err != nil:
		st.Verify = &result.Verify{OK: false, Detail: err.Error()}
		st.Status, st.Error = result.StatusFailed, "verification failed: "+err.Error()
	case v != nil:
		st.Verify = v
		if !v.OK {
			st.Status, st.Error = result.StatusFailed, "verification failed: "+v.Detail
		}
	}
}

// isStall reports whether err is the stall watchdog's.
func isStall(err error) bool {
	var se *runner.StallError
	return errors.As(err, &se)
}

// stepCost is what st cost at perHour a machine hour (see Cost).
func stepCost(perHour float64, st *result.Step) *result.Cost {
	var rows int64
	if op := st.Ops["insert"]; op != nil {
		rows = op.Units
	}
	c := &result.Cost{PerHour: perHour}
	run, per, ok := Cost(perHour, st.Seconds, rows)
	c.Run = run
	if ok {
		c.PerBillionInserts = &per
	}
	return c
}

// threadRows returns the rows insert thread c inserts: its share of MaxRows (0: no row limit),
// whole batches in the reference variant, as the reference's.
func (p *Params) threadRows(c int) int64 {
	if p.MaxRows == 0 {
		return 0
	}
	rows := share(p.MaxRows, p.InsertThreads, c)
	if !p.Corrected() {
		rows = (rows + int64(p.InsertBatch) - 1) / int64(p.InsertBatch) * int64(p.InsertBatch)
	}
	return rows
}

// totalRows returns the rows the insert threads insert in all (0: no row limit).
func (p *Params) totalRows() int64 {
	var n int64
	for c := 0; c < p.InsertThreads; c++ {
		n += p.threadRows(c)
	}
	return n
}

// share returns client c's part of total split over n clients.
func share(total int64, n, c int) int64 {
	s := total / int64(n)
	if int64(c) < total%int64(n) {
		s++
	}
	return s
}

// session opens a session or wraps its error.
func (r *run) session() (session, error) {
	s, err := r.be.newSession(r.opCtx)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return s, nil
}

// inserter inserts rows rows (0: until the run ends) in batches of InsertBatch, each batch one
// transaction, as fast as it can, or open loop at MaxInsertRate/InsertThreads rows a second
// when a rate is set (pacer). It logs each batch for verification.
func (r *run) inserter(ctx context.Context, rec *runner.Recorder, c int, rows int64) error {
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	p := r.p
	gen := NewGen(p, p.Seed, uint64(c))
	written := &r.logs[c]
	pace := r.pacer(rec.Now(), c)
	for done := int64(0); rows == 0 || done < rows; {
		n := p.InsertBatch
		if rows > 0 {
			n = int(min(int64(n), rows-done))
		}
		var intended time.Time
		if pace != nil {
			if intended, err = pace.Next(ctx); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		t := r.batchTime(rec.Now(), done)
		written.made(gen.Next(), t)
		batch := gen.Batch(n, t)
		if err := r.do(ctx, rec, opInsert, intended, func() (int64, error) {
			return int64(n), sess.insert(rec.OpContext(), batch)
		}); err != nil {
			return err
		}
		written.rows += int64(n)
		r.inserted.Add(int64(n))
		done += int64(n)
	}
	return nil
}

// pacer returns the schedule of insert thread c under MaxInsertRate, from start: open loop, a
// batch due every InsertBatch / (MaxInsertRate / InsertThreads) seconds, thread c's schedule
// moved c / InsertThreads of that interval on, so that the threads' batches are evenly spaced.
// A thread that falls behind makes the batches it missed back to back, and their response
// times, from when each was due, include the wait. nil without a rate.
func (r *run) pacer(start time.Time, c int) *runner.Pacer {
	p := r.p
	if p.MaxInsertRate <= 0 {
		return nil
	}
	perSec := p.MaxInsertRate / float64(p.InsertThreads) / float64(p.InsertBatch)
	offset := time.Duration(float64(c) / float64(p.InsertThreads) / perSec * float64(time.Second))
	return runner.NewPacer(r.clock(), start.Add(offset), perSec)
}

// batchTime is the dateandtime of a batch made at now by an inserter that made done rows
// before it: now in the corrected variant; in the reference variant a second later for every
// rowsPerSecond rows, as the reference's, truncated to the second. On the document family it
// is now in milliseconds in both variants, as the Java client's (jmongoiibench.java:352).
func (r *run) batchTime(now time.Time, done int64) int64 {
	if r.form.doc {
		return now.UnixMilli()
	}
	if r.p.Corrected() {
		return now.Unix()
	}
	return int64(math.Floor(float64(now.UnixNano())/1e9 + float64(done)/rowsPerSecond))
}

// rowBytes is the logical size of one row as the engine's family holds it: Params.RowBytes, and
// on the document family the Java client's document: _id (12 bytes), dateandtime and price (8
// each), the three int32 fields (4 each) and the padding fields.
func (r *run) rowBytes() float64 {
	if r.form.doc {
		return 40 + float64(r.p.CharFields*r.p.CharLength)
	}
	return r.p.RowBytes()
}

// stepTime returns how long st ran.
func stepTime(st *result.Step) time.Duration { return time.Duration(st.Seconds * float64(time.Second)) }

// runRows is the run's row count as the query threads know it: the rows committed, in a
// sharded run the rows this shard's insert threads committed scaled to all the run's insert
// threads (they insert at the same pace), since a shard does not see the others' counts.
func (r *run) runRows() int64 {
	n := r.inserted.Load()
	if own := r.p.ownInserters(); r.p.Shard.Sharded() && own > 0 {
		n = n * int64(r.p.InsertThreads) / int64(own)
	}
	return n
}

// tableRows returns the rows the table holds by the insert threads' ledgers: every thread's
// once the shards of a sharded run have shared theirs, else this process's.
func (r *run) tableRows() int64 {
	var n int64
	for i := range r.logs {
		n += r.logs[i].rows
	}
	return n
}

// queryWait is how often a query thread looks whether enough rows exist to start.
const queryWait = 10 * time.Millisecond

// querier repeats the query of index idx from random seek points until the run ends, once
// QueryAfterRows rows exist.
func (r *run) querier(ctx context.Context, rec *runner.Recorder, q, idx int) error {
	for r.runRows() < r.p.QueryAfterRows {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(queryWait):
		}
	}
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	sk := newSeeker(r.p, r.form, 1<<32+uint64(q), r.start) // apart from the insert threads' streams
	out := make([]Key, 0, r.p.QueryLimit)
	for ctx.Err() == nil {
		k := sk.next(idx, r.runRows(), rec.Now())
		if err := r.do(ctx, rec, opQuery, time.Time{}, func() (int64, error) {
			out, err = sess.query(rec.OpContext(), idx, k, r.p.QueryLimit, out)
			return 1, err
		}); err != nil {
			return err
		}
		rec.Found(opQuery, int64(len(out)))
	}
	return ctx.Err()
}
