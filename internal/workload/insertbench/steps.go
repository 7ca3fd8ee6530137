package insertbench

import (
	"context"
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
func (w *Workload) Name() string { return Name }

// Scale implements workload.Workload.
func (w *Workload) Scale() string { return w.p.Scale }

// Params implements workload.Workload.
func (w *Workload) Params() map[string]any { return w.p.ParamMap() }

// Fidelity is the variant the workload runs and when it verifies.
func (w *Workload) Fidelity() workload.Fidelity { return w.p.Fidelity }

// EstimateBytes is a rough upper bound of the data directory size one configuration needs
// (Params.EstimateBytes).
func (w *Workload) EstimateBytes() int64 { return w.p.EstimateBytes() }

// Clients are the clients, one table each: a sharded run splits them over its shards.
func (w *Workload) Clients() int { return w.p.Clients }

// TimedSteps implements workload.Timed: the query steps of the corrected variant, which last
// QuerySeconds (the reference's end when their writers are done), and the levels of a
// capacity search, which runs after the steps.
func (w *Workload) TimedSteps() []workload.TimedStep {
	var out []workload.TimedStep
	for _, s := range w.p.Steps {
		if strings.HasPrefix(s, "q") && w.p.Corrected() {
			out = append(out, workload.TimedStep{Name: s, Duration: workload.Seconds(w.p.QuerySeconds)})
		}
	}
	if w.p.Capacity.On {
		out = append(out, workload.TimedStep{Name: "cap.N", Duration: workload.Seconds(w.p.Capacity.LevelSeconds)})
	}
	return out
}

// MemoryLimit implements workload.Capped: the scale preset's memory cap in bytes, 0 for none.
func (w *Workload) MemoryLimit() int64 { return w.p.MemoryLimit }

// run is the state of the benchmark on one engine configuration.
type run struct {
	p      *Params
	env    workload.Env
	eng    engine.Engine
	be     backend
	tables []*table // this shard's tables (all but in a shard, --shard)
	// byNo holds every table by its number less one; nil for another shard's.
	byNo []*table
	// opCtx is the context of engine calls: cancelled on interrupt but not at the normal end
	// of a fixed-duration step, so an operation in flight then completes and is not an error.
	opCtx context.Context
	// writers are the writers of the step that runs (for its probe).
	writers []*writer
	// holders are the snapshot holders of the step that runs (--htap-transaction-seconds).
	holders []*holder
	// capRate is the rate per client of the capacity level that runs (capacity.go).
	capRate float64
}

// Run implements workload.Workload: every selected step in order; it stops at the first step
// that does not end ok.
func (w *Workload) Run(ctx context.Context, env workload.Env, eng engine.Engine, emit func(*result.Step)) error {
	r, err := w.newRun(ctx, env, eng)
	if err != nil {
		return err
	}
	return r.steps(ctx, emit)
}

// newRun returns the state of a run of w on eng.
func (w *Workload) newRun(ctx context.Context, env workload.Env, eng engine.Engine) (*run, error) {
	be, err := newBackend(eng, &w.p)
	if err != nil {
		return nil, err
	}
	r := &run{p: &w.p, env: env, eng: eng, be: be, opCtx: ctx}
	r.byNo = make([]*table, w.p.Tables())
	for i := range r.byNo {
		if w.p.SharedTable || w.p.Shard.Owns(i) {
			r.byNo[i] = &table{name: fmt.Sprintf("pi%d", i+1), no: i + 1}
			r.tables = append(r.tables, r.byNo[i])
		}
	}
	return r, nil
}

// steps runs every selected step in order and emits each; it stops at the first step that does
// not end ok.
func (r *run) steps(ctx context.Context, emit func(*result.Step)) error {
	ph := r.env.Watch(ctx, r.eng, "checking the statements' limits", false)
	err := ph.Err(r.be.checkLimits(ph.Ctx))
	ph.Stop()
	if err != nil {
		return err
	}
	for i, name := range r.p.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		var extra time.Duration // a step only shard 0 runs before this one
		if i > 0 && r.p.Steps[i-1] == "cleanup" {
			extra = time.Duration(r.p.CleanupWaitSeconds * float64(time.Second))
		}
		st := r.meet(ctx, name, extra) // when it fails, the barrier has marked this shard gone
		met := st == nil
		if met {
			st = r.stepBetweenResets(ctx, name, i == len(r.p.Steps)-1)
		}
		if err := workload.Emit(emit, st); err != nil {
			if met { // the next barrier, or the end's (a no-op when the shard arrived there)
				next := endStep
				if i+1 < len(r.p.Steps) {
					next = r.p.Steps[i+1]
				}
				r.env.Leave(next)
			}
			return err
		}
	}
	if r.p.Capacity.On {
		return r.capacity(ctx, emit)
	}
	return nil
}

