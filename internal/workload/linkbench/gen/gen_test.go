package gen

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func lookup(t testing.TB, name string) *profile.Profile {
	t.Helper()
	p, err := profile.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const draws = 1_000_000

func TestOpMix(t *testing.T) {
	for _, name := range profile.Names() {
		t.Run(name, func(t *testing.T) {
			p := lookup(t, name)
			m := NewOpMix(p.Mix)
			r := newRand(1)
			var counts [profile.NumOps]int
			for range 2 * draws {
				counts[m.Choose(r)]++
			}
			for op, want := range p.Mix {
				got := 100 * float64(counts[op]) / (2 * draws)
				t.Logf("%-14s %8.4f%% (profile %8.4f%%)", profile.Op(op), got, want)
				if math.Abs(got-want) > 0.2 {
					t.Errorf("%s: %.4f%% of draws, profile %.4f%%", profile.Op(op), got, want)
				}
			}
		})
	}
	// An op with no share is never drawn, and a mix that does not sum to 100 is scaled.
	var mix [profile.NumOps]float64
	mix[profile.CountLink], mix[profile.GetNode] = 1, 3
	m, r := NewOpMix(mix), newRand(2)
	var counts [profile.NumOps]int
	for range 100_000 {
		counts[m.Choose(r)]++
	}
	if counts[profile.CountLink]+counts[profile.GetNode] != 100_000 || math.Abs(float64(counts[profile.GetNode])/100_000-0.75) > 0.01 {
		t.Errorf("sparse mix: %v", counts)
	}
}

// outDegreeStats returns the mean and the 50/90/99th percentiles of Total over [start, start+n).
func outDegreeStats(d *OutDegree, start, n int64) (mean float64, pct [3]int64) {
	counts := map[int64]int64{}
	sum := 0.0
	for id := start; id < start+n; id++ {
		v := d.Total(id)
		counts[v]++
		sum += float64(v)
	}
	values := make([]int64, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	slices.Sort(values)
	for i, q := range []float64{0.5, 0.9, 0.99} {
		var acc int64
		for _, v := range values {
			if acc += counts[v]; float64(acc) >= q*float64(n) {
				pct[i] = v
				break
			}
		}
	}
	return sum / float64(n), pct
}

// TestOutDegreeCorrected checks the corrected variant's out-degree against its CDF at sizes
// where the midpoint quantiles cover it (TestLinksPerNode checks both variants at the
// reference's sizes).
func TestOutDegreeCorrected(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int64
	}{
		{"fb2011", 1_000_000},
		// fb2017's nlinks CDF has a heavier far tail (up to 4,181,357 links): the n ids take
		// the quantiles at the midpoints of n slices of the CDF and so leave out the mass
		// above 1 - 0.5/n, which at 1M ids is 3.3% of the mean and at 4M 2.0%; at 8M 0.7%.
		{"fb2017", 8_000_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := lookup(t, c.name)
			cdf := p.Dist.NLinks
			const start = 1
			d := NewOutDegree(cdf, start, start+c.n, p.LinkTypes, Corrected)
			mean, pct := outDegreeStats(d, start, c.n)
			want := cdf.Mean()
			t.Logf("mean %.4f (CDF %.4f), p50/p90/p99 %v (CDF %d %d %d)", mean, want, pct,
				cdf.Quantile(0.5), cdf.Quantile(0.9), cdf.Quantile(0.99))
			if math.Abs(mean-want) > 0.02*want {
				t.Errorf("mean out-degree %.4f, CDF %.4f", mean, want)
			}
			for i, q := range []float64{0.5, 0.9, 0.99} {
				// 2% of a small percentile is less than one link: allow a difference of 1.
				want := cdf.Quantile(q)
				if d := math.Abs(float64(pct[i] - want)); d > max(0.02*float64(want), 1) {
					t.Errorf("p%v out-degree %d, CDF %d", 100*q, pct[i], want)
				}
			}
			// PerType splits Total exactly, for 2 types and 3.
			d3 := NewOutDegree(cdf, start, start+c.n, 3, Corrected)
			for id := int64(start); id < start+200_000; id++ {
				tot := d.Total(id)
				if d.PerType(id, 0)+d.PerType(id, 1) != tot {
					t.Fatalf("id %d: per type %d + %d != %d", id, d.PerType(id, 0), d.PerType(id, 1), tot)
				}
				if s := d3.PerType(id, 0) + d3.PerType(id, 1) + d3.PerType(id, 2); s != tot {
					t.Fatalf("id %d: 3 types sum to %d, total %d", id, s, tot)
				}
				if d3.PerType(id, 0)-d3.PerType(id, 2) > 1 || d3.PerType(id, 2) > d3.PerType(id, 0) {
					t.Fatalf("id %d: uneven split", id)
				}
			}
		})
	}
	p := lookup(t, "fb2011")
	for _, v := range []Variant{Reference, Corrected} {
		d := NewOutDegree(p.Dist.NLinks, 10, 1010, 2, v)
		for _, id := range []int64{-1, 0, 9, 1010, 5000} {
			if d.Total(id) != 0 || d.PerType(id, 0) != 0 || d.Loaded(id) != 0 {
				t.Errorf("%v: id %d outside the range has links", v, id)
			}
		}
		if d.PerType(500, -1) != 0 || d.PerType(500, 2) != 0 {
			t.Errorf("%v: a type index outside the range has links", v)
		}
		// Deterministic: the same figures from a second instance.
		d2 := NewOutDegree(p.Dist.NLinks, 10, 1010, 2, v)
		for id := int64(10); id < 1010; id++ {
			if d.Total(id) != d2.Total(id) {
				t.Fatalf("%v: id %d: %d then %d", v, id, d.Total(id), d2.Total(id))
			}
		}
	}
}

