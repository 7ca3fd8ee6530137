package insertbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// Workload is the Insert Benchmark with its parameters.
type Workload struct {
	p Params
}

// New returns the Insert Benchmark for validated parameters.
func New(p Params) (*Workload, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Workload{p: p}, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "insert" }

// Scale implements workload.Workload.
func (w *Workload) Scale() string { return w.p.Scale }

// Params implements workload.Workload.
func (w *Workload) Params() map[string]any { return w.p.ParamMap() }

// Fidelity is the variant the workload runs and when it verifies.
func (w *Workload) Fidelity() workload.Fidelity { return w.p.Fidelity }

// EstimateBytes is a rough upper bound of the data directory size one configuration needs.
func (w *Workload) EstimateBytes() int64 {
	rows := w.p.Rows + w.p.RowsI1 + w.p.RowsI2 // deleted rows still take space until compaction
	return rows * int64(w.p.Tables()) * int64(120+w.p.DataMax)
}

// run is the state of the benchmark on one engine configuration.
type run struct {
	p      *Params
	env    workload.Env
	eng    engine.Engine
	be     backend
	tables []*table
	// opCtx is the context of engine calls: cancelled on interrupt but not at the normal end
	// of a fixed-duration step, so an operation in flight then completes and is not an error.
	opCtx context.Context
	// stepName is the step that is running, for messages.
	stepName string
}

// Run implements workload.Workload: every selected step in order; it stops at the first step
// that does not end ok.
func (w *Workload) Run(ctx context.Context, env workload.Env, eng engine.Engine, emit func(*result.Step)) error {
	be, err := newBackend(eng, &w.p)
	if err != nil {
		return err
	}
	r := &run{p: &w.p, env: env, eng: eng, be: be, opCtx: ctx}
	for i := 0; i < w.p.Tables(); i++ {
		r.tables = append(r.tables, &table{name: fmt.Sprintf("pi%d", i+1), no: i + 1})
	}
	for _, name := range w.p.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := r.step(ctx, name)
		emit(st)
		switch st.Status {
		case result.StatusOK, result.StatusSkipped:
		case result.StatusInterrupted:
			return context.Canceled
		default:
			return fmt.Errorf("step %s failed: %s", name, st.Error)
		}
	}
	return nil
}

// failed returns a failed step result for an error outside the runner.
func failed(name string, start time.Time, err error) *result.Step {
	return &result.Step{Name: name, Status: result.StatusFailed, Error: err.Error(), StartedAt: start}
}

// step runs one step: probe, the step itself, verification and engine stats.
func (r *run) step(ctx context.Context, name string) *result.Step {
	start := time.Now()
	r.stepName = name
	var probe *result.Probe
	if name != "l.i0" {
		var err error
		if probe, err = r.probe(ctx); err != nil {
			return failed(name, start, err)
		}
	}
	var (
		st  *result.Step
		err error
	)
	switch name {
	case "l.i0":
		st, err = r.load(ctx)
	case "l.x":
		st = r.env.Runner.Run(ctx, r.createIndexes())
	case "l.i1":
		st = r.env.Runner.Run(ctx, r.insertDelete(name, r.p.RowsI1, r.p.BatchI1))
	case "l.i2":
		st = r.env.Runner.Run(ctx, r.insertDelete(name, r.p.RowsI2, r.p.BatchI2))
	case "cleanup":
		st = r.cleanup(ctx)
	case "scan":
		st = r.scan(ctx)
	default:
		st = r.query(ctx, name)
	}
	if err != nil {
		return failed(name, start, err)
	}
	st.Primary = primaryOp(name)
	st.Probe = probe
	if st.Status == result.StatusOK && writes(name) {
		st.Verify = r.verify(ctx)
		if st.Verify != nil && !st.Verify.OK {
			st.Status = result.StatusFailed
			st.Error = "verification failed: " + st.Verify.Detail
		}
	}
	measure.Derive(st, r.basis(name))
	return st
}

