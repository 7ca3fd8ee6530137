package iibench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
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
	p Params
}

// New returns iiBench for p, which it validates.
func New(p Params) (*Workload, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Workload{p: p}, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "iibench" }

// Scale implements workload.Workload.
func (w *Workload) Scale() string { return w.p.Scale }

// Params implements workload.Workload.
func (w *Workload) Params() map[string]any { return w.p.ParamMap() }

// Fidelity is the variant the workload runs and when it verifies.
func (w *Workload) Fidelity() workload.Fidelity { return w.p.Fidelity }

// EstimateBytes is a rough upper bound of the data directory size one configuration needs:
// every row with its index entries, twice over for logs and not yet compacted copies. A run
// limited only by time is estimated at 100,000 rows a second.
func (w *Workload) EstimateBytes() int64 {
	rows := w.p.MaxRows
	if rows == 0 {
		rows = int64(w.p.Seconds * 100_000)
	}
	perRow := w.p.RowBytes() + 40 + float64(w.p.SecondaryIndexes)*40
	return int64(float64(rows) * perRow * 2)
}

// run is the state of the benchmark on one engine configuration.
type run struct {
	p   *Params
	env workload.Env
	eng engine.Engine
	be  backend
	// inserted counts the rows committed.
	inserted atomic.Int64
	// opCtx is the context of engine calls: cancelled on interrupt but not at the normal end
	// of the step, so that an operation in flight then completes and is not an error.
	opCtx context.Context
	start time.Time // the start of the run: the first dateandtime
}

// Run implements workload.Workload: create the table, run, verify.
func (w *Workload) Run(ctx context.Context, env workload.Env, eng engine.Engine, emit func(*result.Step)) error {
	be, err := newBackend(eng, &w.p)
	if err != nil {
		return err
	}
	r := &run{p: &w.p, env: env, eng: eng, be: be, opCtx: ctx}
	st := r.step(ctx)
	emit(st)
	switch st.Status {
	case result.StatusOK:
		return nil
	case result.StatusInterrupted:
		return context.Canceled
	}
	return fmt.Errorf("step %s failed: %s", stepName, st.Error)
}

// step creates the table, runs the insert and query threads, verifies and derives the
// efficiency and cost figures.
func (r *run) step(ctx context.Context) *result.Step {
	started := time.Now()
	if err := r.be.create(ctx); err != nil {
		return &result.Step{Name: stepName, Status: result.StatusFailed, Error: err.Error(), StartedAt: started}
	}
	p := r.p
	r.start = r.env.Runner.Clock.Now()
	s := runner.Step{Name: stepName, Ops: []runner.OpSpec{{Name: "insert"}, {Name: "query"}},
		ExpectUnits: p.MaxRows, ProgressOp: opInsert,
		Duration: time.Duration(p.Seconds * float64(time.Second)),
		Report:   time.Duration(p.ReportSeconds * float64(time.Second)),
		OnPeriod: func(per *result.Period) { per.Rows = r.inserted.Load() }}
	for c := 0; c < p.InsertThreads; c++ {
		rows := int64(0)
		if p.MaxRows > 0 {
			rows = share(p.MaxRows, p.InsertThreads, c)
			if !p.Corrected() { // whole batches, as the reference's
				rows = (rows + int64(p.InsertBatch) - 1) / int64(p.InsertBatch) * int64(p.InsertBatch)
			}
		}
		s.Workers = append(s.Workers, runner.Worker{Client: c, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.inserter(ctx, rec, c, rows)
		}})
	}
	idx := p.Indexes()
	for q := 0; q < p.QueryThreads; q++ {
		s.Workers = append(s.Workers, runner.Worker{Client: p.InsertThreads + q, Background: true,
			Run: func(ctx context.Context, rec *runner.Recorder) error {
				return r.querier(ctx, rec, q, idx[q%len(idx)])
			}})
	}
	st := r.env.Runner.Run(ctx, s)
	st.Primary = "insert"
	if st.Status == result.StatusOK && p.VerifyAfter(true, true) { // one step: the last
		st.Verify = r.verify(ctx)
		if st.Verify != nil && !st.Verify.OK {
			st.Status = result.StatusFailed
			st.Error = "verification failed: " + st.Verify.Detail
		}
	}
	measure.Derive(st, measure.Basis{PerOp: "insert", PerWrite: "insert", BytesPerWrite: p.RowBytes(),
		LiveBytes: float64(r.inserted.Load()) * p.RowBytes()})
	if p.CostPerHour > 0 {
		st.Cost = stepCost(p.CostPerHour, st)
	}
	return st
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

