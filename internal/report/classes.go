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
	ClassUp      = "up"      // above 1.05 of the base: blue
	ClassDown    = "down"    // below 0.95 of the base: gold
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

// rangeClasses colours one column of values (ok false: no value): the top quarter of
// [min, max] green, the bottom quarter red unless min is within 80% of max. Fewer than two
// values, or all equal, get no colour.
func rangeClasses(vals []float64, ok []bool) []string {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for i, v := range vals {
		if ok[i] {
			lo, hi, n = math.Min(lo, v), math.Max(hi, v), n+1
		}
	}
	out := make([]string, len(vals))
	if n < 2 || hi <= lo {
		return out
	}
	q := (hi - lo) / 4
	for i, v := range vals {
		switch {
		case !ok[i]:
		case v >= hi-q:
			out[i] = ClassGood
		case v <= lo+q && lo < 0.8*hi:
			out[i] = ClassBad
		}
	}
	return out
}

// relCell is v relative to base: its text (two decimals) and colour (blue above 1.05, gold
// below 0.95). Without both values, or with a zero base, it is missing.
func relCell(v, base float64, ok, baseOK bool) (string, string) {
	if !ok || !baseOK || base == 0 {
		return missing, ClassMissing
	}
	r := v / base
	class := ""
	switch {
	case r > 1.05:
		class = ClassUp
	case r < 0.95:
		class = ClassDown
	}
	return fmt.Sprintf("%.2f", r), class
}