// basis says what a step's resource use is divided by: its headline op, and rows inserted for
// writes in the steps that insert (in the query steps, by the background writers).
func (r *run) basis(step string) measure.Basis {
	b := measure.Basis{PerOp: primaryOp(step)}
	if b.PerOp == "" {
		return b
	}
	var live int64
	for _, t := range r.tables {
		live += t.live()
	}
	b.LiveBytes = float64(live) * r.p.RowBytes()
	if strings.HasPrefix(step, "l.i") || strings.HasPrefix(step, "q") {
		b.PerWrite = "insert"
		b.BytesPerWrite = r.p.RowBytes()
	}
	return b
}

// primaryOp names the op whose rate is a step's headline: ips for the l.* steps (l.x: rows
// indexed), rows read for scan, qps for the query steps; cleanup has none.
func primaryOp(step string) string {
	switch {
	case step == "l.x":
		return "index"
	case step == "scan":
		return "scan"
	case step == "cleanup":
		return ""
	case strings.HasPrefix(step, "q"):
		return "query"
	}
	return "insert"
}

// writes reports whether a step changes data and so is verified after it.
func writes(step string) bool { return step != "cleanup" && step != "scan" }

// probeNotice is how long the min(transactionid) probe of one table may take before the run
// says that it is waiting for it.
const probeNotice = 5 * time.Second

// probe times SELECT min(transactionid) on every table (the MVCC-debt probe) and resyncs the
// deleters' estimates.
func (r *run) probe(ctx context.Context) (*result.Probe, error) {
	p := &result.Probe{}
	for _, t := range r.tables {
		t0 := time.Now()
		// The probe can take minutes where purge or vacuum lags: say so while it runs.
		slow := time.AfterFunc(probeNotice, func() {
			fmt.Fprintf(r.env.Log, "%s: SELECT min(transactionid) on %s is taking more than %v (MVCC debt: purge or vacuum lag)\n",
				r.stepName, t.name, probeNotice)
		})
		min, ok, err := r.be.minID(ctx, t)
		secs := time.Since(t0).Seconds()
		if !slow.Stop() {
			fmt.Fprintf(r.env.Log, "%s: SELECT min(transactionid) on %s took %.1fs\n", r.stepName, t.name, secs)
		}
		if err != nil {
			return nil, fmt.Errorf("min(transactionid) probe: %w", err)
		}
		if !ok {
			min = t.maxID.Load() + 1
		}
		t.low.Store(min)
		p.Tables = append(p.Tables, secs)
		p.MinTrxIDSeconds = max(p.MinTrxIDSeconds, secs)
	}
	return p, nil
}

// share returns client c's part of total split over n clients.
func share(total int64, n, c int) int64 {
	s := total / int64(n)
	if int64(c) < total%int64(n) {
		s++
	}
	return s
}

// tableOf returns the table of client c.
func (r *run) tableOf(c int) *table {
	if r.p.SharedTable {
		return r.tables[0]
	}
	return r.tables[c]
}

// rowsOf returns how many rows client c inserts of a per-table size.
func (r *run) rowsOf(perTable int64, c int) int64 {
	if r.p.SharedTable {
		return share(perTable, r.p.Clients, c)
	}
	return perTable
}

// load is l.i0: create the tables, then insert in primary-key order with no secondary index.
func (r *run) load(ctx context.Context) (*result.Step, error) {
	for _, t := range r.tables {
		if err := r.be.createTable(ctx, t); err != nil {
			return nil, err
		}
	}
	s := runner.Step{Name: "l.i0", Ops: []runner.OpSpec{{Name: "insert"}},
		ExpectUnits: r.p.Rows * int64(r.p.Tables())}
	for c := 0; c < r.p.Clients; c++ {
		c := c
		t, rows := r.tableOf(c), r.rowsOf(r.p.Rows, c)
		s.Workers = append(s.Workers, runner.Worker{Client: c, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.inserter(ctx, rec, "l.i0", c, t, rows, r.p.BatchI0, 0, 0, 0, nil)
		}})
	}
	return r.env.Runner.Run(ctx, s), nil
}

