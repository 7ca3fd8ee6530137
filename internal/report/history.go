package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/enginebench/enginebench/internal/result"
)

// HistoryOptions say how a history judges its series (docs/report.md, History). Zero fields
// take the defaults.
type HistoryOptions struct {
	// Window is how many earlier runs a run is compared with (default 10).
	Window int
	// MinRuns is the fewest earlier runs a run is judged against (default 5): with fewer,
	// the series has "not enough history".
	MinRuns int
	// Z is the robust z-score a change must reach, in either direction (default 3).
	Z float64
	// MinChange is the least relative change from the baseline median that is flagged
	// (default 0.05: 5%), and the least relative change of the means of a change point's
	// levels that is shown.
	MinChange float64
	// ChangeSigLevel, ChangePermutations and ChangeMinRuns are the parameters of the
	// change-point search (historychange.go): the permutation test's level (default 0.05),
	// its most permutations (199) and the fewest runs of a level (3).
	ChangeSigLevel     float64
	ChangePermutations int
	ChangeMinRuns      int
}

// The defaults of HistoryOptions.
const (
	DefaultHistoryWindow    = 10
	DefaultHistoryMinRuns   = 5
	DefaultHistoryZ         = 3.0
	DefaultHistoryMinChange = 0.05
	// noiseFloor is the least noise a series is taken to have, as a fraction of its
	// baseline median, so that a series that never varied has a finite z.
	noiseFloor = 0.01
	// madScale makes the median absolute deviation estimate the standard deviation of
	// normally distributed values.
	madScale = 1.4826
)

// withDefaults is o with its zero fields set to the defaults.
func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.Window <= 0 {
		o.Window = DefaultHistoryWindow
	}
	if o.MinRuns <= 0 {
		o.MinRuns = DefaultHistoryMinRuns
	}
	o.MinRuns = min(o.MinRuns, o.Window)
	if o.Z <= 0 {
		o.Z = DefaultHistoryZ
	}
	if o.MinChange <= 0 {
		o.MinChange = DefaultHistoryMinChange
	}
	if o.ChangeSigLevel <= 0 || o.ChangeSigLevel >= 1 {
		o.ChangeSigLevel = DefaultChangeSigLevel
	}
	if o.ChangePermutations <= 0 {
		o.ChangePermutations = DefaultChangePermutations
	}
	if o.ChangeMinRuns < 2 {
		o.ChangeMinRuns = DefaultChangeMinRuns
	}
	return o
}

// Verdicts of a point of a history series.
const (
	VerdictRegression  = "regression"
	VerdictImprovement = "improvement"
)

// HistoryPoint is one run's value of a series and how it compares with the runs before it.
type HistoryPoint struct {
	// OK is false when the run did not measure the value (no such configuration or step, the
	// step did not finish, the figure was not measured).
	OK    bool
	Value float64
	// Judged is true when the point had enough earlier runs to be compared with: Baseline
	// is their median, N their number, Change the relative change from it and Z the robust
	// z-score.
	Judged           bool
	Baseline         float64
	N                int
	Change, Z        float64
	Verdict          string // "", VerdictRegression or VerdictImprovement
	Since            int    // for a flagged point, the index of the run where its change began
	comparedWithZero bool   // the baseline median was 0: no relative change, no verdict
}

// HistorySeries is one metric of one step of one configuration over the runs.
type HistorySeries struct {
	Config, Step, Metric string
	field                string // where run.json holds it, for the cells' sources
	dir                  direction
	primary              bool // the step's headline rate
	// Points has one point per run of the history, oldest first.
	Points []HistoryPoint
	// Changes are the series' change points, oldest first (historychange.go).
	Changes []HistoryChange
}

// judge compares each measured point of vals (NaN: not measured) with the measured points
// before it. The baseline m is the median of the up to o.Window points before it; the noise s
// is the series' own: 1.4826 times the median absolute difference between successive earlier
// points (up to 3 o.Window of them), divided by the square root of 2, at least 1% of |m|.
// Successive differences measure the noise without the level: a step change in the history
// is one large difference, which their median ignores. z = (v - m) / s; a point is flagged
// when |z| >= o.Z and |v - m| >= o.MinChange |m|, a regression when it moved in d's worse
// direction, else an improvement. A point with fewer than o.MinRuns measured points before
// it, or a baseline median of 0, is not judged.
func judge(vals []float64, d direction, o HistoryOptions) []HistoryPoint {
	o = o.withDefaults()
	pts := make([]HistoryPoint, len(vals))
	var seen []float64 // the measured values so far
	var idx []int      // their indexes in vals
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		p := &pts[i]
		p.OK, p.Value = true, v
		if len(seen) >= o.MinRuns {
			judgePoint(p, seen[max(0, len(seen)-o.Window):], seen[max(0, len(seen)-3*o.Window):], d, o)
			if p.Verdict != "" {
				p.Since = i
				if k := len(idx) - 1; k >= 0 && pts[idx[k]].Verdict == p.Verdict {
					p.Since = pts[idx[k]].Since // the change goes on
				}
			}
		}
		seen, idx = append(seen, v), append(idx, i)
	}
	return pts
}

