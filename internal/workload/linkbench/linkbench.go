// Package linkbench implements LinkBench (docs/linkbench.md): the social-graph workload of
// nodes, typed links and per-(id1, link type) counts. The load step builds the graph with the
// profile's out-degree distribution; the request steps run the profile's operation mix in
// intervals of equal length; verification checks every count against the visible links.
// The figures come from package profile, the random choices from package gen, and the
// operations on each engine family from package store.
package linkbench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// Workload is LinkBench with its parameters.
type Workload struct {
	p Params
	m *model
	// wrap, set by tests only, wraps the store the run uses, to act at its calls.
	wrap func(store.Store) store.Store
}

// New returns LinkBench for parameters, which it validates.
func New(p Params) (*Workload, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m, err := newModel(&p)
	if err != nil {
		return nil, err
	}
	return &Workload{p: p, m: m}, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return Name }

// Scale implements workload.Workload.
func (w *Workload) Scale() string { return w.p.Scale }

// Params implements workload.Workload.
func (w *Workload) Params() map[string]any { return w.p.ParamMap() }

// Fidelity is the variant the workload runs and when it verifies.
func (w *Workload) Fidelity() workload.Fidelity { return w.p.Fidelity }

// CheckEngine refuses, before the run starts, an engine the parameters cannot run on:
// --partitions needs a MySQL or PostgreSQL server (the SQL server engines), and the request
// step of a sharded run a server that keeps concurrent updates of one document (not FerretDB).
func (w *Workload) CheckEngine(d engine.Driver) error {
	if w.p.Partitions > 0 && (d.Family != engine.FamilySQL || !d.Server) {
		return fmt.Errorf("--partitions: engine %s cannot partition its tables (innodb, myrocks and postgres can)", d.Name)
	}
	if s := w.p.Shard; s.Sharded() && slices.Contains(w.p.Steps, "run") && doc.DriverLosesConcurrentUpdates(d) {
		return fmt.Errorf("--shard %d/%d: engine %s loses concurrent updates of one document, and the shards' requesters update the same counts from several processes, which no lock of one process serializes: shard its load only (--steps load), or run the requests in one process (docs/linkbench.md)",
			s.Index, s.Count, d.Name)
	}
	return nil
}

// EstimateBytes is a rough upper bound of the data directory size one configuration needs:
// twice the logical size of the links the out-degree gives (with their id1_type entries and
// counts) and of the nodes (Params.Validate computes it with checked arithmetic).
func (w *Workload) EstimateBytes() int64 { return w.p.estBytes }

// Clients are the clients of its largest step, which a sharded run splits over its shards:
// the load's link loaders and node loader, or the requesters.
func (w *Workload) Clients() int { return max(w.p.Loaders+1, w.p.Requesters) }

// TimedSteps implements workload.Timed: with the run phase, its warmup (--warmup-seconds)
// and its intervals run.1 ... run.N, each of IntervalSeconds.
func (w *Workload) TimedSteps() []workload.TimedStep {
	if !slices.Contains(w.p.Steps, "run") {
		return nil
	}
	var out []workload.TimedStep
	if w.p.WarmupSeconds > 0 {
		out = append(out, workload.TimedStep{Name: "warmup", Duration: workload.Seconds(w.p.WarmupSeconds)})
	}
	return append(out, workload.TimedStep{Name: "run.N", Duration: workload.Seconds(w.p.IntervalSeconds)})
}

// MemoryLimit implements workload.Capped: the scale preset's memory cap in bytes, 0 for none.
func (w *Workload) MemoryLimit() int64 { return w.p.MemoryLimit }

// run is the state of the benchmark on one engine configuration.
type run struct {
	p     *Params
	m     *model
	env   workload.Env
	eng   engine.Engine
	st    store.Store
	opCtx context.Context
	// What this process's clients loaded and changed; all is what every shard's did, by the
	// last step's end (settle), which verification expects.
	tally, all tally
	// indexed is false while id1_type is deferred and not yet built.
	indexed bool
	// rate is each requester's request rate: RequestRate, or the level's in a capacity search.
	rate float64
	// span is a capacity level's length: its requesters schedule no request at or after it
	// (0: until the step ends).
	span time.Duration
	// loadMs and loadSec are the load's start, from which the loaded links' and nodes' times
	// derive.
	loadMs  int64
	loadSec int32
	// ranges are the id1s verification reads (checked says which); linksTouched holds those
	// of them whose links a request wrote or deleted, nodesTouched the nodes a request
	// updated or deleted.
	// vranges are the parts of ranges this shard verifies (ranges but in a sharded run).
	ranges, vranges            [][2]int64
	checked                    string
	linksTouched, nodesTouched *idSet
}