func TestGeometric(t *testing.T) {
	g, err := NewGeometric(1, 128, 0.382, Corrected)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(3)
	sum := 0.0
	for range draws {
		v := g.Choose(r)
		if v < 1 || v >= 128 {
			t.Fatalf("draw %d outside [1, 128)", v)
		}
		sum += float64(v)
	}
	mean, want := sum/draws, 1/0.382
	t.Logf("multiget size mean %.4f (1/p = %.4f)", mean, want)
	if math.Abs(mean-want) > 0.02*want {
		t.Errorf("mean %.4f, want %.4f", mean, want)
	}
	g, _ = NewGeometric(5, 8, 0.01, Corrected)
	for range 10_000 {
		if v := g.Choose(r); v < 5 || v > 7 {
			t.Fatalf("capped draw %d outside [5, 8)", v)
		}
	}
	for _, bad := range []struct {
		min, max int64
		p        float64
	}{{1, 1, 0.5}, {1, 10, 0}, {1, 10, 1}, {1, 10, math.NaN()}} {
		if _, err := NewGeometric(bad.min, bad.max, bad.p, Corrected); err == nil {
			t.Errorf("NewGeometric(%d, %d, %v) accepted", bad.min, bad.max, bad.p)
		}
	}
}

func TestLogNormal(t *testing.T) {
	l, err := NewLogNormal(0, 256, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(4)
	for range 100_000 {
		if v := l.Choose(r); v < 0 || v > 255 {
			t.Fatalf("draw %d outside [0, 255]", v)
		}
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {8, -1}, {math.Inf(1), 1}} {
		if _, err := NewLogNormal(0, 10, bad[0], bad[1]); err == nil {
			t.Errorf("NewLogNormal median %v sigma %v accepted", bad[0], bad[1])
		}
	}
	if _, err := NewLogNormal(5, 5, 8, 1); err == nil {
		t.Error("empty range accepted")
	}
}

func TestPayloadBytes(t *testing.T) {
	m := profile.Motif{Start: 32, End: 100, Uniqueness: 0.5, Length: 40}
	p, err := NewPayload(m, 100, 1, 255, 9, Corrected)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.motif) != 40 || p.chunk != 40 {
		t.Errorf("motif %d bytes, chunk %d: the motif length is not honoured", len(p.motif), p.chunk)
	}
	r := newRand(6)
	var buf []byte
	for range 10_000 {
		buf = p.Fill(r, buf)
		if len(buf) > 255 {
			t.Fatalf("payload of %d bytes", len(buf))
		}
		for _, b := range buf {
			if b < 32 || b > 100 {
				t.Fatalf("byte %d outside [32, 100]", b)
			}
		}
	}
	buf = p.FillN(r, buf, 1000)
	if len(buf) != 1000 {
		t.Errorf("FillN(1000) gave %d bytes", len(buf))
	}
	// The same seed gives the same motif, and every client shares it.
	q, _ := NewPayload(m, 100, 1, 255, 9, Corrected)
	if !bytes.Equal(p.motif, q.motif) {
		t.Error("motif differs for the same seed")
	}
	if p.ForClient(newRand(1)) != p {
		t.Error("corrected: a client got a generator of its own")
	}
	// Reference: 512-byte motifs whatever the setting, one per client, bytes in range.
	ref, err := NewPayload(m, 100, 1, 255, 9, Reference)
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := ref.ForClient(newRand(1)), ref.ForClient(newRand(2))
	for _, c := range []*Payload{ref, c1, c2} {
		if len(c.motif) != 512 || c.chunk != 128 {
			t.Fatalf("reference: motif %d bytes, chunk %d; want 512 and 128", len(c.motif), c.chunk)
		}
		for _, b := range c.motif {
			if b < 32 || b > 100 {
				t.Fatalf("reference motif byte %d outside [32, 100]", b)
			}
		}
	}
	if bytes.Equal(c1.motif, c2.motif) || bytes.Equal(c1.motif, ref.motif) {
		t.Error("reference: two clients share a motif")
	}
	if !bytes.Equal(c1.motif, ref.ForClient(newRand(1)).motif) {
		t.Error("reference: the same client stream drew another motif")
	}
	for _, bad := range []profile.Motif{
		{Start: 0, End: 0, Uniqueness: 0.5, Length: 10},
		{Start: 0, End: 256, Uniqueness: 0.5, Length: 10},
		{Start: 0, End: 10, Uniqueness: 2, Length: 10},
		{Start: 0, End: 10, Uniqueness: 0.5, Length: 0},
	} {
		for _, v := range []Variant{Reference, Corrected} {
			if _, err := NewPayload(bad, 8, 1, 255, 1, v); err == nil {
				t.Errorf("%v: motif %+v accepted", v, bad)
			}
		}
	}
}