// judgePoint sets p's baseline, change, z and verdict against win, the earlier values of the
// baseline, and noisy, the earlier values the noise is measured on.
func judgePoint(p *HistoryPoint, win, noisy []float64, d direction, o HistoryOptions) {
	m := median(win)
	p.Judged, p.Baseline, p.N = true, m, len(win)
	if m == 0 {
		p.comparedWithZero = true
		return
	}
	p.Z = (p.Value - m) / max(noise(noisy), noiseFloor*math.Abs(m))
	p.Change = (p.Value - m) / math.Abs(m)
	if math.Abs(p.Z) < threshold(o.Z, len(noisy)) || math.Abs(p.Change) < o.MinChange || d == neutral {
		return
	}
	if (p.Change > 0) == (d == higherBetter) {
		p.Verdict = VerdictImprovement
	} else {
		p.Verdict = VerdictRegression
	}
}

// threshold is the |z| a point must reach when the noise was estimated from n earlier
// values: the Student-t prediction bound of a new value, t(n-1) at the two-sided tail that z
// has under a normal distribution, times sqrt(1 + 1/n). Few values estimate the noise
// poorly and ask for a larger z (6.6 x 1.1 with 5 values, 4.1 x 1.05 with 10); many ask for
// z itself.
func threshold(z float64, n int) float64 {
	tail := distuv.UnitNormal.CDF(-z)
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1-tail) * math.Sqrt(1+1/float64(n))
}

// noise estimates the standard deviation of the noise of xs, in order, from the median
// absolute difference of successive values (1.4826 / sqrt 2 times it): a level shift in xs
// does not count as noise. Hand-written: gonum/stat has no median absolute deviation, and it
// is three lines over the package's median.
func noise(xs []float64) float64 {
	diffs := make([]float64, len(xs)-1)
	for i := range diffs {
		diffs[i] = math.Abs(xs[i+1] - xs[i])
	}
	return madScale * median(diffs) / math.Sqrt2
}

// historyRun is a run of the history: its label and its configurations with their repeats
// folded into medians.
type historyRun struct {
	Input
	label string
	run   *result.Run
}

// History is the judged series of runs of the same configurations on one host, oldest first.
type History struct {
	Workload string
	runs     []historyRun
	// Excluded are the runs left out, each with why (a host unlike the newest run's).
	Excluded []string
	Series   []*HistorySeries
	opts     HistoryOptions
}

// NewHistory orders runs by their start and builds one series per configuration, step and
// metric with a direction (rates, costs, latencies, sizes), judged by o. Runs from a host
// unlike the newest run's are left out, each with a warning. Runs of different workloads, or
// no runs, are bad input.
func NewHistory(runs []Input, o HistoryOptions) (*History, error) {
	if len(runs) == 0 {
		return nil, errors.New("--history needs run directories")
	}
	for _, in := range runs[1:] {
		if w, w0 := in.Run.Workload.Name, runs[0].Run.Workload.Name; w != w0 {
			return nil, fmt.Errorf("runs of different workloads cannot make one history: %s is %s, %s is %s", runs[0].Dir, w0, in.Dir, w)
		}
	}
	labels := runLabels(runs)
	all := make([]historyRun, len(runs))
	for i, in := range runs {
		all[i] = historyRun{Input: in, label: labels[i]}
		all[i].run, _ = collapseRepeats(in.Run)
	}
	slices.SortStableFunc(all, func(a, b historyRun) int { return a.Run.StartedAt.Compare(b.Run.StartedAt) })
	h := &History{Workload: runs[0].Run.Workload.Name, opts: o.withDefaults()}
	newest := all[len(all)-1]
	for _, hr := range all {
		if d := hostDiffs(hr.Run, newest.Run); len(d) > 0 {
			h.Excluded = append(h.Excluded, fmt.Sprintf("%srun %s ran on a host unlike the newest run %s's: %s; it is left out of the history",
				warningPrefix, hr.label, newest.label, strings.Join(d, "; ")))
			continue
		}
		h.runs = append(h.runs, hr)
	}
	h.build()
	return h, nil
}

