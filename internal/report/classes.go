package report

import (
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/result"
)

// Colour classes of table cells in the HTML page.
const (
	ClassGood    = "good"    // top quarter of a rate column: green
	ClassBad     = "bad"     // bottom quarter of a rate column, or a missed SLA: red
	ClassBetter  = "better"  // better than the base by more than 5% in the metric's direction: blue
	ClassWorse   = "worse"   // worse than the base by more than 5% in the metric's direction: gold
	ClassMissed  = "missed"  // a query step's rate whose SLA was missed: grey
	ClassFailed  = "failed"  // the step did not finish (failed, interrupted, skipped)
	ClassMissing = "missing" // not measured or not run: "-"
)

// stepRate returns the step's headline rate when the step finished with one.
func stepRate(s *result.Step) (float64, bool) {
	if s == nil || s.Status != result.StatusOK {
		return 0, false
	}
	op := s.Ops[s.Primary]
	if op == nil {
		return 0, false
	}
	return op.PerSec, true
}

// stateClass is the class of a cell that has no value: the step did not finish, or there is
// nothing to show.
func stateClass(s *result.Step) string {
	if s != nil && s.Status != result.StatusOK {
		return ClassFailed
	}
	return ClassMissing
}

// rangeClasses colours one column of values (ok false: no value) of a metric whose direction
// is d: the best quarter of the range [min, max] green, the worst quarter red unless the
// worst is within 80% of the best (for a cost: the best is at least 80% of the worst). Fewer
// than two values, all equal, or a neutral metric get no colour.
func rangeClasses(vals []float64, ok []bool, d direction) []string {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for i, v := range vals {
		if ok[i] {
			lo, hi, n = math.Min(lo, v), math.Max(hi, v), n+1
		}
	}
	out := make([]string, len(vals))
	if n < 2 || hi <= lo || d == neutral {
		return out
	}
	q := (hi - lo) / 4
	good, bad := ClassGood, ClassBad
	if d == lowerBetter {
		good, bad = bad, good
	}
	for i, v := range vals {
		switch {
		case !ok[i]:
		case v >= hi-q:
			out[i] = good
		case v <= lo+q && lo < 0.8*hi:
			out[i] = bad
		}
	}
	return out
}

// The band around the base within which a relative cell is not coloured: a difference of 5%
// or less is not called better or worse.
const (
	bandLow  = 0.95
	bandHigh = 1.05
)

// relClass is the colour of ratio, a value divided by the base's, for a metric whose
// direction is d: better or worse when it lies outside [0.95, 1.05] (for a rate above is
// better, for a cost below), none within the band or for a neutral metric.
func relClass(ratio float64, d direction) string {
	above, below := ratio > bandHigh, ratio < bandLow
	switch {
	case d == higherBetter && above, d == lowerBetter && below:
		return ClassBetter
	case d == higherBetter && below, d == lowerBetter && above:
		return ClassWorse
	}
	return ""
}

// relCell is v relative to base for a metric whose direction is d: its text (two decimals)
// and colour (relClass). Without both values, or with a zero base, it is missing.
func relCell(v, base float64, ok, baseOK bool, d direction) (string, string) {
	return relSpanCell(point(v), point(base), ok, baseOK, d)
}

// span is a figure of a configuration: the median of its repeats (v) and their least and
// greatest (lo, hi) over n repeats; a configuration that ran once is the point v = lo = hi, n 1.
type span struct {
	v, lo, hi float64
	n         int
}

// point is the span of a figure measured once.
func point(v float64) span { return span{v: v, lo: v, hi: v, n: 1} }

// spreadsApart reports whether the spreads of a and b do not overlap: every repeat of one lies
// strictly above every repeat of the other. Two points are apart when they differ.
func spreadsApart(a, b span) bool { return a.hi < b.lo || b.hi < a.lo }

// spanClass is the one colour rule of the relative cells: c's median divided by the base's
// median b is better or worse (relClass) only when it lies outside the 0.95-1.05 band AND the
// spreads of c's and b's repeats do not overlap (spreadsApart), so a difference within the measured
// noise is not coloured. Without repeats (points) it is relClass alone.
func spanClass(c, b span, d direction) string {
	if b.v == 0 || !spreadsApart(c, b) {
		return ""
	}
	return relClass(c.v/b.v, d)
}

// relSpanCell is c relative to the base b for a metric whose direction is d: the ratio of the
// medians (two decimals), with the spread of c's repeats divided by b's median when c has
// repeats and they print apart ("1.07 (0.98-1.12)"), and its colour (spanClass). Without both values, or with a
// zero base, it is missing.
func relSpanCell(c, b span, ok, baseOK bool, d direction) (string, string) {
	if !ok || !baseOK || b.v == 0 {
		return missing, ClassMissing
	}
	text := fmt.Sprintf("%.2f", c.v/b.v)
	if lo, hi := fmt.Sprintf("%.2f", c.lo/b.v), fmt.Sprintf("%.2f", c.hi/b.v); c.n > 1 && lo != hi {
		text += " (" + lo + "-" + hi + ")"
	}
	return text, spanClass(c, b, d)
}
