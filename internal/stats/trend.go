package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MaxTrendPoints bounds the points Trend tests: a longer series is tested on the means of
// equal blocks of consecutive points, at most this many, so that the test's pairs (n²/2) stay
// under half a million however long the step ran.
const MaxTrendPoints = 1000

// TrendResamples is the number of block-bootstrap resamples TrendTest draws.
const TrendResamples = 999

// trendSeed seeds TrendTest's resampling, so that a series always gets the same p-value.
const trendSeed = 0x5eed

// Trend is the outcome of a trend test of a series of equally spaced values (a step's
// per-second rates).
type Trend struct {
	// N is the number of points tested, and Mean the number of the series' values each of
	// them is the mean of (1 unless the series was longer than MaxTrendPoints).
	N, Mean int
	// S is the Mann-Kendall statistic: the pairs in which the later value is greater minus
	// those in which it is smaller.
	S float64
	// Block is the length, in points, of the blocks the bootstrap resampled.
	Block int
	// P is the two-sided p-value of the hypothesis of no trend: the share of the resampled
	// series whose |S| reached the series' own.
	P float64
	// Slope is the Theil-Sen slope: the median of the slopes between every pair of values,
	// in the values' unit per step of the series (per second for per-second rates).
	Slope float64
}

// TrendTest tests xs, equally spaced values, for a monotonic trend: the Mann-Kendall statistic
// S (Mann 1945; Kendall 1975), its significance by the block bootstrap (Kundzewicz and
// Robson, "Change detection in hydrological records", Hydrological Sciences Journal 49, 2004;
// Önöz and Bayazit, "Block bootstrap for Mann-Kendall trend test of serially dependent data",
// Hydrological Processes 26, 2012), and the Theil-Sen slope (Theil 1950; Sen 1968) for its
// size. Per-second rates are autocorrelated (a compaction or a checkpoint slows several seconds
// in a row), which makes the plain test, whose variance assumes independent values, find
// trends that are not there. The bootstrap keeps that dependence: it draws TrendResamples
// series of moving blocks of the values (Künsch 1989), in random order, which breaks any
// trend but not the dependence within a block, and P is the share of them whose |S| is at
// least the series' own. A block is as long as the leading lags at which the series, less its
// Theil-Sen trend, is significantly autocorrelated (outside ±1.96/√n) plus one, and at least
// ⌈n^(1/3)⌉ points (Hall, Horowitz and Jing 1995). On simulated AR(1) rates with no trend
// the test rejects at 5% about 5% of the time without autocorrelation and 10-15% of the time
// with a lag-1 correlation of 0.5-0.7, where the plain test rejects 24-42% (trend_test.go);
// Hamed and Rao's variance correction (1998), tried first, did worse on both. ok is false
// with fewer than 3 values.
//
// gonum has the normal distribution (the autocorrelation's bound) but no Mann-Kendall test,
// bootstrap, Theil-Sen slope, ranks or autocorrelation function, which are written here.
func TrendTest(xs []float64) (t Trend, ok bool) {
	pts, mean := blockMeans(xs, MaxTrendPoints)
	n := len(pts)
	if n < 3 {
		return Trend{}, false
	}
	t = Trend{N: n, Mean: mean, S: mkScore(pts)}
	perPoint := TheilSen(pts)
	t.Slope = perPoint / float64(mean)
	detrended := make([]float64, n)
	for i, x := range pts {
		detrended[i] = x - perPoint*float64(i+1)
	}
	t.Block = blockLength(detrended)
	t.P = bootstrapP(pts, t.S, t.Block)
	return t, true
}

// blockLength returns the bootstrap's block length for a series without its trend: one more
// than the leading lags whose autocorrelation lies above the 95% bound of no correlation,
// 1.96/√n, and at least ⌈n^(1/3)⌉.
func blockLength(detrended []float64) int {
	n := len(detrended)
	bound := distuv.UnitNormal.Quantile(0.975) / math.Sqrt(float64(n))
	acf := autocorrelation(detrended)
	l := 1
	for l < n && acf[l] > bound {
		l++
	}
	return max(l, int(math.Ceil(math.Cbrt(float64(n)))))
}

// bootstrapP returns the share of TrendResamples moving-block resamples of xs, in blocks of
// block values, whose |S| is at least |s|, counting xs itself as one (so never 0).
func bootstrapP(xs []float64, s float64, block int) float64 {
	n := len(xs)
	rng := rand.New(rand.NewPCG(trendSeed, uint64(n)))
	z := make([]float64, n)
	sc := newScorer(n)
	hits := 0
	for range TrendResamples {
		for i := 0; i < n; i += block {
			from := rng.IntN(n - block + 1)
			copy(z[i:], xs[from:from+block])
		}
		if math.Abs(sc.score(z)) >= math.Abs(s) {
			hits++
		}
	}
	return float64(hits+1) / float64(TrendResamples+1)
}

