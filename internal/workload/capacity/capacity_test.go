package capacity

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeEngine is an engine of known capacity on a manual clock: it serves one operation at a
// time, each taking 1/perSec of the clock, so that offered rates above perSec queue (the
// response time grows, the achieved rate stays at perSec). Its debt counter l0_files grows with
// the rate it was offered: debtPer per 100 operations a second.
type fakeEngine struct {
	clock   *runner.ManualClock
	perSec  float64
	debtPer float64
}

// level runs a level of secs seconds: one open-loop client at rate operations a second, on
// the runner with the manual clock, as a workload's level step would.
func (e *fakeEngine) level(secs float64) Level {
	return func(ctx context.Context, name string, rate float64) *result.Step {
		r := &runner.Runner{Clock: e.clock, Tick: time.Hour}
		cost := time.Duration(float64(time.Second) / e.perSec)
		st := r.Run(ctx, runner.Step{Name: name, Ops: []runner.OpSpec{{Name: "insert", Background: true}},
			Workers: []runner.Worker{{Run: func(ctx context.Context, rec *runner.Recorder) error {
				start := rec.Now()
				end := start.Add(time.Duration(secs * float64(time.Second)))
				p := runner.NewPacer(e.clock, start, rate)
				for {
					intended, err := p.Next(ctx)
					if err != nil || !intended.Before(end) {
						return err
					}
					if err := rec.Do(0, intended, func() (int64, error) { e.clock.Advance(cost); return 1, nil }); err != nil {
						return err
					}
				}
			}}}})
		if e.debtPer > 0 {
			st.EngineStats = map[string]float64{"l0_files": rate / 100 * e.debtPer}
		}
		return st
	}
}

// search runs the search of p on e and returns its levels.
func search(t *testing.T, p Params, e *fakeEngine) *result.Capacity {
	t.Helper()
	var steps []result.Step
	err := Run(context.Background(), p, e.clock, Judge{Op: "insert", Clients: 1, Units: "ops/s"}, e.level(p.LevelSeconds),
		func(st *result.Step) error { steps = append(steps, *st); return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		if st.Name != StepName(i+1) || st.Capacity == nil || st.Capacity.Step != st.Name {
			t.Fatalf("step %d: %s %+v", i, st.Name, st.Capacity)
		}
	}
	return result.CapacityOf(steps)
}

// The search finds a fake engine's known capacity within 10%, by each criterion.
func TestSearchFindsKnownCapacity(t *testing.T) {
	tests := []struct {
		name    string
		perSec  float64
		debtPer float64
		p       func(p *Params)
		want    float64
		reason  string // a failed level's reason holds it
	}{
		{"p99 limit", 1000, 0, func(p *Params) { p.P99 = 100 * time.Millisecond }, 1000, "p99:"},
		{"rate dip only", 1000, 0, func(p *Params) { p.P99 = 0 }, 1000, "rate: achieved"},
		{"odd capacity, small steps", 737, 0, func(p *Params) { p.Factor = 1.5; p.Start = 10 }, 737, "p99:"},
		{"engine debt", 5000, 1, func(p *Params) { p.Debt = map[string]float64{"l0_files": 6} }, 600, "debt: l0_files"},
		{"first level above capacity", 300, 0, func(p *Params) { p.Start = 1000; p.Refinements = 8 }, 300, "p99:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Defaults(50, 10)
			p.On, p.CooloffSeconds = true, 2
			tt.p(&p)
			e := &fakeEngine{clock: runner.NewManualClock(t0), perSec: tt.perSec, debtPer: tt.debtPer}
			c := search(t, p, e)
			if c == nil || c.BestRate == nil {
				t.Fatalf("no best rate: %+v", c)
			}
			if got := *c.BestRate; math.Abs(got-tt.want) > 0.1*tt.want {
				t.Errorf("best %v, want within 10%% of %v; levels %+v", got, tt.want, c.Levels)
			}
			var failed bool
			for i, l := range c.Levels {
				if l.Verdict == result.VerdictFail && strings.Contains(l.Reason, tt.reason) {
					failed = true
				}
				if l.Verdict == result.VerdictPass && l.Rate > *c.BestRate {
					t.Errorf("level %d passed at %v above the best %v", i, l.Rate, *c.BestRate)
				}
				if want := float64(0); i > 0 {
					want = p.CooloffSeconds
					if l.CooloffSeconds != want {
						t.Errorf("level %d: cool-off %v s, want %v", i, l.CooloffSeconds, want)
					}
				}
			}
			if !failed {
				t.Errorf("no level failed for %q: %+v", tt.reason, c.Levels)
			}
		})
	}
}