// meet waits before step for the other shards of a sharded run, or for its start time
// (Env.Meet); it returns the failed step when the wait fails, else nil.
func (r *run) meet(ctx context.Context, step string, extra time.Duration) *result.Step {
	start := time.Now()
	if err := r.env.Meet(ctx, step, extra); err != nil {
		return workload.SetupFailed(ctx, step, start, err)
	}
	return nil
}

// alone reports whether the shard leaves what acts on the whole engine (cleanup, the binary
// log's reset) to shard 0.
func (r *run) alone() bool { return r.p.Shard.Sharded() && !r.p.Shard.Leader() }

// stepBetweenResets runs step name (see step), with the binary log reset before it and, after
// the last step when it ended ok, after it (resetLog). A reset that stalls fails the step:
// before it, the step does not run.
func (r *run) stepBetweenResets(ctx context.Context, name string, last bool) *result.Step {
	start := time.Now()
	notes, err := r.resetLog(ctx, name, "before")
	if err != nil {
		return workload.SetupFailed(ctx, name, start, err)
	}
	st := r.step(ctx, name, last)
	if last && st.Status == result.StatusOK { // a step that did not end ok ends the run anyway
		after, err := r.resetLog(ctx, name, "after")
		notes = append(notes, after...)
		if err != nil {
			st.Status, st.Error = result.StatusFailed, err.Error()
		}
	}
	st.Notes = append(st.Notes, notes...)
	return st
}

// resetLogWait bounds a RESET MASTER.
const resetLogWait = time.Minute

// resetLog removes a managed server's binary log outside the step's time, as the reference's
// np.sh does before and after every step (np.sh:65, :523), so that it does not fill the disk
// over a run. As there, a failure does not stop the run: it is noted on the step. A reset that
// stalls (env.Watch: a frozen server) is the error, a *runner.StallError.
func (r *run) resetLog(ctx context.Context, step, when string) ([]string, error) {
	lr, ok := r.eng.(engine.LogResetter)
	if !ok || ctx.Err() != nil || r.alone() {
		return nil, nil
	}
	ph := r.env.Watch(ctx, r.eng, fmt.Sprintf("binary log reset %s %s", when, step), false)
	defer ph.Stop()
	rctx, cancel := context.WithTimeout(ph.Ctx, resetLogWait)
	defer cancel()
	if err := lr.ResetLog(rctx); err != nil {
		if se := workload.Stall(ph.Ctx); se != nil {
			return nil, se
		}
		return []string{fmt.Sprintf("binary log not reset %s the step: %v", when, err)}, nil
	}
	return nil, nil
}

// step runs one step: the step itself (whose writers probe min(transactionid) within its
// time, as the reference's statement maker does), verification when p.VerifyAfter says so,
// and engine stats.
func (r *run) step(ctx context.Context, name string, last bool) *result.Step {
	start := time.Now()
	r.writers, r.holders = r.writers[:0], r.holders[:0]
	var (
		st  *result.Step
		err error
	)
	switch name {
	case "l.i0":
		st, err = r.load(ctx)
	case "l.x":
		st = r.runStep(ctx, r.createIndexes())
	case "l.i1":
		st = r.runStep(ctx, r.insertDelete(name, r.p.RowsI1, r.p.BatchI1))
	case "l.i2":
		st = r.runStep(ctx, r.insertDelete(name, r.p.RowsI2, r.p.BatchI2))
	case "cleanup":
		st = r.cleanup(ctx)
	case "scan":
		st = r.scan(ctx)
	default:
		st = r.queryOrLevel(ctx, name)
	}
	r.endHolders() // after the step's figures: its engine_stats show what they held
	for _, t := range r.tables {
		t.closeSegments()
	}
	if err != nil {
		return workload.SetupFailed(ctx, name, start, err)
	}
	st.Primary = primaryOp(name)
	st.Probe = r.probe()
	st.HTAP = r.htapResult()
	// A cleanup skipped (shard 0's, or an engine that has none) left the tables as they were, to verify.
	ran := st.Status == result.StatusOK || (name == "cleanup" && st.Status == result.StatusSkipped)
	if last {
		ran = r.end(ctx, st, ran)
	}
	if ran && r.p.VerifyAfter(writes(name), last) {
		v, err := r.verify(ctx, name)
		switch {
		case ctx.Err() != nil:
			st.Status, st.Error = result.StatusInterrupted, "interrupted during verification"
		case err != nil:
			st.Status, st.Error = result.StatusFailed, err.Error()
		case v != nil && !v.OK:
			st.Status, st.Error, st.Verify = result.StatusFailed, "verification failed: "+v.Detail, v
		default:
			st.Verify = v
		}
	}
	measure.Derive(st, r.basis(name))
	return st
}

