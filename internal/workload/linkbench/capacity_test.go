package linkbench

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload/capacity"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// slowStore is a store whose every request takes cost of a manual clock: with one requester,
// an engine of known capacity, 1/cost requests a second; offered faster, requests queue.
type slowStore struct {
	store.Store
	clock *runner.ManualClock
	cost  time.Duration
}

func (s slowStore) Client(ctx context.Context) (store.Client, error) {
	cl, err := s.Store.Client(ctx)
	return slowClient{cl, s}, err
}

type slowClient struct {
	store.Client
	s slowStore
}

func (c slowClient) take() { c.s.clock.Advance(c.s.cost) }

func (c slowClient) AddLink(ctx context.Context, l *store.Link) (store.WriteResult, error) {
	c.take()
	return c.Client.AddLink(ctx, l)
}

func (c slowClient) UpdateLink(ctx context.Context, l *store.Link) (store.WriteResult, error) {
	c.take()
	return c.Client.UpdateLink(ctx, l)
}

func (c slowClient) DeleteLink(ctx context.Context, id1, lt, id2 int64, expunge bool) (bool, error) {
	c.take()
	return c.Client.DeleteLink(ctx, id1, lt, id2, expunge)
}

func (c slowClient) GetLinkList(ctx context.Context, id1, lt, maxTime int64, offset, limit int) (int, int64, error) {
	c.take()
	return c.Client.GetLinkList(ctx, id1, lt, maxTime, offset, limit)
}

func (c slowClient) MultigetLinks(ctx context.Context, id1, lt int64, id2s []int64) (int, error) {
	c.take()
	return c.Client.MultigetLinks(ctx, id1, lt, id2s)
}

func (c slowClient) CountLinks(ctx context.Context, id1, lt int64) (int64, error) {
	c.take()
	return c.Client.CountLinks(ctx, id1, lt)
}

func (c slowClient) AddNode(ctx context.Context, n *store.Node) (int64, error) {
	c.take()
	return c.Client.AddNode(ctx, n)
}

func (c slowClient) UpdateNode(ctx context.Context, n *store.Node) (bool, error) {
	c.take()
	return c.Client.UpdateNode(ctx, n)
}

func (c slowClient) DeleteNode(ctx context.Context, id int64) (bool, error) {
	c.take()
	return c.Client.DeleteNode(ctx, id)
}

func (c slowClient) GetNode(ctx context.Context, id int64) (bool, error) {
	c.take()
	return c.Client.GetNode(ctx, id)
}

// The capacity search over LinkBench's request rate finds the capacity of an engine that
// serves 1000 requests a second within 10%: levels cap.N after run.1, each with its verdict,
// on the manual clock (one requester: its own requests move the clock).
func TestCapacitySearchFindsRequestCapacity(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	p := tinyParams(t)
	p.Requesters, p.Intervals, p.IntervalSeconds = 1, 1, 1
	p.Capacity = capacity.Defaults(100, 10)
	p.Capacity.On, p.Capacity.CooloffSeconds, p.Capacity.P99 = true, 2, 100*time.Millisecond
	p.Capacity.Debt = map[string]float64{"history_list_length": 10}
	w := mustNew(t, p)
	clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w.wrap = func(st store.Store) store.Store { return slowStore{st, clock, time.Millisecond} }
	steps, err := workloadtest.Run(context.Background(), w, eng, &runner.Runner{Clock: clock, Tick: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var levels []result.Step
	for _, st := range steps {
		if strings.HasPrefix(st.Name, "cap.") {
			levels = append(levels, *st)
		}
	}
	if len(levels) < 5 || levels[0].Name != "cap.1" || steps[len(steps)-len(levels)-1].Name != "run.1" {
		t.Fatalf("%d levels, after %s", len(levels), steps[len(steps)-len(levels)-1].Name)
	}
	got := result.CapacityOf(levels)
	if got == nil || got.BestRate == nil || got.Units != CapacityUnits {
		t.Fatalf("capacity %+v", got)
	}
	if math.Abs(*got.BestRate-1000) > 100 {
		t.Errorf("best %v requests/s, want within 10%% of 1000: %+v", *got.BestRate, got.Levels)
	}
	var p99 bool
	for _, l := range got.Levels {
		p99 = p99 || l.Verdict == result.VerdictFail && strings.Contains(l.Reason, "p99:")
		if len(l.DebtUnmeasured) != 1 || l.Debt != nil {
			t.Errorf("%s: debt %v, unmeasured %v: null reports no history list", l.Step, l.Debt, l.DebtUnmeasured)
		}
	}
	if !p99 {
		t.Errorf("no level failed on its p99: %+v", got.Levels)
	}
}

func TestCapacityParams(t *testing.T) {
	p := tinyParams(t)
	p.Capacity = capacity.Defaults(100, 1)
	p.Capacity.On = true
	for _, tt := range []struct {
		set  func(p *Params)
		want string
	}{
		{func(p *Params) { p.Steps = []string{"load"} }, "include run in --steps"},
		{func(p *Params) { p.Requests = 10 }, "--capacity with --requests"},
		{func(p *Params) { p.Capacity.MaxLevels = 0 }, "--capacity-max-levels 0"},
	} {
		q := p
		tt.set(&q)
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate: %v, want %q", err, tt.want)
		}
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.ParamMap()["capacity"] == nil {
		t.Error("no capacity in the parameters")
	}
}
