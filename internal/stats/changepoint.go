package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Hand-written: no maintained Go library implements e-divisive (searched package docs and
// public code in 2026: the implementations are R's ecp, MongoDB's Python
// signal-processing-algorithms, Apache Otava's Python and a Rust crate), and gonum/stat has
// neither the energy statistic of a split series nor a permutation test. The cost is
// O(n²) per segment searched and per permutation (BenchmarkEDivisive).

// EDivisiveOptions are the parameters of EDivisive. Zero fields take the defaults.
type EDivisiveOptions struct {
	// SigLevel is the significance level of each permutation test (default 0.05): a
	// candidate change point with a p-value above it ends the search.
	SigLevel float64
	// Permutations is the most permutations of each test (default 199, as R's ecp). The
	// smallest p-value it can give is 1/(Permutations+1).
	Permutations int
	// MinSize is the fewest values of a segment, at least 2 (default 3): a change point has at
	// least MinSize values on each side.
	MinSize int
	// Alpha is the moment index of the distances, in (0, 2) (default 1: the mean absolute
	// difference, the "e-divisive means" of MongoDB's tool).
	Alpha float64
	// Seed seeds the permutations: the same values and seed find the same change points.
	Seed uint64
}

// The defaults of EDivisiveOptions.
const (
	DefaultSigLevel     = 0.05
	DefaultPermutations = 199
	DefaultMinSize      = 3
	DefaultAlpha        = 1.0
)

// withDefaults is o with its zero or invalid fields set to the defaults.
func (o EDivisiveOptions) withDefaults() EDivisiveOptions {
	if o.SigLevel <= 0 || o.SigLevel >= 1 {
		o.SigLevel = DefaultSigLevel
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultPermutations
	}
	if o.MinSize < 2 {
		o.MinSize = DefaultMinSize
	}
	if o.Alpha <= 0 || o.Alpha >= 2 {
		o.Alpha = DefaultAlpha
	}
	return o
}

// ChangePoint is where a series' distribution changed: Index is the first value of the new
// segment.
type ChangePoint struct {
	Index int
	// Q is the energy statistic of the split when it was found; P its permutation p-value.
	Q, P float64
	// Before and After are the means of the segments either side (up to the change points
	// next to it).
	Before, After float64
}

// EDivisive finds the change points of xs (in order, no NaNs) by the e-divisive method of
// Matteson and James ("A Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data", JASA 109(505), 2014), as R's ecp package e.divisive and MongoDB's
// change-point detection (Daly et al., ICPE 2020) use it. For a segment Z and a split
// X = Z[s:τ], Y = Z[τ:κ], the energy statistic is
//
//	Q = mn/(m+n) (2/(mn) Σ|x-y|^α - C(m,2)⁻¹ Σ|x-x'|^α - C(n,2)⁻¹ Σ|y-y'|^α)
//
// maximised over τ and κ. Divisively: the split of the current segments with the largest Q
// is a candidate; a permutation test (the values permuted within each current segment,
// seeded by o.Seed, up to o.Permutations times) gives its p-value (r+1)/(R+1), r the
// permutations whose largest Q reached it. The candidate is accepted while p <= o.SigLevel,
// and the search goes on in the new segments; the first rejected candidate ends it. The test
// stops early once r makes p exceed the level whatever the rest give (the result is the same).
// Apache Otava (Hunter, Fleming et al., ICPE 2023) replaces the permutations with a t-test
// over fixed windows; this is the original method. The change points are returned in order
// of their index, with the means of the final segments either side.
func EDivisive(xs []float64, o EDivisiveOptions) []ChangePoint {
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(xs)} // the segments are xs[bounds[i]:bounds[i+1]]
	var found []ChangePoint
	for {
		at, q := bestSplit(xs, bounds, o)
		if at < 0 {
			break
		}
		p := permutationP(xs, bounds, q, o, rng)
		if p > o.SigLevel {
			break
		}
		found = append(found, ChangePoint{Index: at, Q: q, P: p})
		i, _ := slices.BinarySearch(bounds, at)
		bounds = slices.Insert(bounds, i, at)
	}
	return withMeans(xs, bounds, found)
}

