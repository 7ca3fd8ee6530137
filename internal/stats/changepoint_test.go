package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// levels is a series of len(at) segments: values of segment i at level lv[i] with a uniform
// relative noise of at most ±pct%, segment i starting at at[i] and ending where the next
// starts (the last at n).
func levels(rng *rand.Rand, n int, at []int, lv []float64, pct float64) []float64 {
	xs := make([]float64, n)
	seg := 0
	for i := range xs {
		for seg+1 < len(at) && i >= at[seg+1] {
			seg++
		}
		xs[i] = lv[seg] * (1 + pct/100*(2*rng.Float64()-1))
	}
	return xs
}

// indexes are the change points' indexes.
func indexes(cps []ChangePoint) []int {
	var out []int
	for _, cp := range cps {
		out = append(out, cp.Index)
	}
	return out
}

// near reports whether v is within pct% of want.
func near(v, want, pct float64) bool { return math.Abs(v-want) <= math.Abs(want)*pct/100 }

// TestEDivisiveStep: a level of 100 with ±2% noise drops to 80 at value 20 of 30; the one
// change point is there, significant, with the means of the levels either side.
func TestEDivisiveStep(t *testing.T) {
	for seed := range uint64(5) {
		xs := levels(rand.New(rand.NewPCG(seed, 1)), 30, []int{0, 20}, []float64{100, 80}, 2)
		cps := EDivisive(xs, EDivisiveOptions{Seed: seed})
		if got := indexes(cps); !slices.Equal(got, []int{20}) {
			t.Errorf("seed %d: change points at %v, want [20]", seed, got)
			continue
		}
		cp := cps[0]
		if cp.P > DefaultSigLevel || cp.Q <= 0 || !near(cp.Before, 100, 2) || !near(cp.After, 80, 2) {
			t.Errorf("seed %d: %+v, want p <= %g, before ~100, after ~80", seed, cp, DefaultSigLevel)
		}
	}
}

// TestEDivisiveNoChange: noise alone (±3%, 40 series) rarely gives a change point: no more
// often than the test's level allows (5% of series expected, at most 6 of 40), and a flat
// series never.
func TestEDivisiveNoChange(t *testing.T) {
	found := 0
	for seed := range uint64(40) {
		xs := levels(rand.New(rand.NewPCG(seed, 2)), 30, []int{0}, []float64{100}, 3)
		if cps := EDivisive(xs, EDivisiveOptions{Seed: seed}); len(cps) > 0 {
			found++
		}
	}
	if found > 6 {
		t.Errorf("change points in %d of 40 series of noise alone, want at most 6", found)
	}
	if cps := EDivisive(slices.Repeat([]float64{7}, 20), EDivisiveOptions{}); len(cps) > 0 {
		t.Errorf("a flat series has change points: %+v", cps)
	}
}

// TestEDivisiveTwoChanges: 100, then 80 from value 15, then 120 from value 30 of 45: two
// change points, at 15 and 30, in order, each with its own segments' means.
func TestEDivisiveTwoChanges(t *testing.T) {
	xs := levels(rand.New(rand.NewPCG(9, 3)), 45, []int{0, 15, 30}, []float64{100, 80, 120}, 2)
	cps := EDivisive(xs, EDivisiveOptions{Seed: 1})
	if got := indexes(cps); !slices.Equal(got, []int{15, 30}) {
		t.Fatalf("change points at %v, want [15 30]", got)
	}
	for i, want := range [][2]float64{{100, 80}, {80, 120}} {
		if cp := cps[i]; !near(cp.Before, want[0], 2) || !near(cp.After, want[1], 2) {
			t.Errorf("change point %d: before %g, after %g, want ~%g, ~%g", i, cp.Before, cp.After, want[0], want[1])
		}
	}
}

// TestEDivisiveMinSize: a change MinSize values before the end is found there; with one
// value fewer after it, no change point leaves fewer than MinSize values on either side.
func TestEDivisiveMinSize(t *testing.T) {
	xs := levels(rand.New(rand.NewPCG(4, 4)), 20+DefaultMinSize, []int{0, 20}, []float64{100, 70}, 1)
	if got := indexes(EDivisive(xs, EDivisiveOptions{})); !slices.Equal(got, []int{20}) {
		t.Errorf("%d values after the change: change points at %v, want [20]", DefaultMinSize, got)
	}
	short := xs[:len(xs)-1]
	for _, cp := range EDivisive(short, EDivisiveOptions{}) {
		if cp.Index < DefaultMinSize || cp.Index > len(short)-DefaultMinSize {
			t.Errorf("%d values after the change: a change point at %d of %d", DefaultMinSize-1, cp.Index, len(short))
		}
	}
}

// TestEDivisiveSeeded: the same values and seed give the same change points and p-values;
// a p-value is a count of permutations over 1 + their number.
func TestEDivisiveSeeded(t *testing.T) {
	xs := levels(rand.New(rand.NewPCG(5, 5)), 24, []int{0, 12}, []float64{100, 96}, 3)
	o := EDivisiveOptions{Seed: 42, Permutations: 99}
	a, b := EDivisive(xs, o), EDivisive(xs, o)
	if !slices.Equal(a, b) {
		t.Errorf("the same seed gave %+v, then %+v", a, b)
	}
	for _, cp := range a {
		if r := cp.P * 100; math.Abs(r-math.Round(r)) > 1e-9 || r < 1 {
			t.Errorf("p-value %g is not a count of 99 permutations + 1 over 100", cp.P)
		}
	}
}

// BenchmarkEDivisive: a history of 100 runs with one step, as a series of a long nightly
// history (every permutation of both tests).
func BenchmarkEDivisive(b *testing.B) {
	xs := levels(rand.New(rand.NewPCG(1, 1)), 100, []int{0, 60}, []float64{100, 80}, 2)
	for b.Loop() {
		EDivisive(xs, EDivisiveOptions{})
	}
}
