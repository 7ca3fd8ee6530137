package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// Uniform draws uniformly from [min, max).
type Uniform struct{ min, n int64 }

// NewUniform returns a uniform sampler over [min, max).
func NewUniform(min, max int64) (*Uniform, error) {
	if max <= min {
		return nil, fmt.Errorf("uniform: empty range [%d, %d)", min, max)
	}
	return &Uniform{min: min, n: max - min}, nil
}

// Choose draws a value.
func (u *Uniform) Choose(r *rand.Rand) int64 { return u.min + r.Int64N(u.n) }

// Geometric draws from a geometric distribution with success probability p over [min, max),
// capped at max-1, by inversion: x = log(1-u) / log(1-p).
//
// Corrected variant: min + floor(x), min plus the failures before the first success (with
// min 1 the number of trials, mean 1/p: 2.62 for p = 0.382). Reference variant: min + ceil(x),
// as GeometricDistribution.quantile, one more on every draw but u = 0 (mean 1 + 1/p, about 3.6,
// and min itself is all but never drawn).
type Geometric struct {
	min, max int64
	logq     float64 // log(1 - p)
	ceil     bool
}

// NewGeometric returns a geometric sampler over [min, max) with success probability p, which
// rounds as variant v does.
func NewGeometric(min, max int64, p float64, v Variant) (*Geometric, error) {
	if max <= min {
		return nil, fmt.Errorf("geometric: empty range [%d, %d)", min, max)
	}
	if !(p > 0 && p < 1) {
		return nil, fmt.Errorf("geometric: probability %v outside (0, 1)", p)
	}
	return &Geometric{min: min, max: max, logq: math.Log1p(-p), ceil: v == Reference}, nil
}

// NewMultigetSize returns the number of id2s of a MULTIGET_LINK: geometric with the profile's
// probability from MultigetMin, rounded as variant v does, at most MultigetMax-1 in the
// reference variant (which takes the maximum as exclusive) and MultigetMax in the corrected.
func NewMultigetSize(p *profile.Profile, v Variant) (*Geometric, error) {
	max := int64(p.MultigetMax)
	if v == Corrected {
		max++
	}
	return NewGeometric(int64(p.MultigetMin), max, p.MultigetP, v)
}

// Choose draws a value.
func (g *Geometric) Choose(r *rand.Rand) int64 {
	x := math.Log1p(-r.Float64()) / g.logq
	if g.ceil {
		x = math.Ceil(x)
	}
	if !(x < float64(g.max-1-g.min)) {
		return g.max - 1
	}
	return g.min + int64(x)
}

// LogNormal draws round(exp(N(0,1)*sigma + ln(median))), clamped to [min, max-1].
type LogNormal struct {
	min, max  int64
	mu, sigma float64
}

// NewLogNormal returns a lognormal sampler with the given median and sigma (the standard
// deviation of the log) over [min, max).
func NewLogNormal(min, max int64, median, sigma float64) (*LogNormal, error) {
	if max <= min {
		return nil, fmt.Errorf("lognormal: empty range [%d, %d)", min, max)
	}
	if !(median > 0) || math.IsInf(median, 0) {
		return nil, fmt.Errorf("lognormal: median %v must be positive", median)
	}
	if !(sigma >= 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("lognormal: sigma %v must be non-negative", sigma)
	}
	return &LogNormal{min: min, max: max, mu: math.Log(median), sigma: sigma}, nil
}

// Choose draws a value.
func (l *LogNormal) Choose(r *rand.Rand) int64 {
	x := math.Round(math.Exp(r.NormFloat64()*l.sigma + l.mu))
	if x <= float64(l.min) {
		return l.min
	}
	if x >= float64(l.max-1) {
		return l.max - 1
	}
	return int64(x)
}