// blockMeans returns xs, or when it has more than most values the means of equal blocks of
// consecutive values (the last, shorter, block left out), at most most of them, and the
// block's length.
func blockMeans(xs []float64, most int) ([]float64, int) {
	if len(xs) <= most {
		return xs, 1
	}
	block := (len(xs) + most - 1) / most
	out := make([]float64, 0, len(xs)/block)
	for i := 0; i+block <= len(xs); i += block {
		var sum float64
		for _, x := range xs[i : i+block] {
			sum += x
		}
		out = append(out, sum/float64(block))
	}
	return out, block
}

// mkScore is the Mann-Kendall S of xs: the sum of sign(xs[j]-xs[i]) over every i < j.
func mkScore(xs []float64) float64 { return newScorer(len(xs)).score(xs) }

// scorer computes Mann-Kendall S in O(n log n): a Fenwick tree counts, for each value, the
// earlier values below and above it. Its buffers are reused from one series to the next.
type scorer struct {
	tree []int
	idx  []int
	rank []int
}

func newScorer(n int) *scorer {
	return &scorer{tree: make([]int, n+1), idx: make([]int, n), rank: make([]int, n)}
}

// score returns S of xs, which has at most the scorer's n values.
func (sc *scorer) score(xs []float64) float64 {
	n := len(xs)
	idx, rank, tree := sc.idx[:n], sc.rank[:n], sc.tree[:n+1]
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	r := 0 // dense ranks from 1: equal values share one
	for k, i := range idx {
		if k == 0 || xs[i] != xs[idx[k-1]] {
			r++
		}
		rank[i] = r
	}
	clear(tree)
	var s int
	for j, r := range rank {
		below, atOrBelow := 0, 0
		for i := r - 1; i > 0; i -= i & -i {
			below += tree[i]
		}
		for i := r; i > 0; i -= i & -i {
			atOrBelow += tree[i]
		}
		s += below - (j - atOrBelow)
		for i := r; i <= n; i += i & -i {
			tree[i]++
		}
	}
	return float64(s)
}

// autocorrelation returns the sample autocorrelation of xs at every lag from 0 to len-1:
// Σ (x_t - x̄)(x_t+k - x̄) / Σ (x_t - x̄)², as statsmodels' acf computes it. A constant series
// has none (every lag's is 0, lag 0's 1).
func autocorrelation(xs []float64) []float64 {
	n := len(xs)
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	var den float64
	for _, x := range xs {
		den += (x - mean) * (x - mean)
	}
	acf := make([]float64, n)
	acf[0] = 1
	if den == 0 {
		return acf
	}
	for k := 1; k < n; k++ {
		var num float64
		for t := 0; t+k < n; t++ {
			num += (xs[t] - mean) * (xs[t+k] - mean)
		}
		acf[k] = num / den
	}
	return acf
}

// TheilSen returns the Theil-Sen slope of equally spaced values xs (Theil 1950; Sen 1968): the
// median of (xs[j]-xs[i])/(j-i) over every pair i < j, per step of the series; 0 with fewer
// than 2 values. It holds every pair's slope, n²/2 of them: callers bound n (TrendTest tests at
// most MaxTrendPoints).
func TheilSen(xs []float64) float64 {
	n := len(xs)
	if n < 2 {
		return 0
	}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := range xs {
		for j := i + 1; j < n; j++ {
			slopes = append(slopes, (xs[j]-xs[i])/float64(j-i))
		}
	}
	return Median(slopes)
}

// Median returns the median of xs (the mean of the two middle values of an even count),
// sorting xs in place; NaN when xs is empty.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// SettleWindow is the width, in values, of the moving median Settle smooths a series with.
const SettleWindow = 5

// Settle returns the index of the first value of xs from which the series stays within
// bandPct percent of its final level, as a control system's settling time is measured (the
// time after which a step response stays within a band of its final value): the final level
// is the median of the last quarter of xs, and the series is first smoothed by a centred
// moving median of SettleWindow values (shorter at the ends), so that one noisy second does
// not count as leaving the band. ok is false with fewer than 4 values, or when even the last
// smoothed value lies outside the band (the series never settled).
func Settle(xs []float64, bandPct float64) (index int, ok bool) {
	n := len(xs)
	if n < 4 {
		return 0, false
	}
	level := Median(slices.Clone(xs[n-n/4:]))
	band := math.Abs(level) * bandPct / 100
	smooth := movingMedian(xs, SettleWindow)
	index = n
	for i := n - 1; i >= 0 && math.Abs(smooth[i]-level) <= band; i-- {
		index = i
	}
	return index, index < n
}

// movingMedian returns the centred moving median of xs over width values, fewer at the ends.
func movingMedian(xs []float64, width int) []float64 {
	out := make([]float64, len(xs))
	win := make([]float64, 0, width)
	for i := range xs {
		lo, hi := max(i-width/2, 0), min(i+width/2+1, len(xs))
		win = append(win[:0], xs[lo:hi]...)
		out[i] = Median(win)
	}
	return out
}
