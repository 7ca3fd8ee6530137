package report

import (
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/stats"
)

// The change-point search of a history (docs/report.md, History): e-divisive with these
// parameters, over each series' measured runs.
const (
	// DefaultChangeSigLevel is the significance level of each change point's permutation test.
	DefaultChangeSigLevel = stats.DefaultSigLevel
	// DefaultChangePermutations is the most permutations of each test.
	DefaultChangePermutations = stats.DefaultPermutations
	// DefaultChangeMinRuns is the fewest runs of a level: a change point needs as many runs
	// on each side of it.
	DefaultChangeMinRuns = stats.DefaultMinSize
	// changeSeed seeds the permutations: the same runs give the same change points.
	changeSeed = 1
)

// Regression methods: which test --fail-on-regression fails on (docs/report.md, History).
const (
	MethodLookback    = "lookback"
	MethodChangePoint = "changepoint"
	MethodBoth        = "both"
)

// RegressionMethods are the methods --regression-method takes, the default first.
func RegressionMethods() []string { return []string{MethodLookback, MethodChangePoint, MethodBoth} }

// HistoryChange is a change point of a series: the run that introduced a new level, the means
// of the level before it and of the new one, and its verdict by the metric's direction.
type HistoryChange struct {
	// Run is the index of the first run of the new level; From the first run of the level
	// before it and To one past the last run of the new level.
	Run, From, To int
	Before, After float64
	// Change is the relative change of the means, (After - Before) / |Before|.
	Change float64
	// P is the permutation test's p-value.
	P       float64
	Verdict string // VerdictRegression or VerdictImprovement
}

// changes are the change points of vals (NaN: not measured; the runs that measured the series,
// in order) by stats.EDivisive with o's parameters, mapped back to the runs. A change point
// whose means differ by less than o.MinChange, or whose level before it has a mean of 0, is
// left out, as the lookback test flags no such change; the rest are regressions or
// improvements by d.
func changes(vals []float64, d direction, o HistoryOptions) []HistoryChange {
	o = o.withDefaults()
	var xs []float64
	var runs []int // runs[k] is the run of xs[k]
	for i, v := range vals {
		if !math.IsNaN(v) {
			xs, runs = append(xs, v), append(runs, i)
		}
	}
	cps := stats.EDivisive(xs, stats.EDivisiveOptions{SigLevel: o.ChangeSigLevel, Permutations: o.ChangePermutations,
		MinSize: o.ChangeMinRuns, Seed: changeSeed})
	var out []HistoryChange
	for k, cp := range cps {
		if cp.Before == 0 || d == neutral {
			continue
		}
		c := HistoryChange{Run: runs[cp.Index], From: runs[0], To: runs[len(runs)-1] + 1, Before: cp.Before, After: cp.After,
			Change: (cp.After - cp.Before) / math.Abs(cp.Before), P: cp.P}
		if k > 0 {
			c.From = runs[cps[k-1].Index]
		}
		if k+1 < len(cps) {
			c.To = runs[cps[k+1].Index]
		}
		if math.Abs(c.Change) < o.MinChange {
			continue
		}
		c.Verdict = VerdictRegression
		if (c.Change > 0) == (d == higherBetter) {
			c.Verdict = VerdictImprovement
		}
		out = append(out, c)
	}
	return out
}

// recentChange is the series' newest change point when it is among the newest window runs
// that measured the series, else nil: the change point --fail-on-regression judges, as the
// lookback test judges a level for the window runs after it changed.
func (hs *HistorySeries) recentChange(window int) *HistoryChange {
	if len(hs.Changes) == 0 {
		return nil
	}
	c := &hs.Changes[len(hs.Changes)-1]
	newer := 0 // the measured runs from c.Run on
	for _, p := range hs.Points[c.Run:] {
		if p.OK {
			newer++
		}
	}
	if newer > window {
		return nil
	}
	return c
}

// ChangeRegressions are the series whose newest change point is a regression among the
// newest runs (HistoryOptions.Window of those that measured the series).
func (h *History) ChangeRegressions() []*HistorySeries {
	var out []*HistorySeries
	for _, hs := range h.Series {
		if c := hs.recentChange(h.opts.Window); c != nil && c.Verdict == VerdictRegression {
			out = append(out, hs)
		}
	}
	return out
}

