package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
)

// noisy returns n per-second rates around level(i), each with Gaussian noise of sd, made
// autocorrelated as per-second rates are: AR(1) with coefficient phi.
func noisy(seed uint64, n int, sd, phi float64, level func(i int) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([]float64, n)
	var e float64
	for i := range xs {
		e = phi*e + rng.NormFloat64()*sd*math.Sqrt(1-phi*phi)
		xs[i] = level(i) + e
	}
	return xs
}

func flat(int) float64 { return 1000 }

// A flat noisy series has no trend: over many seeds the test rejects no trend at 5% about 5%
// of the time for independent rates, and not much more often for autocorrelated ones, where
// the plain Mann-Kendall test (whose variance assumes independence) rejects it far more
// often. Its Theil-Sen slope is small against the level.
func TestTrendFlatNoisy(t *testing.T) {
	for _, c := range []struct {
		phi  float64
		most int // rejections of no trend allowed, of runs
	}{{0, 20}, {0.5, 30}} {
		flatRejections(t, c.phi, c.most)
	}
}

// flatRejections tests flat series of AR(1) noise with coefficient phi, and fails when the
// test rejects no trend more than most times of 200, or when for autocorrelated rates the
// plain test does not reject it more often.
func flatRejections(t *testing.T, phi float64, most int) {
	const runs, n = 200, 120
	var corrected, plain int
	for seed := range uint64(runs) {
		xs := noisy(seed, n, 50, phi, flat)
		tr, ok := TrendTest(xs)
		if !ok || tr.N != n || tr.Mean != 1 {
			t.Fatalf("seed %d: %+v %v", seed, tr, ok)
		}
		if tr.P < 0.05 {
			corrected++
		}
		if 2*(1-normalCDF(math.Abs(plainZ(tr.S, xs)))) < 0.05 {
			plain++
		}
		if drift := math.Abs(tr.Slope) * n / 1000; drift > 0.1 {
			t.Errorf("seed %d: the slope %v moves a flat series by %.0f%%", seed, tr.Slope, drift*100)
		}
	}
	if corrected > most {
		t.Errorf("lag-1 correlation %v: the test found a trend in %d of %d flat series (at most %d expected)", phi, corrected, runs, most)
	}
	if phi > 0 && plain < 2*corrected {
		t.Errorf("lag-1 correlation %v: the plain test found a trend in %d, the bootstrap in %d of %d flat series: the bootstrap does nothing for autocorrelation", phi, plain, corrected, runs)
	}
}

// plainZ is the Mann-Kendall Z of S as the plain test has it, its variance n(n-1)(2n+5)/18 that
// of independent values without ties.
func plainZ(s float64, xs []float64) float64 {
	n := float64(len(xs))
	v := n * (n - 1) * (2*n + 5) / 18
	switch {
	case s > 0:
		return (s - 1) / math.Sqrt(v)
	case s < 0:
		return (s + 1) / math.Sqrt(v)
	}
	return 0
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// A steady decline of 30% over two minutes is found, and its slope is the decline's.
func TestTrendSteadyDecline(t *testing.T) {
	const n = 120
	slope := -300.0 / n
	xs := noisy(1, n, 30, 0.5, func(i int) float64 { return 1000 + slope*float64(i) })
	tr, ok := TrendTest(xs)
	if !ok || tr.P >= 0.01 || tr.S >= 0 {
		t.Fatalf("decline not found: %+v", tr)
	}
	if math.Abs(tr.Slope-slope) > 0.2*math.Abs(slope) {
		t.Errorf("slope %v, want about %v", tr.Slope, slope)
	}
}

// A rate that drops by half halfway is a trend, and its Theil-Sen slope spreads the drop over
// the series: of the order of the drop over the length.
func TestTrendStepDropHalfway(t *testing.T) {
	const n = 60
	xs := noisy(2, n, 30, 0.5, func(i int) float64 {
		if i < n/2 {
			return 1000
		}
		return 500
	})
	tr, ok := TrendTest(xs)
	if !ok || tr.P >= 0.05 || tr.Slope >= 0 {
		t.Fatalf("drop not found: %+v", tr)
	}
	if change := -tr.Slope * n; change < 250 || change > 1000 {
		t.Errorf("the slope moves the rate by %v over the series, against a drop of 500", change)
	}
}

// The Theil-Sen slope of a line is its slope, whatever a few outliers do; a strictly rising
// series has the greatest S.
func TestTheilSenAndScore(t *testing.T) {
	xs := make([]float64, 21)
	for i := range xs {
		xs[i] = 7 - 0.5*float64(i)
	}
	xs[3], xs[17] = 1e6, -1e6
	if got := TheilSen(xs); got != -0.5 {
		t.Errorf("Theil-Sen slope %v, want -0.5", got)
	}
	rising := []float64{1, 2, 3, 4, 5, 6}
	if got := mkScore(rising); got != 15 {
		t.Errorf("S of a rising series of 6 = %v, want 15 (every pair)", got)
	}
	// The Fenwick tree's S is the sum of the signs of every pair, ties included.
	rng := rand.New(rand.NewPCG(9, 9))
	for range 50 {
		xs := make([]float64, 1+rng.IntN(40))
		for i := range xs {
			xs[i] = float64(rng.IntN(8))
		}
		var want float64
		for i := range xs {
			for j := i + 1; j < len(xs); j++ {
				want += float64(cmp.Compare(xs[j], xs[i]))
			}
		}
		if got := mkScore(xs); got != want {
			t.Fatalf("S of %v = %v, pairs say %v", xs, got, want)
		}
	}
	if _, ok := TrendTest([]float64{1, 2}); ok {
		t.Error("two values were tested")
	}
	// A constant series has no trend and no correction to make.
	tr, ok := TrendTest([]float64{5, 5, 5, 5, 5, 5})
	if !ok || tr.S != 0 || tr.P != 1 || tr.Slope != 0 {
		t.Errorf("constant series: %+v", tr)
	}
}

// A series longer than MaxTrendPoints is tested on block means, its slope still per value.
func TestTrendLongSeriesInBlocks(t *testing.T) {
	const n = 3500
	slope := -0.1
	xs := noisy(3, n, 30, 0.5, func(i int) float64 { return 1000 + slope*float64(i) })
	tr, ok := TrendTest(xs)
	if !ok || tr.Mean != 4 || tr.N != n/4 {
		t.Fatalf("blocks: %+v", tr)
	}
	if tr.P >= 0.01 || math.Abs(tr.Slope-slope) > 0.1*math.Abs(slope) {
		t.Errorf("long decline: %+v, want slope about %v", tr, slope)
	}
}

// A rate that falls to half at second 20 and stays within a few percent of it settles there;
// one noisy second later does not move the settling time; a series still falling at its end
// never settles within a tight band.
func TestSettle(t *testing.T) {
	xs := noisy(4, 60, 10, 0, func(i int) float64 {
		if i < 20 {
			return 2000
		}
		return 1000
	})
	xs[40] = 1500 // a one-second spike
	i, ok := Settle(xs, 10)
	if !ok || i < 18 || i > 22 {
		t.Errorf("settled at %d (%v), want about 20", i, ok)
	}
	falling := make([]float64, 60)
	for k := range falling {
		falling[k] = 1000 - 10*float64(k)
	}
	if i, ok := Settle(falling, 1); ok && i < 50 {
		t.Errorf("a falling series settled at %d", i)
	}
	if i, ok := Settle(noisy(5, 30, 10, 0, flat), 10); !ok || i != 0 {
		t.Errorf("a flat series settled at %d (%v), want 0", i, ok)
	}
}