// Below capacity a level passes with its achieved rate, above it the achieved rate and the
// p99 say why it failed.
func TestJudgeLevel(t *testing.T) {
	p := Defaults(1, 10)
	p.P99 = 50 * time.Millisecond
	p.Debt = map[string]float64{"l0_files": 4, "dead_tuples": 100}
	e := &fakeEngine{clock: runner.NewManualClock(t0), perSec: 100, debtPer: 1}
	j := Judge{Op: "insert", Clients: 1, Units: "ops/s"}

	ok := j.Level(e.level(10)(context.Background(), "cap.1", 50), 50, p)
	if ok.Verdict != result.VerdictPass || ok.Reason != "" || math.Abs(ok.Achieved-50) > 1 {
		t.Errorf("below capacity: %+v", ok)
	}
	if ok.P99Us == nil || *ok.P99Us > 11e3 || *ok.P99LimitUs != 50e3 {
		t.Errorf("below capacity p99 %v (limit %v), want the service time, 10 ms", ok.P99Us, ok.P99LimitUs)
	}
	if !reflect.DeepEqual(ok.DebtUnmeasured, []string{"dead_tuples"}) || ok.Debt["l0_files"] != 0.5 {
		t.Errorf("debt %v, unmeasured %v", ok.Debt, ok.DebtUnmeasured)
	}

	bad := j.Level(e.level(10)(context.Background(), "cap.2", 500), 500, p)
	if bad.Verdict != result.VerdictFail || math.Abs(bad.Achieved-100) > 2 {
		t.Fatalf("above capacity: %+v", bad)
	}
	for _, want := range []string{"rate: achieved 100/s, more than 10% below 500/s", "p99: ", "debt: l0_files 5 above 4"} {
		if !strings.Contains(bad.Reason, want) {
			t.Errorf("reason %q lacks %q", bad.Reason, want)
		}
	}
	if strings.Contains(bad.Reason, "dead_tuples") {
		t.Errorf("an unmeasured counter failed the level: %q", bad.Reason)
	}

	failed := j.Level(&result.Step{Name: "cap.3", Status: result.StatusFailed, Error: "boom"}, 10, p)
	if failed.Verdict != result.VerdictFail || !strings.HasPrefix(failed.Reason, "step failed: boom") || failed.P99Us != nil {
		t.Errorf("failed step: %+v", failed)
	}
}