// endStep is the end barrier of a sharded run, after the last step.
const endStep = "end"

// end is the end barrier of a sharded run after the last step st (Env.Meet): when the step ran
// (ran) the shard waits there for the others, so that no shard verifies or drops its tables
// while another still writes, and shard 0's last cleanup is over; a barrier that fails fails
// st. A step that did not run tells the others the shard will not come. It returns whether
// the step still ran.
func (r *run) end(ctx context.Context, st *result.Step, ran bool) bool {
	if !r.p.Shard.Sharded() {
		return ran
	}
	if !ran {
		r.env.Leave(endStep)
		return false
	}
	// Another shard's step may end later (its rows, shard 0's cleanup): it is given as long
	// again as this shard's took, or the cleanup's wait, beyond the shard timeout.
	extra := time.Duration(st.Seconds * float64(time.Second))
	if st.Name == "cleanup" {
		extra = max(extra, time.Duration(r.p.CleanupWaitSeconds*float64(time.Second)))
	}
	if err := r.env.Meet(ctx, endStep, extra); err != nil {
		if ctx.Err() != nil {
			st.Status, st.Error = result.StatusInterrupted, "interrupted at the end barrier"
		} else {
			st.Status, st.Error = result.StatusFailed, err.Error()
		}
		return false
	}
	return true
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
	if strings.HasPrefix(step, "l.i") || strings.HasPrefix(step, "q") || capacityStep(step) {
		b.PerWrite = "insert"
		b.BytesPerWrite = r.p.RowBytes()
	}
	return b
}

// runStep runs s on the runner with its primary operation (primaryOp), which its verdicts
// judge.
func (r *run) runStep(ctx context.Context, s runner.Step) *result.Step {
	s.Primary = primaryOp(s.Name)
	return r.env.Runner.Run(ctx, s)
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

// writes reports whether a step changes data, after which --verify each-step verifies.
func writes(step string) bool { return step != "cleanup" && step != "scan" }

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
	return r.byNo[c]
}

// rowsOf returns how many rows client c inserts of a per-table size.
func (r *run) rowsOf(perTable int64, c int) int64 {
	if r.p.SharedTable {
		return share(perTable, r.p.Clients, c)
	}
	return perTable
}

// clock returns the runner's clock.
func (r *run) clock() runner.Clock {
	if r.env.Runner.Clock != nil {
		return r.env.Runner.Clock
	}
	return runner.SystemClock()
}

// session opens a session on r.opCtx (see backend.newSession for announce) or wraps its error.
func (r *run) session(announce bool) (session, error) { return r.sessionOn(r.opCtx, announce) }

// sessionOn opens a session whose statements end when ctx does (see sqldb.Connect): its
// statements must be given ctx.
func (r *run) sessionOn(ctx context.Context, announce bool) (session, error) {
	s, err := r.be.newSession(ctx, announce)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return s, nil
}

// writersStep returns a step of one writer per client (rows per table, in batches of batch,
// with a delete per insert when deletes) and records the writers in r.writers for the probe.
func (r *run) writersStep(name string, rows int64, batch int, deletes bool) runner.Step {
	ops := []runner.OpSpec{{Name: "insert"}}
	if deletes {
		ops = append(ops, runner.OpSpec{Name: "delete"})
	}
	s := runner.Step{Name: name, Ops: ops}
	r.writers = r.writers[:0]
	segs := r.newSegments(name, batch)
	for _, c := range r.p.ownClients() {
		w := r.newWriter(name, c, r.tableOf(c), segs[r.tableOf(c)], r.stripeOf(c), rounds(r.rowsOf(rows, c), batch), batch, deletes)
		r.writers = append(r.writers, w)
		s.Workers = append(s.Workers, w.workers(false)...)
		s.ExpectUnits += w.rounds * int64(batch)
	}
	r.addHolders(&s)
	return s
}