// Run implements workload.Workload: load (and index), then the warmup and the intervals.
func (w *Workload) Run(ctx context.Context, env workload.Env, eng engine.Engine, emit func(*result.Step)) error {
	st, err := store.Open(eng, store.Options{DeferIndex: w.p.DeferIndex, Corrected: w.p.Corrected(), Partitions: w.p.Partitions, Clock: env.Runner.Clock})
	if err != nil {
		return err
	}
	if w.wrap != nil {
		st = w.wrap(st)
	}
	r := w.newRun(ctx, env, eng, st)
	steps := []func(context.Context) *result.Step{r.load}
	if w.p.DeferIndex {
		steps = append(steps, r.index)
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := workload.Emit(emit, step(ctx)); err != nil {
			return err
		}
	}
	if slices.Contains(w.p.Steps, "run") {
		return r.requestPhase(ctx, emit)
	}
	return nil
}

// newRun returns the state of a run of w on eng through st, whose operations get ctx.
func (w *Workload) newRun(ctx context.Context, env workload.Env, eng engine.Engine, st store.Store) *run {
	r := &run{p: &w.p, m: w.m, env: env, eng: eng, st: st, opCtx: ctx, indexed: !w.p.DeferIndex, rate: w.p.RequestRate}
	r.ranges, r.checked = checkRanges(&w.p)
	r.vranges = r.ownRanges(r.ranges)
	if s := w.p.Shard; s.Sharded() {
		r.checked += fmt.Sprintf(", the part of them in shard %d of %d's chunks of %d id1s", s.Index, s.Count, w.p.LoadChunk)
	}
	r.linksTouched, r.nodesTouched = newIDSet(r.ranges), newIDSet(r.ranges)
	return r
}

// lastStep reports whether the step named name (load or index) is the run's last: no index
// step follows the load, and no request steps follow either.
func (r *run) lastStep(name string) bool {
	if slices.Contains(r.p.Steps, "run") {
		return false
	}
	return name == "index" || !r.p.DeferIndex
}

// finish ends a step: in a sharded run, the end barrier where the shards hand each other what
// they wrote (settle); then it verifies a step that ended ok when check is set (after the last
// step, or after every writing step with --verify each-step: a verification between steps
// would warm the cache for the next measured one), and derives its efficiency. A verification
// that the run's end cut short leaves the step interrupted; one that stalled (env.Watch) fails
// it with the stall. After the last step of a sharded run the shards meet once more (done).
// basis, what the step's resource use is divided by, is called after the end barrier.
func (r *run) finish(st *result.Step, check, last bool, basis func() measure.Basis) *result.Step {
	settled := r.settle(st)
	began := time.Now()
	if check && st.Status == result.StatusOK {
		ph := r.env.Watch(r.opCtx, r.eng, "verification after "+st.Name, true)
		v, canceled := r.verify(ph.Ctx, ph.Beat)
		stall := workload.Stall(ph.Ctx)
		ph.Stop()
		switch {
		case canceled && r.opCtx.Err() == nil && stall != nil:
			st.Status, st.Error = result.StatusFailed, stall.Error()
		case canceled:
			st.Status, st.Error = result.StatusInterrupted, "interrupted (during verification)"
		case v != nil && !v.OK:
			st.Status, st.Error = result.StatusFailed, "verification failed: "+v.Detail
		}
		st.Verify = v
	}
	if last && settled && r.p.Shard.Sharded() {
		r.done(st, time.Since(began))
	}
	measure.Derive(st, basis())
	return st
}

// watched runs fn, work between the runner's steps (creating the tables, finishing the load),
// under the stall watchdog (env.Watch, named what) with the context it gets; the error is a
// *runner.StallError when a frozen server held fn for the stall limit.
func (r *run) watched(ctx context.Context, what string, fn func(context.Context) error) error {
	ph := r.env.Watch(ctx, r.eng, what, false)
	defer ph.Stop()
	return ph.Err(fn(ph.Ctx))
}

// discards reports whether the engine stores nothing (the null engine).
func (r *run) discards() bool {
	d, ok := r.eng.(engine.Discarder)
	return ok && d.Discards()
}