// bestSplit is the split with the largest Q of any segment of xs between bounds, and its Q;
// -1 when no segment can be split into two of o.MinSize values.
func bestSplit(xs []float64, bounds []int, o EDivisiveOptions) (int, float64) {
	at, best := -1, math.Inf(-1)
	for i := 0; i+1 < len(bounds); i++ {
		if tau, q := splitSegment(xs[bounds[i]:bounds[i+1]], o); tau >= 0 && q > best {
			at, best = bounds[i]+tau, q
		}
	}
	return at, best
}

// splitSegment is the τ (relative to z) that maximises Q over τ and κ, with at least
// o.MinSize values in X = z[:τ] and in Y = z[τ:κ], and its Q; -1 when z is too short. The
// sums of distances come from a 2-D prefix sum of the distance matrix: O(n²) for the segment.
func splitSegment(z []float64, o EDivisiveOptions) (int, float64) {
	n := len(z)
	if n < 2*o.MinSize {
		return -1, 0
	}
	ps := prefixDistances(z, o.Alpha)
	best, at := math.Inf(-1), -1
	for tau := o.MinSize; tau+o.MinSize <= n; tau++ {
		m := float64(tau)
		within := ps.sum(0, tau, 0, tau) / 2 / (m * (m - 1) / 2)
		for kappa := tau + o.MinSize; kappa <= n; kappa++ {
			k := float64(kappa - tau)
			between := ps.sum(0, tau, tau, kappa) * 2 / (m * k)
			withinY := ps.sum(tau, kappa, tau, kappa) / 2 / (k * (k - 1) / 2)
			if q := m * k / (m + k) * (between - within - withinY); q > best {
				best, at = q, tau
			}
		}
	}
	return at, best
}

// prefix is the 2-D prefix sum of a distance matrix: p[i*(n+1)+j] is the sum of d(a, b) over
// a < i, b < j.
type prefix struct {
	n int
	p []float64
}

// prefixDistances is the prefix sum of |z[a]-z[b]|^alpha.
func prefixDistances(z []float64, alpha float64) prefix {
	n := len(z)
	w := n + 1
	p := make([]float64, w*w)
	for i := range n {
		row := 0.0
		for j := range n {
			d := math.Abs(z[i] - z[j])
			if alpha != 1 {
				d = math.Pow(d, alpha)
			}
			row += d
			p[(i+1)*w+j+1] = p[i*w+j+1] + row
		}
	}
	return prefix{n: n, p: p}
}

// sum is the sum of the distances d(a, b) for i0 <= a < i1 and j0 <= b < j1.
func (ps prefix) sum(i0, i1, j0, j1 int) float64 {
	w := ps.n + 1
	return ps.p[i1*w+j1] - ps.p[i0*w+j1] - ps.p[i1*w+j0] + ps.p[i0*w+j0]
}

// permutationP is the p-value of a candidate of statistic q: (r+1)/(R+1), r the permutations
// of xs within its segments whose best split reached q. It stops once p must exceed the
// significance level.
func permutationP(xs []float64, bounds []int, q float64, o EDivisiveOptions, rng *rand.Rand) float64 {
	perm := make([]float64, len(xs))
	reached := 0
	limit := o.SigLevel * float64(o.Permutations+1) // p > level once reached+1 > limit
	for range o.Permutations {
		copy(perm, xs)
		for i := 0; i+1 < len(bounds); i++ {
			seg := perm[bounds[i]:bounds[i+1]]
			rng.Shuffle(len(seg), func(a, b int) { seg[a], seg[b] = seg[b], seg[a] })
		}
		if _, qp := bestSplit(perm, bounds, o); qp >= q {
			reached++
			if float64(reached+1) > limit {
				break
			}
		}
	}
	return float64(reached+1) / float64(o.Permutations+1)
}

// withMeans orders the change points by index and sets the means of the segments of xs
// (between bounds) either side of each.
func withMeans(xs []float64, bounds []int, found []ChangePoint) []ChangePoint {
	out := make([]ChangePoint, 0, len(found))
	for i := 1; i+1 < len(bounds); i++ {
		for _, cp := range found {
			if cp.Index == bounds[i] {
				cp.Before, cp.After = stat.Mean(xs[bounds[i-1]:bounds[i]], nil), stat.Mean(xs[bounds[i]:bounds[i+1]], nil)
				out = append(out, cp)
			}
		}
	}
	return out
}
