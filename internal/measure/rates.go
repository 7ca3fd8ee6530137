package measure

import (
	"cmp"
	"math"
	"slices"
)

// MinRateIntervals is the fewest rates that have percentiles: the Insert Benchmark reports
// none below ten intervals.
const MinRateIntervals = 10

// RatePercentile returns the rate that p percent of the intervals reached or exceeded, as the
// Insert Benchmark computes the percentiles of its per-second rates: the rates sorted from the
// highest, the one at rank p/100 x n (counted from 1, rounded to the nearest, halves to even).
// So p 50 is the median and p 99 a low rate that only 1% of the intervals fell below. ok is
// false with fewer than MinRateIntervals rates. rates is not modified.
func RatePercentile(rates []float64, p float64) (v float64, ok bool) {
	n := len(rates)
	if n < MinRateIntervals {
		return 0, false
	}
	desc := slices.Clone(rates)
	slices.SortFunc(desc, func(a, b float64) int { return cmp.Compare(b, a) })
	// p*n is exact for whole percentiles, so a rank of exactly k+0.5 is not lost to rounding.
	rank := int(math.RoundToEven(p * float64(n) / 100))
	rank = min(max(rank, 1), n)
	return desc[rank-1], true
}