// build makes the series of h's runs, in the order the newest runs name their
// configurations, steps and metrics, judges them and finds their change points.
func (h *History) build() {
	index := map[[3]string]int{}
	var vals [][]float64
	for i := len(h.runs) - 1; i >= 0; i-- { // the newest first: its order wins
		for _, c := range h.runs[i].run.Configs {
			for si := range c.Steps {
				s := &c.Steps[si]
				if s.Status != result.StatusOK {
					continue
				}
				for _, m := range stepMetrics(s) {
					key := [3]string{c.Name, s.Name, m.name}
					k, ok := index[key]
					if !ok {
						k = len(h.Series)
						index[key] = k
						h.Series = append(h.Series, &HistorySeries{Config: c.Name, Step: s.Name, Metric: m.name, field: m.field, dir: m.dir,
							primary: m.name == s.Primary+" per_sec"})
						vals = append(vals, nanSlice(len(h.runs)))
					}
					vals[k][i] = m.value
				}
			}
		}
	}
	for k, hs := range h.Series {
		hs.Points = judge(vals[k], hs.dir, h.opts)
		hs.Changes = changes(vals[k], hs.dir, h.opts)
	}
}

// nanSlice is n NaNs: no value measured.
func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// metricValue is one figure of a step with its direction.
type metricValue struct {
	name  string
	value float64
	dir   direction
	field string // its place in run.json's step
}

// stepMetrics are the figures of a finished step that have a direction: each operation's
// rate (per_sec), latency p99 and response-time p99, then the efficiency and the sizes by
// their run.json keys. Figures that were not measured are left out.
func stepMetrics(s *result.Step) []metricValue {
	var out []metricValue
	add := func(name, key, field string, v float64) {
		if d, ok := metricDirection(key); ok && d != neutral && !math.IsNaN(v) {
			out = append(out, metricValue{name, v, d, field})
		}
	}
	ops := slices.Sorted(func(yield func(string) bool) {
		for op := range s.Ops {
			if !yield(op) {
				return
			}
		}
	})
	if i := slices.Index(ops, s.Primary); i > 0 { // the headline rate first
		ops = append(append([]string{s.Primary}, ops[:i]...), ops[i+1:]...)
	}
	for _, name := range ops {
		op := s.Ops[name]
		if op.Count == 0 && name != s.Primary {
			continue
		}
		add(name+" per_sec", "per_sec", "ops."+name+".per_sec", op.PerSec)
		if op.Count > 0 {
			add(name+" p99", "p99", "ops."+name+".latency_us.p99", op.Latency.P99)
		}
		if op.Response != nil {
			add(name+" rt p99", "p99", "ops."+name+".response_us.p99", op.Response.P99)
		}
	}
	for _, part := range []struct {
		key string
		v   any
	}{{"efficiency", s.Efficiency}, {"size", s.Size}} {
		for _, kv := range figures(part.v) {
			add(kv.name, kv.name, part.key+"."+kv.name, kv.value)
		}
	}
	return out
}

// figures are the numbers of a struct of optional figures (Efficiency, Size) by their
// run.json keys, in sorted order; none for nil.
func figures(v any) []metricValue {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]float64
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	var out []metricValue
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, metricValue{name: k, value: m[k]})
	}
	return out
}

// Options are the options h judges by, with the defaults filled in.
func (h *History) Options() HistoryOptions { return h.opts }

// Newest returns the series' point of the newest run.
func (hs *HistorySeries) Newest() HistoryPoint { return hs.Points[len(hs.Points)-1] }

// measured is how many runs measured the series.
func (hs *HistorySeries) measured() int {
	n := 0
	for _, p := range hs.Points {
		if p.OK {
			n++
		}
	}
	return n
}

// NotEnough says why the series' newest run was not judged ("not enough history: 3 runs,
// need 6 (5 before the newest)"), or "" when it was, or when the newest run did not measure it.
func (hs *HistorySeries) NotEnough(o HistoryOptions) string {
	o = o.withDefaults()
	p := hs.Newest()
	if !p.OK || p.Judged {
		return ""
	}
	return fmt.Sprintf("not enough history: %d runs, need %d (%d before the newest)", hs.measured(), o.MinRuns+1, o.MinRuns)
}

// Regressions are the series whose newest run is flagged as a regression.
func (h *History) Regressions() []*HistorySeries {
	var out []*HistorySeries
	for _, hs := range h.Series {
		if hs.Newest().Verdict == VerdictRegression {
			out = append(out, hs)
		}
	}
	return out
}
