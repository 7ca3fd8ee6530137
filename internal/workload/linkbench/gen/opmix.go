package gen

import (
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// OpMix draws request ops in the proportions of a mix.
type OpMix struct {
	cum  [profile.NumOps]float64 // cumulative shares, in op order
	last profile.Op              // the last op with a positive share
}

// NewOpMix returns the op chooser of mix (percent per op; non-negative, summing to about
// 100 as profile.Validate checks; draws are scaled to the actual sum).
func NewOpMix(mix [profile.NumOps]float64) *OpMix {
	m := &OpMix{}
	sum := 0.0
	for i, pct := range mix {
		if pct > 0 {
			sum += pct
			m.last = profile.Op(i)
		}
		m.cum[i] = sum
	}
	return m
}

// Choose draws an op: u uniform in [0, sum), the first op whose cumulative share exceeds u,
// as the reference's table (so ops with a zero share are never drawn).
func (m *OpMix) Choose(r *rand.Rand) profile.Op {
	u := r.Float64() * m.cum[profile.NumOps-1]
	for i, c := range m.cum {
		if u < c {
			return profile.Op(i)
		}
	}
	return m.last
}
