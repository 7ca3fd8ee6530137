package gen

import (
	"math"
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

// OutDegree is the number of links each node id1 in [start, max) has at load: a deterministic
// function of id1, so any client can recompute it. Nodes are ranked by a Shuffler
// (SeedOutDegree, ShuffleGroups) and rank r of n gets a quantile of the nlinks CDF: rank 0 the
// most links.
//
// In the reference variant rank r gets the quantile 1 - r/n, as the reference does
// (PiecewiseLinearDistribution.expectedCount), so rank 0 gets the CDF's maximum whatever n is
// (961,963 links for one node of a 10,000-node fb2011 graph, which alone lifts the mean
// out-degree from about 4 to about 100); every node has at least one link per type and each
// type gets Total/types links (the fork's ID2Chooser with neverChange=false).
//
// In the corrected variant rank r gets the midpoint 1 - (r+0.5)/n of its slice of the CDF,
// which keeps the figures at every size close to the CDF's own, and the types split Total
// exactly.
type OutDegree struct {
	cdf        *profile.CDF
	start, max int64
	n          float64
	types      int64
	shuf       *Shuffler
	v          Variant
}

// NewOutDegree returns the out-degree of the nodes [start, max) from the nlinks CDF, split
// over linkTypes link types (at least 1), in variant v. The CDF must not change afterwards.
func NewOutDegree(cdf *profile.CDF, start, max int64, linkTypes int, v Variant) *OutDegree {
	if max < start {
		max = start
	}
	if linkTypes < 1 {
		linkTypes = 1
	}
	return &OutDegree{
		cdf: cdf, start: start, max: max, n: float64(max - start),
		types: int64(linkTypes),
		shuf:  NewShuffler(SeedOutDegree, ShuffleGroups, max-start),
		v:     v,
	}
}

// Total returns the number of links of id1 over all types before they are split; 0 outside
// [start, max). In the reference variant it is at least the number of link types, and the
// types may hold fewer links than Total between them (see PerType).
func (d *OutDegree) Total(id1 int64) int64 {
	if id1 < d.start || id1 >= d.max || d.cdf == nil {
		return 0
	}
	return d.atRank(float64(d.shuf.Invert(id1 - d.start)))
}

// atRank is Total of the node of the given rank (0: the most links).
func (d *OutDegree) atRank(rank float64) int64 {
	if d.v == Corrected {
		return max(d.cdf.Quantile(1-(rank+0.5)/d.n), 0)
	}
	return max(d.cdf.Quantile(1-rank/d.n), d.types)
}

// loadedAtRank is Loaded of the node of the given rank.
func (d *OutDegree) loadedAtRank(rank int64) int64 {
	total := d.atRank(float64(rank))
	if d.v == Corrected {
		return total
	}
	return total / d.types * d.types
}

// estimateHead is how many of the highest ranks EstimateLoaded sums one by one, and how many
// samples it takes of the rest.
const estimateHead = 1 << 16

// EstimateLoaded estimates the links the load writes over all nodes (the sum of Loaded), for
// the load's progress: exact for the estimateHead highest ranks, where the out-degree falls
// steeply (the reference variant's top node alone has the CDF's maximum), and from evenly
// spaced ranks beyond, so that it costs at most 2 x estimateHead quantiles at any size. A sum
// beyond int64 gives math.MaxInt64.
func (d *OutDegree) EstimateLoaded() int64 {
	if d.cdf == nil {
		return 0
	}
	n := d.max - d.start
	head := min(n, estimateHead)
	var sum float64
	for r := int64(0); r < head; r++ {
		sum += float64(d.loadedAtRank(r))
	}
	stride := max(1, (n-head)/estimateHead)
	for r := head; r < n; r += stride {
		k := min(stride, n-r)
		sum += float64(d.loadedAtRank(r+k/2)) * float64(k)
	}
	if sum >= math.MaxInt64 { // float64(math.MaxInt64) is 2^63, not representable as int64
		return math.MaxInt64
	}
	return int64(math.Round(sum))
}

// PerType returns the number of links of id1 with the link type of index typeIndex in
// [0, link types). Reference variant: Total/types for every type, so an odd remainder is never
// loaded (the fork's ID2Chooser.calcLinkCount with neverChange=false). Corrected variant:
// Total split evenly, the first Total%types types getting one more, so the figures of all types
// sum to Total.
func (d *OutDegree) PerType(id1 int64, typeIndex int) int64 {
	if typeIndex < 0 || int64(typeIndex) >= d.types {
		return 0
	}
	total := d.Total(id1)
	n := total / d.types
	if d.v == Corrected && int64(typeIndex) < total%d.types {
		n++
	}
	return n
}

// Loaded returns the number of links the load writes for id1: the sum of PerType over the
// link types.
func (d *OutDegree) Loaded(id1 int64) int64 {
	if id1 < d.start || id1 >= d.max || d.cdf == nil {
		return 0
	}
	return d.loadedAtRank(d.shuf.Invert(id1 - d.start))
}

// LinkTypes returns the number of link types.
func (d *OutDegree) LinkTypes() int { return int(d.types) }

// Range returns the node ids [start, max).
func (d *OutDegree) Range() (start, max int64) { return d.start, d.max }

// Intended probabilities that an id2 chosen for an operation is one of the links loaded (the
// reference's values): most ADD_LINKs make new links, most updates and deletes hit existing
// ones.
const (
	PAdd    = 0.05
	PUpdate = 0.9
	PDelete = 0.9
	PGet    = 0.5
)

// maxID2Range bounds the id2 range of a tiny pExisting.
const maxID2Range = 1 << 53

// ID2 chooses the id2 of a link operation on (id1, type), whose loaded links have the id2s
// id1 + [0, links), links the out-degree of (id1, type) at load.
//
// Reference variant (the fork's ID2Chooser with neverChange=false): with probability
// pExisting id1 + uniform[0, max(1, links)), a loaded link; else uniform[0, maxid1), almost
// always a new one. A multiget draws each id2 so, repeats allowed.
//
// Corrected variant (the original's chooser): id1 + uniform[0, ceil(links/pExisting)). The
// range is rounded up, so the share of existing links is below pExisting for small link counts
// (with 1 link it is 1/2 at PUpdate, with 2 links 2/3; over fb2011's nodes with links, about
// 0.56). A multiget draws distinct id2s where the range allows.
type ID2 struct{ deg *OutDegree }

// NewID2 returns the id2 chooser of the given out-degree, in its variant.
func NewID2(deg *OutDegree) *ID2 { return &ID2{deg: deg} }

// span is the size of the id2 range of (id1, type): max(1, ceil(links/pExisting)).
func (c *ID2) span(id1 int64, typeIndex int, pExisting float64) int64 {
	x := math.Ceil(float64(c.deg.PerType(id1, typeIndex)) / pExisting)
	if !(x >= 1) { // also NaN
		return 1
	}
	if x > maxID2Range {
		return maxID2Range
	}
	return int64(x)
}

// ForOp returns an id2 for an operation on (id1, type) with pExisting in (0, 1] (PAdd,
// PUpdate, PDelete, PGet).
func (c *ID2) ForOp(r *rand.Rand, id1 int64, typeIndex int, pExisting float64) int64 {
	if c.deg.v == Reference {
		return c.fork(r, id1, c.deg.PerType(id1, typeIndex), pExisting)
	}
	return id1 + r.Int64N(c.span(id1, typeIndex, pExisting))
}

// fork is the reference's choice: an existing link with probability pExisting, else any id
// below maxid1.
func (c *ID2) fork(r *rand.Rand, id1, links int64, pExisting float64) int64 {
	if r.Float64() < pExisting {
		return id1 + r.Int64N(max(links, 1))
	}
	return r.Int64N(c.deg.max)
}

// maxUniqueTries is how many draws Multiple makes for each id2 to find one not yet chosen.
const maxUniqueTries = 100

// Multiple appends n id2s for a multiget of (id1, type) to dst and returns it. Reference
// variant: n draws of ForOp's, which may repeat. Corrected variant: when the id2 range holds
// at most n ids it appends id1+0 ... id1+n-1; otherwise it draws n ids, each redrawn up to 100
// times while it repeats an earlier one (so they are distinct unless the range is barely
// larger than n). It allocates nothing when dst has room.
func (c *ID2) Multiple(r *rand.Rand, id1 int64, typeIndex, n int, pExisting float64, dst []int64) []int64 {
	if c.deg.v == Reference {
		links := c.deg.PerType(id1, typeIndex)
		for range n {
			dst = append(dst, c.fork(r, id1, links, pExisting))
		}
		return dst
	}
	span := c.span(id1, typeIndex, pExisting)
	if span <= int64(n) {
		for i := range n {
			dst = append(dst, id1+int64(i))
		}
		return dst
	}
	first := len(dst)
	for range n {
		var id2 int64
		for try := 0; ; try++ {
			id2 = id1 + r.Int64N(span)
			if try >= maxUniqueTries || !contains(dst[first:], id2) {
				break
			}
		}
		dst = append(dst, id2)
	}
	return dst
}

func contains(s []int64, x int64) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
