package measure

import (
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// A profile of the whole step is divided by the step's units; one of windows by the units of
// the seconds that end in a window.
func TestDivideSampled(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ivs := &result.Series{}
	for s := 1; s <= 6; s++ {
		i := ivs.Append(s, start.Add(time.Duration(s)*time.Second))
		ivs.SetOp(i, "insert", result.IntervalOp{Count: 1, Units: int64(10 * s)})
	}
	st := &result.Step{Ops: map[string]*result.Op{"insert": {Units: 210}}, Intervals: ivs,
		Profile:  &result.Profile{Mode: result.ModeWindows, Windows: []result.Window{{Start: start.Add(2 * time.Second), Seconds: 2}}},
		Counters: &result.Counters{Mode: result.ModeStep}}
	Derive(st, Basis{PerOp: "insert"})
	if p := st.Profile; p.PerOp != "insert" || p.Ops != 30+40 {
		t.Errorf("windows: %s %v, want insert 70 (seconds 3 and 4)", p.PerOp, p.Ops)
	}
	if c := st.Counters; c.PerOp != "insert" || c.Ops != 210 {
		t.Errorf("step: %s %v, want insert 210", c.PerOp, c.Ops)
	}
}

// A profile of the whole step of a step with a warm-up, which its ops leave out and the
// profile does not, is divided by every second's units.
func TestDivideSampledWithWarmup(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ivs := &result.Series{}
	for s := 1; s <= 6; s++ {
		i := ivs.Append(s, start.Add(time.Duration(s)*time.Second))
		ivs.SetOp(i, "insert", result.IntervalOp{Count: 1, Units: int64(10 * s)})
	}
	st := &result.Step{Ops: map[string]*result.Op{"insert": {Units: 150}}, Intervals: ivs,
		Warmup: &result.Warmup{AskedSeconds: 2, Seconds: 2, Intervals: 2}, Counters: &result.Counters{Mode: result.ModeStep}}
	Derive(st, Basis{PerOp: "insert"})
	if c := st.Counters; c.Ops != 210 {
		t.Errorf("step with a warm-up: %v, want every second's 210", c.Ops)
	}
}
