package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Zipf draws from [min, max) with P(min+k) proportional to 1/(k+1)^shape, min the most
// likely, for 0 < shape < 1. It samples with the quantile approximation of Gray et al.,
// "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD 1994), as the reference
// does: O(1) per draw after an O(1) setup (the normalising constant comes from an
// Euler-Maclaurin approximation of the generalized harmonic number).
type Zipf struct {
	min, n int64
	shape  float64
	zetan  float64 // H(n, shape)
	eta    float64
	alpha  float64 // 1 / (1 - shape)
	cut2   float64 // 1 + 0.5^shape: below it (scaled by zetan) the draw is min + 1
}

// NewZipf returns a Zipf sampler over [min, max).
func NewZipf(min, max int64, shape float64) (*Zipf, error) {
	if max <= min {
		return nil, fmt.Errorf("zipf: empty range [%d, %d)", min, max)
	}
	if !(shape > 0 && shape < 1) {
		return nil, fmt.Errorf("zipf: shape %v outside (0, 1)", shape)
	}
	n := max - min
	z := &Zipf{min: min, n: n, shape: shape, alpha: 1 / (1 - shape), cut2: 1 + math.Pow(0.5, shape)}
	z.zetan = harmonic(n, shape)
	// Chosen so that the continuous part meets the two exact points: p = H(2)/H(n) maps to 2.
	z.eta = (1 - math.Pow(2/float64(n), 1-shape)) / (1 - harmonic(2, shape)/z.zetan)
	return z, nil
}

// Quantile returns the value at cumulative probability p (clamped to [0, 1]).
func (z *Zipf) Quantile(p float64) int64 {
	if !(p > 0) {
		p = 0
	} else if p > 1 {
		p = 1
	}
	uz := p * z.zetan
	if uz < 1 || z.n == 1 {
		return z.min
	}
	if uz < z.cut2 {
		return z.min + 1
	}
	x := float64(z.n) * math.Pow(z.eta*p-z.eta+1, z.alpha)
	if !(x < float64(z.n)) { // also NaN (n == 2, p == 1)
		return z.min + z.n - 1
	}
	return z.min + int64(x)
}

// Choose draws a value.
func (z *Zipf) Choose(r *rand.Rand) int64 { return z.Quantile(r.Float64()) }

// TopShare returns the probability mass the Zipf distribution (exactly, not its sampler)
// puts on its smallest frac*(max-min) values: H(k)/H(n).
func (z *Zipf) TopShare(frac float64) float64 {
	k := topCount(frac, z.n)
	if k <= 0 {
		return 0
	}
	if k >= z.n {
		return 1
	}
	return harmonic(k, z.shape) / z.zetan
}

// topCount is how many values TopShare(frac) covers in a range of n: floor(frac*n).
func topCount(frac float64, n int64) int64 {
	return int64(frac*float64(n) + 1e-9)
}

// harmonicExact is how many terms harmonic sums exactly before it approximates the rest.
const harmonicExact = 1024

// harmonic returns the generalized harmonic number H(n, s) = sum over k in [1, n] of k^-s:
// exactly for small n; else the first harmonicExact-1 terms exactly and the rest by
// Euler-Maclaurin (integral, end-point and two derivative corrections), within 1e-12
// relative of the exact sum (tested) and taking microseconds at any n.
func harmonic(n int64, s float64) float64 {
	if n <= 0 {
		return 0
	}
	if n <= 4*harmonicExact {
		sum := 0.0
		for k := n; k >= 1; k-- { // smallest terms first
			sum += math.Pow(float64(k), -s)
		}
		return sum
	}
	sum := 0.0
	for k := int64(harmonicExact - 1); k >= 1; k-- {
		sum += math.Pow(float64(k), -s)
	}
	a, b := float64(harmonicExact), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -s) }
	d1 := func(x float64) float64 { return -s * math.Pow(x, -s-1) }
	d3 := func(x float64) float64 { return -s * (s + 1) * (s + 2) * math.Pow(x, -s-3) }
	var integral float64
	if s == 1 {
		integral = math.Log(b / a)
	} else {
		integral = (math.Pow(b, 1-s) - math.Pow(a, 1-s)) / (1 - s)
	}
	tail := integral + (f(a)+f(b))/2 + (d1(b)-d1(a))/12 - (d3(b)-d3(a))/720
	return sum + tail
}