// newSegments opens a segment of batch rows on every table for the writers of step.
func (r *run) newSegments(step string, batch int) map[*table]*segment {
	w := 1
	if r.p.SharedTable {
		w = r.p.Clients
	}
	segs := map[*table]*segment{}
	for _, t := range r.tables {
		segs[t] = t.newSegment(step, w, batch)
	}
	return segs
}

// stripeOf returns client c's stripe of its table's segment: its place among the table's
// writers.
func (r *run) stripeOf(c int) int {
	if r.p.SharedTable {
		return c
	}
	return 0
}

// load is l.i0: create the tables, then insert in primary-key order with no secondary index.
// The creation is watched for stalls (env.Watch): each table created is progress.
func (r *run) load(ctx context.Context) (*result.Step, error) {
	ph := r.env.Watch(ctx, r.eng, "l.i0 creating the tables", false)
	for _, t := range r.tables {
		if err := r.be.createTable(ph.Ctx, t); err != nil {
			err = ph.Err(err)
			ph.Stop()
			return nil, err
		}
		ph.Beat()
	}
	ph.Stop()
	return r.runStep(ctx, r.writersStep("l.i0", r.p.Rows, r.p.BatchI0, false)), nil
}

// insertDelete is l.i1 and l.i2: each client inserts and deletes side by side, so each table
// stays the same size.
func (r *run) insertDelete(name string, rowsPerTable int64, batch int) runner.Step {
	return r.writersStep(name, rowsPerTable, batch, true)
}

// createIndexes is l.x: the three secondary indexes of each table, one client per table. As
// the reference's l.x, which is iibench.py with --secondary_at_end and a max_rows of 100 or
// less (cl.repro.sh:75, run_ibench.sh:42), the client first inserts one batch of BatchI0 rows
// (iibench.py:1425, :796); the corrected variant does not. An index build is one long
// statement: the stall watchdog is fed while the engine answers pings (Env.LongOps), and the
// session ends with the operation context, so that a stall cuts a build stuck on a frozen
// server.
func (r *run) createIndexes() runner.Step {
	s := runner.Step{Name: "l.x", Ops: []runner.OpSpec{{Name: "index"}}}
	for _, t := range r.tables {
		i := t.no - 1 // the table's client
		s.ExpectUnits += t.live()
		var seg *segment
		if !r.p.Corrected() {
			seg = t.newSegment("l.x", 1, r.p.BatchI0)
		}
		s.Workers = append(s.Workers, runner.Worker{Client: i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			octx := rec.OpContext()
			sess, err := r.sessionOn(octx, !r.p.Corrected())
			if err != nil {
				return err
			}
			defer sess.close()
			rt := r.retrier("l.x", i, 0)
			if seg != nil {
				if err := r.insertOne(ctx, octx, rt, rec, sess, t, seg); err != nil {
					return err
				}
			}
			return rt.do(ctx, rec, 0, time.Time{}, func() (int64, error) {
				return sess.createIndexes(octx, t)
			})
		}})
	}
	r.env.LongOps(&s, r.eng)
	return s
}

// insertOne inserts the one batch of seg on sess (l.x), whose statements get octx, retried as
// the step's op: the session's connection is then not given back to the pool, as an
// inserter's.
func (r *run) insertOne(ctx, octx context.Context, rt *retrier, rec *runner.Recorder, sess session, t *table, seg *segment) error {
	sess.fresh()
	sec := rec.Now().Unix()
	rows := NewGen(r.p, r.p.Seed, tableStream(t.no)).fill(&rowBuf{}, seg.key(0, 0, 0), seg.batch, sec)
	seg.writers[0].made1(sec)
	if _, err := rt.retry(ctx, rec, 0, func() (int64, error) { return 0, sess.insert(octx, t, rows) }); err != nil {
		return err
	}
	seg.writers[0].inserted++
	return nil
}

// probe returns the MVCC-debt probe of the step's writers: the first min(transactionid) of
// each (the slowest of a table's writers for that table), or nil when no writer deletes.
func (r *run) probe() *result.Probe {
	var p *result.Probe
	for _, t := range r.tables {
		secs := -1.0
		for _, w := range r.writers {
			if w.t == t {
				secs = max(secs, w.probe)
			}
		}
		if secs < 0 {
			continue
		}
		if p == nil {
			p = &result.Probe{}
		}
		p.Tables = append(p.Tables, secs)
		p.MinTrxIDSeconds = max(p.MinTrxIDSeconds, secs)
	}
	return p
}