func TestZipf(t *testing.T) {
	for _, shape := range []float64{0.8, 0.625} {
		const n = 1_000_000
		const min = 1000
		z, err := NewZipf(min, min+n, shape)
		if err != nil {
			t.Fatal(err)
		}
		r := newRand(7)
		top := topCount(0.01, n)
		hits := 0
		for range draws {
			v := z.Choose(r)
			if v < min || v >= min+n {
				t.Fatalf("draw %d outside [%d, %d)", v, min, min+n)
			}
			if v-min < top {
				hits++
			}
		}
		got, want := float64(hits)/draws, z.TopShare(0.01)
		t.Logf("shape %v: top 1%% of ids took %.2f%% of draws (Zipf: %.2f%%)", shape, 100*got, 100*want)
		if math.Abs(got-want) > 0.01 && math.Abs(got-want) > 0.03*want {
			t.Errorf("shape %v: top 1%% share %.4f, want %.4f", shape, got, want)
		}
		// The quantile is monotone and stays in range, including at the ends.
		prev := z.Quantile(0)
		if prev != min || z.Quantile(1) != min+n-1 || z.Quantile(-1) != min || z.Quantile(2) != min+n-1 {
			t.Errorf("shape %v: ends %d %d", shape, z.Quantile(0), z.Quantile(1))
		}
		for i := 1; i <= 200_000; i++ {
			v := z.Quantile(float64(i) / 200_000)
			if v < prev || v >= min+n {
				t.Fatalf("shape %v: Quantile(%v) = %d after %d", shape, float64(i)/200_000, v, prev)
			}
			prev = v
		}
	}
	// Small ranges stay in range too.
	r := newRand(8)
	for _, n := range []int64{1, 2, 3, 10} {
		z, err := NewZipf(5, 5+n, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		for range 10_000 {
			if v := z.Choose(r); v < 5 || v >= 5+n {
				t.Fatalf("n %d: draw %d", n, v)
			}
		}
		if v := z.Quantile(1); v != 5+n-1 {
			t.Errorf("n %d: Quantile(1) = %d", n, v)
		}
	}
	for _, bad := range []float64{0, 1, 1.2, -0.5, math.NaN()} {
		if _, err := NewZipf(0, 100, bad); err == nil {
			t.Errorf("shape %v accepted", bad)
		}
	}
	if _, err := NewZipf(10, 10, 0.5); err == nil {
		t.Error("empty range accepted")
	}
}

func TestHarmonic(t *testing.T) {
	for _, s := range []float64{0.3, 0.606, 0.8, 0.99} {
		for _, n := range []int64{1, 2, 4096, 4097, 10_000, 1_000_000} {
			exact := 0.0
			for k := n; k >= 1; k-- {
				exact += math.Pow(float64(k), -s)
			}
			if got := harmonic(n, s); math.Abs(got-exact) > 1e-12*exact {
				t.Errorf("H(%d, %v) = %.15g, exact %.15g", n, s, got, exact)
			}
		}
	}
	// Large n is cheap (the reference's use: 1e8 ids and more).
	if h := harmonic(100_000_000_000, 0.8); !(h > 0) || math.IsInf(h, 0) {
		t.Errorf("H(1e11, 0.8) = %v", h)
	}
}

func TestShuffler(t *testing.T) {
	for _, groups := range []int{1, 7, 1024} {
		for _, n := range []int64{1, 5, 1023, 1024, 1025, 2048, 3000, 7 * 1024, 10_007, 100_000} {
			s := NewShuffler(11, groups, n)
			seen := make([]bool, n)
			for i := range n {
				j := s.Permute(i)
				if j < 0 || j >= n || seen[j] {
					t.Fatalf("groups %d n %d: Permute(%d) = %d, out of range or repeated", groups, n, i, j)
				}
				seen[j] = true
				if k := s.Invert(j); k != i {
					t.Fatalf("groups %d n %d: Invert(Permute(%d)) = %d", groups, n, i, k)
				}
				if k := s.Permute(s.Invert(i)); k != i {
					t.Fatalf("groups %d n %d: Permute(Invert(%d)) = %d", groups, n, i, k)
				}
			}
		}
	}
	// It shuffles: with enough ids per group, most move.
	s := NewShuffler(11, 1024, 100_000)
	moved := 0
	for i := range int64(100_000) {
		if s.Permute(i) != i {
			moved++
		}
	}
	if moved < 99_000 {
		t.Errorf("only %d of 100000 ids moved", moved)
	}
	if s.Permute(-1) != -1 || s.Invert(100_000) != 100_000 {
		t.Error("out-of-range ids are not returned unchanged")
	}
	if e := NewShuffler(1, 1024, 0); e.Permute(0) != 0 || e.N() != 0 {
		t.Error("empty shuffler")
	}
	// Another seed, another permutation.
	o := NewShuffler(12, 1024, 100_000)
	same := 0
	for i := range int64(100_000) {
		if s.Permute(i) == o.Permute(i) {
			same++
		}
	}
	if same > 1000 {
		t.Errorf("seeds 11 and 12 agree on %d ids", same)
	}
}

func TestAccess(t *testing.T) {
	p := lookup(t, "fb2011")
	for _, rng := range [][2]int64{{1, 2}, {1, 10_001}, {1, 10_000_001}} {
		start, max := rng[0], rng[1]
		reads, err := NewLinkAccess(p.ReadCorr, p.ReadUncorr, p.ReadUncorrBlend, start, max)
		if err != nil {
			t.Fatal(err)
		}
		writes, err := NewLinkAccess(p.WriteCorr, p.WriteUncorr, p.WriteUncorrBlend, start, max)
		if err != nil {
			t.Fatal(err)
		}
		choosers := map[string]func(*rand.Rand) int64{"link reads": reads.Choose, "link writes": writes.Choose}
		for name, a := range map[string]profile.Access{"node reads": p.NodeRead, "node updates": p.NodeUpdate, "node deletes": p.NodeDelete} {
			acc, err := NewNodeAccess(a, start, max)
			if err != nil {
				t.Fatal(err)
			}
			choosers[name] = acc.Choose
		}
		r := newRand(9)
		for name, choose := range choosers {
			for range 200_000 {
				if id := choose(r); id < start || id >= max {
					t.Fatalf("%s over [%d, %d): id %d", name, start, max, id)
				}
			}
		}
	}
	// The correlated access's most popular id is the most-linked node.
	const start, max = 1, 100_001
	deg := NewOutDegree(p.Dist.NLinks, start, max, p.LinkTypes, Corrected)
	corr, err := NewAccess(p.ReadCorr, start, max, SeedOutDegree)
	if err != nil {
		t.Fatal(err)
	}
	top, best := start+corr.shuf.Permute(0), int64(0)
	for id := int64(start); id < max; id++ {
		best = maxInt(best, deg.Total(id))
	}
	if deg.Total(top) != best {
		t.Errorf("correlated rank 0 is id %d with %d links; the most-linked node has %d", top, deg.Total(top), best)
	}
	// The blend takes the uncorrelated side for its percentage of draws.
	lo, _ := NewAccess(profile.Access{Func: profile.Uniform}, 0, 10, 1)
	hi, _ := NewAccess(profile.Access{Func: profile.Uniform}, 100, 110, 1)
	b, r, n := NewBlend(lo, hi, 95), newRand(10), 0
	for range draws {
		if b.Choose(r) >= 100 {
			n++
		}
	}
	if share := 100 * float64(n) / draws; math.Abs(share-95) > 0.2 {
		t.Errorf("blend 95%%: %.2f%% uncorrelated", share)
	}
	if _, err := NewAccess(profile.Access{Func: "real"}, 1, 10, 1); err == nil {
		t.Error("unknown access function accepted")
	}
	if _, err := NewAccess(p.NodeRead, 10, 10, 1); err == nil {
		t.Error("empty range accepted")
	}
	if _, err := NewLinkAccess(p.ReadCorr, p.ReadUncorr, 101, 1, 10); err == nil {
		t.Error("blend 101 accepted")
	}
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func TestID2(t *testing.T) {
	p := lookup(t, "fb2011")
	const start, max = 1, 100_001
	deg := NewOutDegree(p.Dist.NLinks, start, max, p.LinkTypes, Corrected)
	c := NewID2(deg)
	r := newRand(12)
	// The share of id2s that exist is links/ceil(links/p) on average: for the small
	// out-degrees of most nodes the ceiling makes it well below p (1 link: 1/2 at p = 0.9).
	existing, expected, total := 0, 0.0, 0
	for id1 := int64(start); id1 < max; id1++ {
		for typ := range p.LinkTypes {
			links := deg.PerType(id1, typ)
			span := max64(1, int64(math.Ceil(float64(links)/PUpdate)))
			id2 := c.ForOp(r, id1, typ, PUpdate)
			if id2 < id1 || id2 >= id1+span {
				t.Fatalf("id1 %d type %d: id2 %d outside [id1, id1+%d)", id1, typ, id2, span)
			}
			if links > 0 {
				total++
				expected += float64(links) / float64(span)
				if id2 < id1+links {
					existing++
				}
			}
		}
	}
	share, want := float64(existing)/float64(total), expected/float64(total)
	t.Logf("PUpdate (%v): %.3f of the id2s of (id1, type)s with links exist (expected %.3f)", PUpdate, share, want)
	if math.Abs(share-want) > 0.01 {
		t.Errorf("PUpdate: %.3f of id2s exist, expected %.3f", share, want)
	}
	// Multiple: distinct id2s when the range allows, id1+0..n-1 when it does not.
	var dst []int64
	for id1 := int64(start); id1 < start+20_000; id1++ {
		for _, n := range []int{1, 3, 10} {
			dst = c.Multiple(r, id1, 0, n, PGet, dst[:0])
			if len(dst) != n {
				t.Fatalf("id1 %d: %d id2s, want %d", id1, len(dst), n)
			}
			span := max64(1, int64(math.Ceil(float64(deg.PerType(id1, 0))/PGet)))
			if span <= int64(n) {
				for i, id2 := range dst {
					if id2 != id1+int64(i) {
						t.Fatalf("id1 %d small range: %v", id1, dst)
					}
				}
				continue
			}
			if span >= int64(4*n) { // plenty of room: 100 tries make a repeat vanishingly unlikely
				s := slices.Clone(dst)
				slices.Sort(s)
				if len(slices.Compact(s)) != n {
					t.Fatalf("id1 %d: repeated id2s %v (range %d)", id1, dst, span)
				}
			}
			for _, id2 := range dst {
				if id2 < id1 || id2 >= id1+span {
					t.Fatalf("id1 %d: id2 %d outside the range %d", id1, id2, span)
				}
			}
		}
	}
	// Appends after what dst holds.
	dst = c.Multiple(r, 5, 0, 2, PGet, []int64{-7})
	if len(dst) != 3 || dst[0] != -7 {
		t.Errorf("Multiple did not append: %v", dst)
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func TestNoAllocs(t *testing.T) {
	for _, v := range []Variant{Reference, Corrected} {
		t.Run(v.String(), func(t *testing.T) { testNoAllocs(t, v) })
	}
}

func testNoAllocs(t *testing.T, v Variant) {
	p := lookup(t, "fb2011")
	r := newRand(13)
	z, _ := NewZipf(0, 1_000_000, 0.8)
	u, _ := NewUniform(0, 100)
	g, _ := NewMultigetSize(p, v)
	l, _ := NewLogNormal(0, 256, 8, 1)
	deg := NewOutDegree(p.Dist.NLinks, 1, 100_001, 2, v)
	id2 := NewID2(deg)
	reads, _ := NewLinkReads(p, 1, 100_001)
	writes, _ := NewLinkWrites(p, 1, 100_001, v)
	node, _ := NewNodeAccess(p.NodeRead, 1, 100_001)
	link, _ := NewPayload(p.LinkAddMotif, p.LinkDataMedian, p.DataSigma, 255, SeedLinkAddMotif, v)
	nodeP, _ := NewPayload(p.NodeAddMotif, p.NodeDataMedian, p.DataSigma, 1<<20, SeedNodeAddMotif, v)
	link, nodeP = link.ForClient(r), nodeP.ForClient(r)
	mix := NewOpMix(p.Mix)
	buf := make([]byte, 0, 1<<21)
	ids := make([]int64, 0, 128)
	for name, f := range map[string]func(){
		"Zipf":      func() { z.Choose(r) },
		"Uniform":   func() { u.Choose(r) },
		"Geometric": func() { g.Choose(r) },
		"LogNormal": func() { l.Choose(r) },
		"OutDegree": func() { deg.PerType(r.Int64N(100_000)+1, 1) },
		"ID2":       func() { id2.ForOp(r, 17, 0, PAdd) },
		"Multiple":  func() { ids = id2.Multiple(r, 17, 0, int(g.Choose(r)), PGet, ids[:0]) },
		"LinkRead":  func() { reads.Choose(r) },
		"LinkWrite": func() { writes.Choose(r) },
		"NodeRead":  func() { node.Choose(r) },
		"Payload":   func() { buf = link.Fill(r, buf); buf = nodeP.Fill(r, buf) },
		"OpMix":     func() { mix.Choose(r) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per draw", name, n)
		}
	}
}

func BenchmarkZipfChoose(b *testing.B) {
	z, err := NewZipf(0, 10_000_000, 0.8)
	if err != nil {
		b.Fatal(err)
	}
	r := newRand(1)
	b.ReportAllocs()
	for b.Loop() {
		z.Choose(r)
	}
}

func BenchmarkOutDegreeTotal(b *testing.B) {
	p := lookup(b, "fb2011")
	d := NewOutDegree(p.Dist.NLinks, 1, 10_000_001, p.LinkTypes, Corrected)
	b.ReportAllocs()
	id := int64(1)
	for b.Loop() {
		d.Total(id)
		if id++; id == 10_000_001 {
			id = 1
		}
	}
}

func BenchmarkID2ForOp(b *testing.B) {
	p := lookup(b, "fb2011")
	c := NewID2(NewOutDegree(p.Dist.NLinks, 1, 10_000_001, p.LinkTypes, Corrected))
	r := newRand(1)
	b.ReportAllocs()
	id := int64(1)
	for b.Loop() {
		c.ForOp(r, id, 0, PUpdate)
		if id++; id == 10_000_001 {
			id = 1
		}
	}
}

func benchmarkPayload(b *testing.B, node bool) {
	p := lookup(b, "fb2011")
	m, med, maxLen := p.LinkAddMotif, p.LinkDataMedian, 255
	if node {
		m, med, maxLen = p.NodeAddMotif, p.NodeDataMedian, 1<<20
	}
	g, err := NewPayload(m, med, p.DataSigma, maxLen, 1, Corrected)
	if err != nil {
		b.Fatal(err)
	}
	r := newRand(1)
	buf := make([]byte, 0, maxLen)
	b.ReportAllocs()
	for b.Loop() {
		buf = g.Fill(r, buf)
	}
}

func BenchmarkPayloadFillLink(b *testing.B) { benchmarkPayload(b, false) }
func BenchmarkPayloadFillNode(b *testing.B) { benchmarkPayload(b, true) }

func BenchmarkOpMixChoose(b *testing.B) {
	m := NewOpMix(lookup(b, "fb2011").Mix)
	r := newRand(1)
	b.ReportAllocs()
	for b.Loop() {
		m.Choose(r)
	}
}

func BenchmarkLinkAccessChoose(b *testing.B) {
	p := lookup(b, "fb2011")
	a, err := NewLinkAccess(p.ReadCorr, p.ReadUncorr, p.ReadUncorrBlend, 1, 10_000_001)
	if err != nil {
		b.Fatal(err)
	}
	r := newRand(1)
	b.ReportAllocs()
	for b.Loop() {
		a.Choose(r)
	}
}

// EstimateLoaded is exact where it sums every rank, and close to the sum of Loaded over every
// node where it samples, in both variants and both profiles.
func TestEstimateLoaded(t *testing.T) {
	for _, prof := range []string{"fb2011", "fb2017"} {
		p := lookup(t, prof)
		for _, v := range []Variant{Reference, Corrected} {
			for _, n := range []int64{10_000, 1_000_000} {
				d := NewOutDegree(p.Dist.NLinks, 1, 1+n, p.LinkTypes, v)
				var exact int64
				for id := int64(1); id < 1+n; id++ {
					exact += d.Loaded(id)
				}
				got := d.EstimateLoaded()
				if n <= estimateHead && got != exact {
					t.Errorf("%s %v n=%d: estimate %d, exact %d", prof, v, n, got, exact)
				}
				if rel := math.Abs(float64(got-exact)) / float64(exact); rel > 0.01 {
					t.Errorf("%s %v n=%d: estimate %d is %.2f%% off the exact %d", prof, v, n, got, 100*rel, exact)
				}
			}
		}
	}
}
