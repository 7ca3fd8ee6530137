package insertbench

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// slowKV is the null engine with a known capacity, run in a synctest bubble: a batch's commit
// takes perWrite of (the bubble's virtual) time for each of its writes, one commit at a time,
// so that rows offered faster than it takes them queue, and a range query takes perQuery.
// Virtual time moves only when every goroutine waits, so a writer's maker cannot run ahead of
// the commits however the machine schedules them (a manual clock let it, and the levels'
// achieved rates then varied with the load). It reports one engine counter, l0_files.
type slowKV struct {
	kv.DB
	perWrite, perQuery time.Duration
	l0                 float64
	engine             chan struct{} // holds a token while a commit runs: one at a time
}

func (s slowKV) NewBatch() kv.Batch { return &slowBatch{Batch: s.DB.NewBatch(), s: s} }
func (s slowKV) Discards() bool     { return true }
func (s slowKV) Stats(context.Context) (map[string]float64, error) {
	return map[string]float64{"l0_files": s.l0}, nil
}

func (s slowKV) NewIter(lower, upper []byte) (kv.Iter, error) {
	time.Sleep(s.perQuery) // the bubble's virtual time: the query's cost, not a wait for anything
	return s.DB.NewIter(lower, upper)
}

type slowBatch struct {
	kv.Batch
	s slowKV
}

func (b *slowBatch) Commit() error {
	b.s.engine <- struct{}{}
	time.Sleep(time.Duration(b.Len()) * b.s.perWrite) // virtual time: the commit's cost
	<-b.s.engine
	return b.Batch.Commit()
}

// capacityRun runs l.i0, l.x and the capacity search of c on a slowKV of capacity rows a
// second (4 writes a row once indexed) in a synctest bubble and returns the steps.
func capacityRun(t *testing.T, c capacity.Params, rows float64, l0 float64) []*result.Step {
	t.Helper()
	p, _ := DefaultParams("tiny")
	p.Rows, p.Steps, p.Capacity = 2000, []string{"l.i0", "l.x"}, c
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	var steps []*result.Step
	synctest.Test(t, func(t *testing.T) {
		db, err := null.Driver().Open(context.Background(), engine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		eng := slowKV{DB: db.(kv.DB), perWrite: time.Duration(float64(time.Second) / (4 * rows)),
			perQuery: time.Millisecond, l0: l0, engine: make(chan struct{}, 1)}
		rn := &runner.Runner{Clock: runner.SystemClock(), Tick: time.Hour,
			Samplers: []runner.Sampler{workload.EngineStats{Engine: eng}}}
		steps, err = workloadtest.Run(context.Background(), &Workload{p: p}, eng, rn)
		if err != nil {
			t.Fatal(err)
		}
	})
	return steps
}

// The capacity search over the Insert Benchmark's background writers finds the capacity of an
// engine that takes 1000 rows a second within 10%; every level is a cap.N step with its
// verdict, and the configuration's capacity object has the best rate. The levels are judged
// by their achieved rate only (the p99 criterion is tested on the runner:
// capacity.TestSearchFindsKnownCapacity).
func TestCapacitySearchFindsEngineCapacity(t *testing.T) {
	c := capacity.Defaults(100, 10)
	c.On, c.CooloffSeconds, c.P99 = true, 1, 0
	c.Debt = map[string]float64{"l0_files": 10, "dead_tuples": 5}
	steps := capacityRun(t, c, 1000, 3)
	var levels []result.Step
	for _, st := range steps {
		if st.Status != result.StatusOK {
			t.Fatalf("%s: %s %s", st.Name, st.Status, st.Error)
		}
		if capacityStep(st.Name) {
			levels = append(levels, *st)
		}
	}
	if len(levels) < 5 || levels[0].Name != "cap.1" || steps[2].Name != "cap.1" {
		t.Fatalf("levels %d after %s", len(levels), steps[1].Name)
	}
	got := result.CapacityOf(levels)
	if got == nil || got.BestRate == nil || got.Units != CapacityUnits {
		t.Fatalf("capacity %+v", got)
	}
	// A level passes on its rate alone while the engine achieves 90% of it: up to 1000/0.9.
	if best := *got.BestRate; best < 900 || best > 1000/capacity.DipLimit || math.Abs(best-1000) > 100 {
		t.Errorf("best %v rows/s, want within 10%% of 1000: %+v", best, got.Levels)
	}
	var failed bool
	for _, l := range got.Levels {
		if l.Debt["l0_files"] != 3 || len(l.DebtUnmeasured) != 1 || l.DebtUnmeasured[0] != "dead_tuples" {
			t.Errorf("%s: debt %v unmeasured %v", l.Step, l.Debt, l.DebtUnmeasured)
		}
		failed = failed || l.Verdict == result.VerdictFail && strings.HasPrefix(l.Reason, "rate: achieved")
	}
	if !failed {
		t.Errorf("no level failed on its rate: %+v", got.Levels)
	}
	if tg := levels[0].Target; tg == nil || tg.InsertsPerSec != 100 || levels[0].Ops["query"] == nil {
		t.Errorf("cap.1: target %+v, ops %v", tg, levels[0].Ops)
	}
}

// A debt counter over its limit fails every level it is over in.
func TestCapacityDebtFailsLevels(t *testing.T) {
	c := capacity.Defaults(100, 10)
	c.On, c.CooloffSeconds, c.MaxLevels, c.Refinements, c.P99 = true, 0, 2, 1, 0
	c.Debt = map[string]float64{"l0_files": 2}
	steps := capacityRun(t, c, 1e6, 3)
	got := result.CapacityOf(stepsOf(steps))
	if got == nil || got.BestRate != nil || len(got.Levels) != 2 {
		t.Fatalf("capacity %+v", got)
	}
	// The debt alone fails each level: the engine keeps up with every rate tried.
	for _, l := range got.Levels {
		if l.Verdict != result.VerdictFail || l.Reason != "debt: l0_files 3 above 2" {
			t.Errorf("%s: %s %q", l.Step, l.Verdict, l.Reason)
		}
	}
	if got.Levels[1].Rate != 50 {
		t.Errorf("after a failed first level the search steps down: %v", got.Levels[1].Rate)
	}
}

func stepsOf(ps []*result.Step) []result.Step {
	out := make([]result.Step, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

func TestCapacityParams(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.Capacity = capacity.Defaults(100, 3)
	p.Capacity.On = true
	p.Steps = []string{"l.i0", "l.i1"}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "include l.x in --steps") {
		t.Errorf("without l.x: %v", err)
	}
	p.Steps = []string{"l.i0", "l.x"}
	p.Capacity.Factor = 0.5
	if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "--capacity-step 0.5") {
		t.Errorf("bad factor: %v", err)
	}
	p.Capacity.Factor = 2
	p.Clients, p.Shard = 2, shard.Shard{Index: 0, Count: 2}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--capacity with --shard") {
		t.Errorf("sharded: %v", err)
	}
	p.Shard = shard.Shard{}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if m := p.ParamMap(); m["capacity"] == nil {
		t.Errorf("params without the capacity search's: %v", m)
	}
}