// The ramp is geometric until a failure, then bisects, within its bounds.
func TestSearchRampAndBacktrack(t *testing.T) {
	tests := []struct {
		name     string
		p        func(p *Params)
		capacity float64 // a level passes at or below it
		want     []float64
		best     float64
	}{
		{"ramp then bisect", func(*Params) {}, 1000, []float64{100, 200, 400, 800, 1600, 1200, 1000, 1100, 1050}, 1000},
		{"no failure: MaxLevels", func(p *Params) { p.MaxLevels = 3 }, 1e9, []float64{100, 200, 400}, 400},
		{"no refinement", func(p *Params) { p.Refinements = 0 }, 1000, []float64{100, 200, 400, 800, 1600}, 800},
		{"stops at the resolution", func(p *Params) { p.Refinements = 20 }, 1000,
			[]float64{100, 200, 400, 800, 1600, 1200, 1000, 1100, 1050}, 1000}, // 1050 fails: within 5% of 1000
		{"first level fails: steps down", func(p *Params) { p.Start = 1000; p.Refinements = 3 }, 100, []float64{1000, 500, 250, 125}, 0},
		{"steps down to a pass, then bisects", func(p *Params) { p.Start = 1000 }, 300, []float64{1000, 500, 250, 375, 312.5}, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Defaults(100, 10)
			tt.p(&p)
			s := NewSearch(p)
			var got []float64
			for {
				r, ok := s.Next()
				if !ok {
					break
				}
				if len(got) > 100 {
					t.Fatal("unbounded search")
				}
				got = append(got, r)
				s.Record(r, r <= tt.capacity)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("levels %v, want %v", got, tt.want)
			}
			best, ok := s.Best()
			if best != tt.best || ok != (tt.best > 0) {
				t.Errorf("best %v %v, want %v", best, ok, tt.best)
			}
		})
	}
}

// A level whose step did not end ok ends the search with emit's error; an interrupt during the
// cool-off ends it with the context's.
func TestRunStops(t *testing.T) {
	p := Defaults(100, 1)
	clock := runner.NewManualClock(t0)
	stop := errors.New("step cap.2 failed")
	var n int
	err := Run(context.Background(), p, clock, Judge{Op: "insert", Clients: 1},
		func(_ context.Context, name string, _ float64) *result.Step {
			return &result.Step{Name: name, Status: result.StatusOK}
		},
		func(st *result.Step) error {
			n++
			if n == 2 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err %v after %d levels", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err = Run(ctx, p, clock, Judge{Op: "insert", Clients: 1},
		func(_ context.Context, name string, _ float64) *result.Step {
			return &result.Step{Name: name, Status: result.StatusOK}
		},
		func(*result.Step) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("interrupted: err %v after %d levels", err, n)
	}
}

func TestValidateAndParseDebt(t *testing.T) {
	bad := []struct {
		p    func(p *Params)
		want string
	}{
		{func(p *Params) { p.Start = 0 }, "--capacity-start 0: want a rate above 0"},
		{func(p *Params) { p.Start = math.NaN() }, "--capacity-start NaN"},
		{func(p *Params) { p.Factor = 1 }, "--capacity-step 1: want a factor above 1"},
		{func(p *Params) { p.LevelSeconds = 0.5 }, "--capacity-level-seconds 0.5"},
		{func(p *Params) { p.CooloffSeconds = -1 }, "--capacity-cooloff -1"},
		{func(p *Params) { p.P99 = -time.Second }, "--capacity-p99 -1s"},
		{func(p *Params) { p.MaxLevels = 0 }, "--capacity-max-levels 0"},
		{func(p *Params) { p.Refinements = 21 }, "--capacity-refinements 21"},
	}
	for _, tt := range bad {
		p := Defaults(100, 10)
		tt.p(&p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate: %v, want %q", err, tt.want)
		}
	}
	if err := Defaults(100, 10).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	m, err := ParseDebt([]string{"l0_files=20", " history_list_length = 1e6,dead_tuples=5"})
	if err != nil || !reflect.DeepEqual(m, map[string]float64{"l0_files": 20, "history_list_length": 1e6, "dead_tuples": 5}) {
		t.Errorf("ParseDebt: %v %v", m, err)
	}
	for _, v := range []string{"l0_files", "=3", "l0_files=x", "l0_files=-1", "l0_files=NaN", "l0_files=Inf"} {
		if _, err := ParseDebt([]string{v}); err == nil || !strings.Contains(err.Error(), "want COUNTER=LIMIT") {
			t.Errorf("ParseDebt(%q): %v", v, err)
		}
	}
	if _, err := ParseDebt([]string{"a=1", "a=2"}); err == nil || !strings.Contains(err.Error(), "a given twice") {
		t.Errorf("a duplicate: %v", err)
	}
}