// cleanup reduces the engine's debt (analyze, vacuum, flush, compaction, checkpoint) before the
// read steps, as the reference does for the engine, then waits until p.CleanupWaitSeconds after
// the step's start (cleanup.go). The step's notes say what it did. Its one operation (the
// engine's statements and the wait, up to 1200 s) is long by nature: the stall watchdog is fed
// while the engine answers pings (Env.LongOps).
func (r *run) cleanup(ctx context.Context) *result.Step {
	start := time.Now()
	if r.alone() {
		return &result.Step{Name: "cleanup", Status: result.StatusSkipped, StartedAt: start,
			Error: fmt.Sprintf("shard %d of %d: shard 0 runs the cleanup, which acts on the whole engine; the next step's barrier waits for it",
				r.p.Shard.Index, r.p.Shard.Count)}
	}
	c, ok := r.eng.(engine.Cleaner)
	if !ok {
		return &result.Step{Name: "cleanup", Status: result.StatusSkipped, StartedAt: start,
			Error: "the engine has no cleanup"}
	}
	before, err := r.statsBefore(ctx)
	if err != nil {
		return workload.SetupFailed(ctx, "cleanup", start, err)
	}
	cr := newCleanupRun(r.p, r.env.Runner.Clock)
	s := runner.Step{Name: "cleanup", Ops: []runner.OpSpec{{Name: "cleanup"}},
		Workers: []runner.Worker{{Run: func(ctx context.Context, rec *runner.Recorder) error {
			return rec.Do(0, time.Time{}, func() (int64, error) { return 1, cr.run(rec.OpContext(), c) })
		}}}}
	r.env.LongOps(&s, r.eng)
	st := r.runStep(ctx, s)
	st.EngineStatsBefore = before
	st.Notes = cr.notes
	return st
}

// statsBefore reads the engine's debt before the cleanup (after it is the step's engine_stats),
// watched for stalls; nil when the engine has no stats or cannot say. The error is a stall's.
func (r *run) statsBefore(ctx context.Context) (map[string]float64, error) {
	s, ok := r.eng.(engine.Statser)
	if !ok {
		return nil, nil
	}
	ph := r.env.Watch(ctx, r.eng, "cleanup reading the engine's stats", false)
	defer ph.Stop()
	m, err := s.Stats(ph.Ctx)
	if err != nil {
		return nil, workload.Stall(ph.Ctx)
	}
	return m, nil
}

// discards reports whether the engine keeps nothing (null), so that what it reads is not checked.
func (r *run) discards() bool {
	d, ok := r.eng.(engine.Discarder)
	return ok && d.Discards()
}

// scanOrder is the scan step's order: the primary key, each secondary index, the primary key again.
var scanOrder = []int{idxPK, idxMarket, idxRegister, idxPDC, idxPK}

// scan reads every index of every table in full, one client per table, and reports each index
// as a phase (seconds: the slowest table's; rows: all tables'). Each index's count is one long
// operation: the stall watchdog is fed while the engine answers pings (Env.LongOps).
func (r *run) scan(ctx context.Context) *result.Step {
	phases := make([]result.Phase, len(scanOrder))
	for i, idx := range scanOrder {
		phases[i].Name = indexNames[idx]
	}
	phases[len(phases)-1].Name = "pk2"
	var mu sync.Mutex // guards phases: taken once per index and table, not per row
	s := runner.Step{Name: "scan", Ops: []runner.OpSpec{{Name: "scan"}}}
	for _, t := range r.tables {
		i := t.no - 1 // the table's client
		s.Workers = append(s.Workers, runner.Worker{Client: i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			rt := r.retrier("scan", i, 0)
			for pi, idx := range scanOrder {
				if idx != idxPK && !t.indexed.Load() {
					continue
				}
				t0 := time.Now()
				var n int64
				if err := rt.do(ctx, rec, 0, time.Time{}, func() (int64, error) {
					var err error
					n, err = r.be.count(rec.OpContext(), t, idx)
					return n, err
				}); err != nil {
					return err
				}
				if want := t.live(); n != want && !r.discards() {
					return fmt.Errorf("%s: %d rows read through %s, %d must be there", t.name, n, indexNames[idx], want)
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
	r.env.LongOps(&s, r.eng)
	st := r.runStep(ctx, s)
	for i := range phases {
		if phases[i].Seconds > 0 {
			phases[i].PerSec = float64(phases[i].Rows) / phases[i].Seconds
			st.Phases = append(st.Phases, phases[i])
		}
	}
	return st
}
