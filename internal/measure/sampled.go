package measure

import (
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// divideSampled sets what divides st's CPU profile and counters: the operation b.PerOp and
// its units in the time they sampled, the whole step's or, for windows, the units of the
// per-second intervals that end inside a window (a second's units are counted in the window
// its end falls in; a window shorter than a second may count none).
func divideSampled(st *result.Step, b Basis) {
	if p := st.Profile; p != nil {
		p.PerOp, p.Ops = b.PerOp, sampledUnits(st, b.PerOp, p.Mode, p.Windows)
	}
	if c := st.Counters; c != nil {
		c.PerOp, c.Ops = b.PerOp, sampledUnits(st, b.PerOp, c.Mode, c.Windows)
	}
}

// sampledUnits returns the units of op in the windows of a windowed sampling, or in the whole
// step otherwise: its ops' units, or with a warm-up, which they leave out and the sampling
// does not, those of every interval.
func sampledUnits(st *result.Step, op, mode string, windows []result.Window) float64 {
	if mode != result.ModeWindows && st.Warmup == nil {
		if o := st.Ops[op]; o != nil {
			return float64(o.Units)
		}
		return 0
	}
	ivs := st.Intervals
	if ivs == nil {
		return 0
	}
	var units float64
	for i := range ivs.Len() {
		end := ivs.Time(i)
		if mode != result.ModeWindows {
			if o, ok := ivs.Op(i, op); ok {
				units += float64(o.Units)
			}
			continue
		}
		for _, w := range windows {
			if inWindow(end, w) {
				if o, ok := ivs.Op(i, op); ok {
					units += float64(o.Units)
				}
				break
			}
		}
	}
	return units
}

// inWindow reports whether t falls in w: after its start, at most its end.
func inWindow(t time.Time, w result.Window) bool {
	return t.After(w.Start) && !t.After(w.Start.Add(time.Duration(w.Seconds*float64(time.Second))))
}