// session opens a session or wraps its error.
func (r *run) session() (session, error) {
	s, err := r.be.newSession(r.opCtx)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return s, nil
}

// token passes one inserted batch from an inserter to its deleter.
type token struct {
	n        int
	intended time.Time
}

// do runs fn as op through rec, retrying transient conflicts (counted) until ctx ends.
func (r *run) do(rec *runner.Recorder, op runner.Op, intended time.Time, fn func() (int64, error)) error {
	return rec.Do(op, intended, func() (int64, error) {
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

// inserter inserts rows rows (0: until ctx ends) in batches of batch into t, at perSec rows a
// second when perSec > 0 (open loop). Each batch is announced to the deleter through tokens
// (nil: no deleter), which is then closed.
//
// A paced inserter schedules no batch at or after span from its start (when span > 0), so the
// achieved rate of a fixed-duration step is not inflated by a batch due exactly at its end.
func (r *run) inserter(ctx context.Context, rec *runner.Recorder, step string, c int, t *table,
	rows int64, batch int, perSec float64, span time.Duration, op runner.Op, tokens chan<- token) error {
	if tokens != nil {
		defer close(tokens)
	}
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	gen := NewGen(r.p, r.p.Seed, streamOf(step, c, 0))
	var (
		pacer *runner.Pacer
		until time.Time
	)
	if perSec > 0 {
		start := rec.Now()
		pacer = runner.NewPacer(r.env.Runner.Clock, start, perSec/float64(batch))
		if span > 0 {
			until = start.Add(span)
		}
	}
	for done := int64(0); rows == 0 || done < rows; {
		n := batch
		if rows > 0 {
			n = int(min(int64(batch), rows-done))
		}
		var intended time.Time
		if pacer != nil {
			if intended, err = pacer.Next(ctx); err != nil {
				return err
			}
			if !until.IsZero() && !intended.Before(until) {
				return nil
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		batchRows := gen.Batch(n, rec.Now().Unix())
		if tokens != nil {
			select {
			case tokens <- token{n: n, intended: intended}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := r.do(rec, op, intended, func() (int64, error) {
			return int64(n), sess.insert(r.opCtx, t, batchRows)
		}); err != nil {
			return err
		}
		done += int64(n)
	}
	return nil
}

// deleter deletes, for every batch announced on tokens, as many of t's oldest rows, resyncing
// its estimate of the smallest transactionid every Resync batches, as the reference does.
func (r *run) deleter(ctx context.Context, rec *runner.Recorder, t *table, op runner.Op, tokens <-chan token) error {
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	for batches := 1; ; batches++ {
		var tok token
		var ok bool
		select {
		case tok, ok = <-tokens:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			return nil
		}
		low := t.claimDelete(tok.n)
		if err := r.do(rec, op, tok.intended, func() (int64, error) {
			d, err := sess.deleteOldest(r.opCtx, t, low, tok.n)
			t.deleted.Add(d)
			return d, err
		}); err != nil {
			return err
		}
		if batches%r.p.Resync == 0 {
			min, ok, err := r.be.minID(r.opCtx, t)
			if err != nil {
				return err
			}
			if ok {
				t.resync(min)
			}
		}
	}
}

// writerPair returns an inserter and its deleter for client c.
func (r *run) writerPair(step string, c int, t *table, rows int64, batch int, perSec float64, span time.Duration, bg bool) []runner.Worker {
	tokens := make(chan token, 8) // the reference's statement queues hold 8
	return []runner.Worker{
		{Client: c, Background: bg, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.inserter(ctx, rec, step, c, t, rows, batch, perSec, span, 0, tokens)
		}},
		{Client: c, Background: bg, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.deleter(ctx, rec, t, 1, tokens)
		}},
	}
}

// insertDelete is l.i1 and l.i2: each client inserts and deletes side by side, so each table
// stays the same size.
func (r *run) insertDelete(name string, rowsPerTable int64, batch int) runner.Step {
	s := runner.Step{Name: name, Ops: []runner.OpSpec{{Name: "insert"}, {Name: "delete"}},
		ExpectUnits: rowsPerTable * int64(r.p.Tables())}
	for c := 0; c < r.p.Clients; c++ {
		s.Workers = append(s.Workers, r.writerPair(name, c, r.tableOf(c), r.rowsOf(rowsPerTable, c), batch, 0, 0, false)...)
	}
	return s
}

// createIndexes is l.x: the three secondary indexes of each table, one client per table.
func (r *run) createIndexes() runner.Step {
	s := runner.Step{Name: "l.x", Ops: []runner.OpSpec{{Name: "index"}}}
	for i, t := range r.tables {
		t := t
		s.ExpectUnits += t.live()
		s.Workers = append(s.Workers, runner.Worker{Client: i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			sess, err := r.session()
			if err != nil {
				return err
			}
			defer sess.close()
			return r.do(rec, 0, time.Time{}, func() (int64, error) {
				return sess.createIndexes(r.opCtx, t)
			})
		}})
	}
	return s
}

// cleanup reduces the engine's debt (analyze, vacuum, flush, compaction, checkpoint) before the
// read steps, as the reference does for the engine, then waits until p.CleanupWaitSeconds after
// the step's start (cleanup.go). The step's notes say what it did.
func (r *run) cleanup(ctx context.Context) *result.Step {
	c, ok := r.eng.(engine.Cleaner)
	if !ok {
		return &result.Step{Name: "cleanup", Status: result.StatusSkipped, StartedAt: time.Now(),
			Error: "the engine has no cleanup"}
	}
	var before map[string]float64
	if s, ok := r.eng.(engine.Statser); ok {
		before, _ = s.Stats(ctx) // the debt before; after is the step's engine_stats
	}
	cr := newCleanupRun(r.p, r.env.Runner.Clock)
	st := r.env.Runner.Run(ctx, runner.Step{Name: "cleanup", Ops: []runner.OpSpec{{Name: "cleanup"}},
		Workers: []runner.Worker{{Run: func(ctx context.Context, rec *runner.Recorder) error {
			return rec.Do(0, time.Time{}, func() (int64, error) { return 1, cr.run(r.opCtx, c) })
		}}}})
	st.EngineStatsBefore = before
	st.Notes = cr.notes
	return st
}

// scanOrder is the scan step's order: the primary key, each secondary index, the primary key again.
var scanOrder = []int{idxPK, idxMarket, idxRegister, idxPDC, idxPK}

// scan reads every index of every table in full, one client per table, and reports each index
// as a phase (seconds: the slowest table's; rows: all tables').
func (r *run) scan(ctx context.Context) *result.Step {
	phases := make([]result.Phase, len(scanOrder))
	for i, idx := range scanOrder {
		phases[i].Name = indexNames[idx]
	}
	phases[len(phases)-1].Name = "pk2"
	var mu sync.Mutex // guards phases: taken once per index and table, not per row
	s := runner.Step{Name: "scan", Ops: []runner.OpSpec{{Name: "scan"}}}
	for i, t := range r.tables {
		t := t
		s.Workers = append(s.Workers, runner.Worker{Client: i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			for pi, idx := range scanOrder {
				if idx != idxPK && !t.indexed.Load() {
					continue
				}
				t0 := time.Now()
				var n int64
				if err := r.do(rec, 0, time.Time{}, func() (int64, error) {
					var err error
					n, err = r.be.count(r.opCtx, t, idx)
					return n, err
				}); err != nil {
					return err
				}
				secs := time.Since(t0).Seconds()
				mu.Lock()
				phases[pi].Rows += n
				phases[pi].Seconds = max(phases[pi].Seconds, secs)
				mu.Unlock()
			}
			return nil
		}})
	}
	st := r.env.Runner.Run(ctx, s)
	for i := range phases {
		if phases[i].Seconds > 0 {
			phases[i].PerSec = float64(phases[i].Rows) / phases[i].Seconds
			st.Phases = append(st.Phases, phases[i])
		}
	}
	return st
}

// query is qrN and qpN: one query client per client runs range (qr) or point (qp) queries as
// fast as it can for QuerySeconds while a background writer per table inserts and deletes N
// rows a second, open loop.
func (r *run) query(ctx context.Context, name string) *result.Step {
	rate := float64(queryRate(name))
	s := runner.Step{Name: name, Duration: time.Duration(r.p.QuerySeconds * float64(time.Second)),
		Ops:        []runner.OpSpec{{Name: "insert", Background: true}, {Name: "delete", Background: true}, {Name: "query"}},
		ProgressOp: 2}
	for i, t := range r.tables {
		s.Workers = append(s.Workers, r.writerPair(name, i, t, 0, r.p.BatchQ, rate, s.Duration, true)...)
	}
	for c := 0; c < r.p.Clients; c++ {
		c, t := c, r.tableOf(c)
		point := strings.HasPrefix(name, "qp")
		s.Workers = append(s.Workers, runner.Worker{Client: c, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.querier(ctx, rec, name, c, t, point)
		}})
	}
	st := r.env.Runner.Run(ctx, s)
	if st.Status != result.StatusOK {
		return st
	}
	target := rate * float64(len(r.tables))
	var achieved, deleted float64
	if op := st.Ops["insert"]; op != nil {
		achieved = op.PerSec
	}
	if op := st.Ops["delete"]; op != nil {
		deleted = op.PerSec
	}
	st.Target = runner.SLA(target, achieved)
	st.Target.DeletesPerSec = target
	st.Target.AchievedDeletesPerSec = deleted
	return st
}

// querier runs queries on t until ctx ends: range queries on a secondary index chosen at
// random from a start uniform in its first column's domain, or PointIDs primary-key lookups
// uniform in the table's live range.
func (r *run) querier(ctx context.Context, rec *runner.Recorder, step string, c int, t *table, point bool) error {
	sess, err := r.session()
	if err != nil {
		return err
	}
	defer sess.close()
	rng := NewGen(r.p, r.p.Seed, streamOf(step, c, 2)).Rand()
	domains := [numIndexes]int64{0, int64(r.p.Products), int64(r.p.CashRegs), int64(r.p.MaxPrice)}
	ids := make([]int64, r.p.PointIDs)
	const op = 2
	for ctx.Err() == nil {
		var found int
		if point {
			lo, hi := t.low.Load(), t.maxID.Load()
			for i := range ids {
				ids[i] = lo + rng.Int64N(max(hi-lo+1, 1))
			}
			err = r.do(rec, op, time.Time{}, func() (int64, error) {
				var err error
				found, err = sess.pointQuery(r.opCtx, t, ids)
				return 1, err
			})
		} else {
			idx := 1 + rng.IntN(3)
			start := rng.Int64N(domains[idx])
			err = r.do(rec, op, time.Time{}, func() (int64, error) {
				var err error
				found, err = sess.rangeQuery(r.opCtx, t, idx, start, r.p.QueryRows)
				return 1, err
			})
		}
		if err != nil {
			return err
		}
		rec.Found(op, int64(found))
	}
	return ctx.Err()
}

// verify counts every table through its primary key and each secondary index: all counts must
// equal the rows inserted minus the rows deleted.
func (r *run) verify(ctx context.Context) *result.Verify {
	if d, ok := r.eng.(engine.Discarder); ok && d.Discards() {
		return nil
	}
	var detail []string
	okAll := true
	for _, t := range r.tables {
		want := t.live()
		parts := []string{}
		for idx := idxPK; idx < numIndexes; idx++ {
			if idx != idxPK && !t.indexed.Load() {
				continue
			}
			n, err := r.be.count(ctx, t, idx)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return nil
				}
				return &result.Verify{OK: false, Detail: err.Error()}
			}
			if n != want {
				okAll = false
			}
			parts = append(parts, fmt.Sprintf("%s=%d", indexNames[idx], n))
		}
		detail = append(detail, fmt.Sprintf("%s: expected %d, %s", t.name, want, strings.Join(parts, " ")))
	}
	return &result.Verify{OK: okAll, Detail: strings.Join(detail, "; ")}
}