// changeCounts counts the change points of every series: regressions and improvements.
func (h *History) changeCounts() (reg, imp int) {
	for _, hs := range h.Series {
		for _, c := range hs.Changes {
			if c.Verdict == VerdictRegression {
				reg++
			} else {
				imp++
			}
		}
	}
	return reg, imp
}

// changeMethodText says how change points are found, with the parameters in force.
func (h *History) changeMethodText() string {
	o := h.opts
	return fmt.Sprintf("Change points: e-divisive (Matteson and James 2014, as MongoDB's and Apache Otava's tools) over each series' measured runs: "+
		"the split into two levels whose values differ most (the energy statistic, mean absolute differences), kept when a permutation test "+
		"(up to %d permutations, seeded: the same runs give the same change points) gives p <= %s, then searched again on each side; "+
		"each level has at least %d runs. A change point is shown when its levels' means differ by at least %s%%: "+
		"a regression when the new level is worse by the metric's direction, else an improvement.",
		o.ChangePermutations, numfmt.Num(o.ChangeSigLevel), o.ChangeMinRuns, numfmt.Num(o.MinChange*100))
}

// changeLabel is the text of a change point's marker: the run that introduced it and the
// means either side.
func (h *History) changeLabel(c HistoryChange) string {
	return fmt.Sprintf("run %s: %s → %s", h.runName(c.Run), numfmt.Count(c.Before), numfmt.Count(c.After))
}

// changeTable lists every change point of every series, oldest run first within a series.
func (h *History) changeTable() *Table {
	t := &Table{Title: "Change points", Metric: "value",
		Header: []string{"run", "config", "step", "metric", "mean before", "runs before", "mean after", "runs after", "change", "p", "verdict"}}
	for _, hs := range h.Series {
		for _, c := range hs.Changes {
			t.Rows = append(t.Rows, []string{h.runName(c.Run), hs.Config, hs.Step, hs.Metric,
				numfmt.Num(c.Before), h.runSpan(hs, c.From, c.Run), numfmt.Num(c.After), h.runSpan(hs, c.Run, c.To),
				percent(c.Change), fmt.Sprintf("%.3f", c.P), c.Verdict})
			t.Class = append(t.Class, historyVerdictClasses(len(t.Header), c.Verdict))
			t.Src = append(t.Src, h.changeSources(hs, c))
		}
	}
	return t
}

// runSpan is how many runs from run from to run to (exclusive) measured hs, and which: "10
// (1-14)".
func (h *History) runSpan(hs *HistorySeries, from, to int) string {
	n := len(h.measuredDirs(hs, from, to))
	return fmt.Sprintf("%d (%d-%d)", n, from+1, to)
}

// measuredDirs are the run directories of the runs from, ..., to-1 that measured hs.
func (h *History) measuredDirs(hs *HistorySeries, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		if hs.Points[i].OK {
			out = append(out, h.runs[i].Dir)
		}
	}
	return out
}

// changeSources are the sources of a change point's row: each mean the runs of its level, the
// change the new level's mean divided by the old, and the p-value the runs of both levels.
func (h *History) changeSources(hs *HistorySeries, c HistoryChange) []Source {
	src := make([]Source, 11)
	before := Source{Config: hs.Config, Step: hs.Step, Field: hs.field + " (their mean)", over: h.measuredDirs(hs, c.From, c.Run)}
	after := Source{Config: hs.Config, Step: hs.Step, Field: hs.field + " (their mean)", over: h.measuredDirs(hs, c.Run, c.To)}
	src[4], src[5], src[6], src[7] = before, before, after, after
	rel := after
	rel.Of = &before
	src[8] = rel
	src[9] = Source{Config: hs.Config, Step: hs.Step, Field: hs.field + " (a permutation test of the two levels)", over: h.measuredDirs(hs, c.From, c.To)}
	return src
}

// changeTerminal is the terminal's line of a change point among the newest runs.
func (h *History) changeTerminal(hs *HistorySeries, c *HistoryChange) string {
	word := "CHANGE POINT, REGRESSION"
	if c.Verdict == VerdictImprovement {
		word = "change point, improvement"
	}
	return fmt.Sprintf("%s: %s %s %s: from run %s, mean %s after %s before (%s, p %.3f)",
		word, hs.Config, hs.Step, hs.Metric, h.runName(c.Run), numfmt.Num(c.After), numfmt.Num(c.Before), percent(c.Change), c.P)
}
