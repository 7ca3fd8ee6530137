package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// Access chooses which id in [start, max) an operation touches. A zipf access draws a rank
// (0 the most popular) and maps it to an id through its own Shuffler; a uniform access needs
// none.
type Access struct {
	start, n int64
	zipf     *Zipf     // nil for uniform
	shuf     *Shuffler // with zipf
}

// NewAccess returns the access distribution a over the ids [start, max), its ranks shuffled
// with seed (SeedOutDegree, SeedUncorrelated or SeedNode).
func NewAccess(a profile.Access, start, max int64, seed uint64) (*Access, error) {
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	if max <= start {
		return nil, fmt.Errorf("access: empty id range [%d, %d)", start, max)
	}
	acc := &Access{start: start, n: max - start}
	if a.Func == profile.Zipf {
		z, err := NewZipf(0, acc.n, a.Shape)
		if err != nil {
			return nil, fmt.Errorf("access: %w", err)
		}
		acc.zipf, acc.shuf = z, NewShuffler(seed, ShuffleGroups, acc.n)
	}
	return acc, nil
}

// Choose draws an id in [start, max).
func (a *Access) Choose(r *rand.Rand) int64 {
	if a.zipf == nil {
		return a.start + r.Int64N(a.n)
	}
	return a.start + a.shuf.Permute(a.zipf.Choose(r))
}

// Blend chooses from an uncorrelated access for a percentage of draws and from a correlated
// one for the rest.
type Blend struct {
	corr, uncorr *Access
	uncorrPct    float64
}

// NewBlend returns the blend of corr and uncorr (both non-nil) that uses uncorr for
// uncorrPct percent of draws.
func NewBlend(corr, uncorr *Access, uncorrPct float64) *Blend {
	return &Blend{corr: corr, uncorr: uncorr, uncorrPct: uncorrPct}
}

// Choose draws an id.
func (b *Blend) Choose(r *rand.Rand) int64 {
	if r.Float64()*100 < b.uncorrPct {
		return b.uncorr.Choose(r)
	}
	return b.corr.Choose(r)
}

// NewLinkAccess returns the id1 chooser of link reads or link writes over the nodes
// [start, max): corr shuffled as the out-degree (SeedOutDegree), so that its rank 0 is the
// most-linked node, blended with uncorr (SeedUncorrelated) for uncorrPct percent of draws.
// NewLinkReads and NewLinkWrites pass a profile's settings.
func NewLinkAccess(corr, uncorr profile.Access, uncorrPct float64, start, max int64) (*Blend, error) {
	if !(uncorrPct >= 0 && uncorrPct <= 100) {
		return nil, fmt.Errorf("access: blend %v percent outside [0, 100]", uncorrPct)
	}
	c, err := NewAccess(corr, start, max, SeedOutDegree)
	if err != nil {
		return nil, fmt.Errorf("correlated %w", err)
	}
	u, err := NewAccess(uncorr, start, max, SeedUncorrelated)
	if err != nil {
		return nil, fmt.Errorf("uncorrelated %w", err)
	}
	return NewBlend(c, u, uncorrPct), nil
}

// NewLinkReads returns the id1 chooser of link reads over the nodes [start, max): the profile's
// ReadCorr, ReadUncorr and ReadUncorrBlend.
func NewLinkReads(p *profile.Profile, start, max int64) (*Blend, error) {
	return NewLinkAccess(p.ReadCorr, p.ReadUncorr, p.ReadUncorrBlend, start, max)
}

// NewLinkWrites returns the id1 chooser of link writes over the nodes [start, max).
//
// Corrected variant: the profile's WriteCorr, WriteUncorr and WriteUncorrBlend (fb2011 and
// fb2017: Zipf 0.741 on both sides, 95% uncorrelated). Reference variant: the settings the
// reference reads, whose uncorrelated write keys carry the read_uncorr_ prefix (a typo): the
// correlated side is WriteCorr, the uncorrelated side and the blend are ReadUncorr and
// ReadUncorrBlend (Zipf 0.8 for 99.5% of writes, the very distribution of uncorrelated reads).
func NewLinkWrites(p *profile.Profile, start, max int64, v Variant) (*Blend, error) {
	if v == Corrected {
		return NewLinkAccess(p.WriteCorr, p.WriteUncorr, p.WriteUncorrBlend, start, max)
	}
	return NewLinkAccess(p.WriteCorr, p.ReadUncorr, p.ReadUncorrBlend, start, max)
}

// NewNodeAccess returns the id chooser of node reads, updates or deletes over [start, max)
// (shuffled with SeedNode).
func NewNodeAccess(a profile.Access, start, max int64) (*Access, error) {
	return NewAccess(a, start, max, SeedNode)
}