// do runs fn as op through rec, retrying transient conflicts (counted) until the run ends.
func (r *run) do(rec *runner.Recorder, op runner.Op, fn func() (int64, error)) error {
	return rec.Do(op, time.Time{}, func() (int64, error) {
		backoff := time.Millisecond
		for {
			n, err := fn()
			if err == nil || !r.be.retryable(err) || r.opCtx.Err() != nil {
				return n, err
			}
			rec.Retried(op)
			time.Sleep(backoff)
			backoff = min(2*backoff, 200*time.Millisecond)
		}
	})
}

// inserter inserts rows rows (0: until the run ends) in batches of InsertBatch, each batch one
// transaction, at most MaxInsertRate/InsertThreads rows a second when a rate is set: batches
// are then at least InsertBatch/rate seconds apart, never in bursts.
func (r *run) inserter(ctx context.Context, rec *runner.Recorder, c int, rows int64) error {
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	p := r.p
	gen := NewGen(p, p.Seed, uint64(c))
	var limit *runner.Pacer
	if p.MaxInsertRate > 0 {
		perBatch := p.MaxInsertRate / float64(p.InsertThreads) / float64(p.InsertBatch)
		limit = runner.NewLimiter(r.env.Runner.Clock, rec.Now(), perBatch)
	}
	for done := int64(0); rows == 0 || done < rows; {
		n := p.InsertBatch
		if rows > 0 {
			n = int(min(int64(n), rows-done))
		}
		if limit != nil {
			if _, err := limit.Next(ctx); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		batch := gen.Batch(n, r.batchTime(rec.Now(), done))
		if err := r.do(rec, opInsert, func() (int64, error) {
			return int64(n), sess.insert(r.opCtx, batch)
		}); err != nil {
			return err
		}
		r.inserted.Add(int64(n))
		done += int64(n)
	}
	return nil
}

// batchTime is the dateandtime of a batch made at now by an inserter that made done rows
// before it: now in the corrected variant; in the reference variant a second later for every
// rowsPerSecond rows, as the reference's, truncated to the second.
func (r *run) batchTime(now time.Time, done int64) int64 {
	if r.p.Corrected() {
		return now.Unix()
	}
	return int64(math.Floor(float64(now.UnixNano())/1e9 + float64(done)/rowsPerSecond))
}

// queryWait is how often a query thread looks whether enough rows exist to start.
const queryWait = 10 * time.Millisecond

// querier repeats the query of index idx from random seek points until the run ends, once
// QueryAfterRows rows exist.
func (r *run) querier(ctx context.Context, rec *runner.Recorder, q, idx int) error {
	for r.inserted.Load() < r.p.QueryAfterRows {
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
	sk := newSeeker(r.p, 1<<32+uint64(q), r.start) // apart from the insert threads' streams
	out := make([]Key, 0, r.p.QueryLimit)
	for ctx.Err() == nil {
		k := sk.next(idx, r.inserted.Load(), rec.Now())
		if err := r.do(rec, opQuery, func() (int64, error) {
			out, err = sess.query(r.opCtx, idx, k, r.p.QueryLimit, out)
			return 1, err
		}); err != nil {
			return err
		}
		rec.Found(opQuery, int64(len(out)))
	}
	return ctx.Err()
}

// verify counts the table through its primary key and each secondary index: every count must
// equal the rows inserted.
func (r *run) verify(ctx context.Context) *result.Verify {
	if d, ok := r.eng.(engine.Discarder); ok && d.Discards() {
		return nil
	}
	want := r.inserted.Load()
	ok := true
	parts := []string{}
	for _, idx := range r.p.Indexes() {
		n, err := r.be.count(ctx, idx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return &result.Verify{OK: false, Detail: err.Error()}
		}
		if n != want {
			ok = false
		}
		parts = append(parts, fmt.Sprintf("%s=%d", indexes[idx].name, n))
	}
	return &result.Verify{OK: ok, Detail: fmt.Sprintf("%s: expected %d, %s", tableName, want, strings.Join(parts, " "))}
}
