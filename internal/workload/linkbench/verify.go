package linkbench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// Verification reads every id1 up to fullCheckNodes nodes, else sampleChunks random ranges of
// sampleChunk id1s; it reads at most checkPairs (id1, link type) pairs at a time, and reports
// the first maxReported problems.
const (
	fullCheckNodes = 1_000_000
	sampleChunks   = 64
	sampleChunk    = 1024
	checkPairs     = 65536
	maxReported    = 5
)

// verify checks that nothing was lost, added or altered (docs/linkbench.md, Verification):
// the row totals; every link (through the primary key and through id1_type), count and node
// of the checked id1s against its key and version, and against what the load wrote where no
// request wrote; and every node ADD_NODE wrote. It returns nil when the engine stores nothing,
// and canceled when ctx ended before it did. It calls beat every beatEvery rows read.
func (r *run) verify(ctx context.Context, beat func()) (v *result.Verify, canceled bool) {
	if r.discards() {
		return nil, false
	}
	vf := &verifier{r: r, c: r.m.content, rr: newRowRand(), counts: map[[2]int64]store.Count{}, beat: beat}
	vf.h.SetSeed(maphash.MakeSeed())
	if err := vf.run(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, true
		}
		return &result.Verify{OK: false, Detail: err.Error()}, false
	}
	if vf.problems > 0 {
		return &result.Verify{OK: false, Detail: vf.detail()}, false
	}
	return &result.Verify{OK: true, Detail: vf.summary(), Checked: map[string]int64{"links": vf.links, "counts": vf.pairs, "nodes": vf.nodes}}, false
}

// beatEvery is how many rows verification reads between two beats of its stall watchdog.
const beatEvery = 1024

// verifier is the state of one verification.
type verifier struct {
	r    *run
	beat func() // tells the stall watchdog that verification progresses
	read int64  // rows read
	c    *content
	rr   *rowRand
	buf  []byte
	h    maphash.Hash

	bad      []string // the first maxReported problems
	problems int64
	// What was read and checked.
	totals              store.Rows
	links, pairs, nodes int64
	added               int64
	counts              map[[2]int64]store.Count // counttable rows of the current range
	pkSum, ixSum        uint64                   // digests of the current range's links
	pkLinks, ixLinks    int64
	g                   group
}

// group is what verification has read of one (id1, link type) through the primary key.
type group struct {
	id1, lt int64
	n       int64 // links the load wrote
	touched bool  // a request wrote or deleted a link of id1
	rows    int64
	loaded  int64 // rows whose id2 is one the load wrote
	visible int64
	newest  int64 // the latest time of the load's links read
}

// readOne counts a row read, and beats every beatEvery of them.
func (v *verifier) readOne() {
	if v.read++; v.read%beatEvery == 0 {
		v.beat()
	}
}

// fail records a problem.
func (v *verifier) fail(format string, args ...any) {
	v.problems++
	if len(v.bad) < maxReported {
		v.bad = append(v.bad, fmt.Sprintf(format, args...))
	}
}

func (v *verifier) detail() string {
	d := strings.Join(v.bad, "; ")
	if more := v.problems - int64(len(v.bad)); more > 0 {
		d += fmt.Sprintf("; and %d more problems", more)
	}
	return d
}

func (v *verifier) summary() string {
	through := "primary key"
	if v.r.indexed {
		through = "primary key and id1_type"
	}
	return fmt.Sprintf("%d links, %d nodes in all; %s: %d links (%s), %d counts and %d nodes match their keys and versions; %d nodes added by requests",
		v.totals.LinksByPK, v.totals.Nodes, v.r.checked, v.links, through, v.pairs, v.nodes, v.added)
}

// run reads everything verification checks; an error is one the engine returned.
func (v *verifier) run(ctx context.Context) error {
	if err := v.checkTotals(ctx); err != nil {
		return err
	}
	span := max(1, checkPairs/int64(v.r.p.LinkTypes))
	for _, rg := range v.r.vranges {
		for lo := rg[0]; lo < rg[1]; lo += span {
			hi := min(lo+span, rg[1])
			if err := v.checkLinks(ctx, lo, hi); err != nil {
				return err
			}
			if err := v.checkNodes(ctx, lo, hi); err != nil {
				return err
			}
		}
	}
	return v.checkAddedNodes(ctx)
}

// checkTotals compares the row counts with the load's and the requests' tally.
func (v *verifier) checkTotals(ctx context.Context) error {
	rows, err := v.r.st.Rows(ctx)
	if err != nil {
		return err
	}
	v.totals = rows
	t := v.r.want()
	wantLinks := t.links + t.linksInserted - t.linksExpunged
	wantNodes := t.nodes + t.nodesAdded - t.nodesDeleted
	if rows.LinksByPK != wantLinks {
		v.fail("linktable has %d links through its primary key, expected %d", rows.LinksByPK, wantLinks)
	}
	if v.r.indexed && rows.LinksByIndex != rows.LinksByPK {
		v.fail("linktable has %d links through id1_type and %d through its primary key", rows.LinksByIndex, rows.LinksByPK)
	}
	if rows.Nodes != wantNodes {
		v.fail("nodetable has %d nodes, expected %d", rows.Nodes, wantNodes)
	}
	return nil
}

// checkLinks checks the links and counts of the id1s [lo, hi): each link type through the
// primary key, (id1, link type) by (id1, link type), then id1_type against the primary key.
func (v *verifier) checkLinks(ctx context.Context, lo, hi int64) error {
	p := v.r.p
	clear(v.counts)
	err := v.r.st.ScanCounts(ctx, lo, hi, func(n *store.Count) error {
		v.readOne()
		if ti := n.LinkType - store.FirstLinkType; ti < 0 || ti >= int64(p.LinkTypes) {
			v.fail("counttable has a row of id1 %d and link type %d, which no step writes", n.ID1, n.LinkType)
			return nil
		}
		v.counts[[2]int64{n.ID1, n.LinkType}] = *n
		return nil
	})
	if err != nil {
		return err
	}
	v.pkSum, v.pkLinks = 0, 0
	for ti := 0; ti < p.LinkTypes; ti++ {
		if err := v.checkType(ctx, ti, lo, hi); err != nil {
			return err
		}
	}
	if !v.r.indexed {
		return nil
	}
	v.ixSum, v.ixLinks = 0, 0
	err = v.r.st.ScanIndex(ctx, lo, hi, func(l *store.Link) error {
		v.readOne()
		v.ixSum += v.linkHash(l)
		v.ixLinks++
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case v.ixLinks != v.pkLinks:
		v.fail("id1 %d..%d: id1_type holds %d links, the primary key %d", lo, hi-1, v.ixLinks, v.pkLinks)
	case v.ixSum != v.pkSum:
		v.fail("id1 %d..%d: id1_type and the primary key hold %d links each, but not the same ones", lo, hi-1, v.pkLinks)
	}
	return nil
}

// checkType reads the links of type index ti of the id1s [lo, hi) through the primary key,
// in (id1, id2) order, closing each id1's group as the scan passes it.
func (v *verifier) checkType(ctx context.Context, ti int, lo, hi int64) error {
	cur := lo
	v.open(cur, ti)
	err := v.r.st.ScanLinks(ctx, linkType(ti), lo, hi, func(l *store.Link) error {
		v.readOne()
		if l.ID1 < cur || l.ID1 >= hi {
			return fmt.Errorf("link (%d, %d, %d) read out of order or out of the range %d..%d", l.ID1, l.LinkType, l.ID2, lo, hi-1)
		}
		for ; cur < l.ID1; v.open(cur, ti) {
			v.close()
			cur++
		}
		v.link(l)
		return nil
	})
	if err != nil {
		return err
	}
	for {
		v.close()
		if cur++; cur >= hi {
			return nil
		}
		v.open(cur, ti)
	}
}

// open starts the group of (id1, type index ti).
func (v *verifier) open(id1 int64, ti int) {
	v.g = group{id1: id1, lt: linkType(ti), n: v.r.m.deg.PerType(id1, ti), touched: v.r.linksTouched.has(id1)}
}

// link checks one link of the open group against its key and version.
func (v *verifier) link(l *store.Link) {
	g := &v.g
	v.pkSum += v.linkHash(l)
	v.pkLinks++
	v.links++
	g.rows++
	switch l.Visibility {
	case store.Visible:
		g.visible++
	case store.Hidden:
		if !g.touched {
			v.fail("link (%d, %d, %d) is hidden, but no request deleted a link of id1 %d", l.ID1, l.LinkType, l.ID2, l.ID1)
		}
	default:
		v.fail("link (%d, %d, %d) has visibility %d", l.ID1, l.LinkType, l.ID2, l.Visibility)
	}
	j := l.ID2 - l.ID1
	loaded := j >= 0 && j < g.n
	switch {
	case l.Version == loadLinkVersion:
		if !loaded {
			v.fail("link (%d, %d, %d) has the load's version %d, but the load wrote no such link", l.ID1, l.LinkType, l.ID2, l.Version)
			return
		}
		var tm int64
		v.buf, tm = v.c.loadLink(v.rr, v.buf, v.r.loadMs, l.ID1, l.LinkType, l.ID2)
		if !bytes.Equal(l.Data, v.buf) || l.Time != tm {
			v.fail("link (%d, %d, %d) differs from what the load wrote (payload of %d bytes, time %d; want %d bytes, time %d)",
				l.ID1, l.LinkType, l.ID2, len(l.Data), l.Time, len(v.buf), tm)
		}
		g.newest = max(g.newest, tm)
	case !g.touched:
		v.fail("link (%d, %d, %d) has version %d, but no request wrote a link of id1 %d", l.ID1, l.LinkType, l.ID2, l.Version, l.ID1)
		return
	default:
		var ok bool
		v.buf, ok = v.c.requestLink(v.rr, v.buf, l.ID1, l.LinkType, l.ID2, l.Version)
		if !ok || !bytes.Equal(l.Data, v.buf) {
			v.fail("link (%d, %d, %d) version %d: its payload (%d bytes) is not the one its key and version give",
				l.ID1, l.LinkType, l.ID2, l.Version, len(l.Data))
		}
	}
	if loaded {
		g.loaded++
	}
}

// close checks the open group: its count equals its visible links; untouched by requests, it
// holds exactly the load's links and count row; touched, it lost none of the load's links
// unless DELETE_LINK expunges.
func (v *verifier) close() {
	g := &v.g
	key := [2]int64{g.id1, g.lt}
	c, ok := v.counts[key]
	delete(v.counts, key)
	v.pairs++
	if c.Count != g.visible {
		v.fail("id1 %d link_type %d: count %d, visible links %d", g.id1, g.lt, c.Count, g.visible)
	}
	switch {
	case !g.touched && (g.rows != g.n || g.loaded != g.n):
		v.fail("id1 %d link_type %d: %d links, %d of them the load's; the load wrote %d and no request wrote any",
			g.id1, g.lt, g.rows, g.loaded, g.n)
	case !g.touched && g.n > 0 && ok && (c.Version != 0 || c.Time != g.newest):
		v.fail("id1 %d link_type %d: the count row has version %d and time %d, the load wrote 0 and %d",
			g.id1, g.lt, c.Version, c.Time, g.newest)
	case !g.touched && g.n == 0 && ok:
		v.fail("id1 %d link_type %d: a count row the load did not write", g.id1, g.lt)
	case g.touched && !v.r.p.Expunge && g.loaded != g.n:
		v.fail("id1 %d link_type %d: %d of the %d links the load wrote are missing", g.id1, g.lt, g.n-g.loaded, g.n)
	}
}

// checkNodes checks the nodes of the ids [lo, hi): each present one against its id and
// version; a missing one must have been a DELETE_NODE's target.
func (v *verifier) checkNodes(ctx context.Context, lo, hi int64) error {
	next := lo
	err := v.r.st.ScanNodes(ctx, lo, hi, func(n *store.Node) error {
		v.readOne()
		if n.ID < next || n.ID >= hi {
			return fmt.Errorf("node %d read out of order or out of the range %d..%d", n.ID, lo, hi-1)
		}
		for ; next < n.ID; next++ {
			v.missingNode(next)
		}
		next++
		v.node(n)
		return nil
	})
	if err != nil {
		return err
	}
	for ; next < hi; next++ {
		v.missingNode(next)
	}
	return nil
}

func (v *verifier) missingNode(id int64) {
	if !v.r.nodesTouched.has(id) {
		v.fail("node %d is missing, and no request deleted it", id)
	}
}

// node checks a node of the loaded ids against its id and version.
func (v *verifier) node(n *store.Node) {
	v.nodes++
	if n.Type != store.NodeType {
		v.fail("node %d has type %d, not %d", n.ID, n.Type, store.NodeType)
	}
	switch {
	case n.Version == loadNodeVersion:
		v.buf = v.c.loadNode(v.rr, v.buf, n.ID)
		if !bytes.Equal(n.Data, v.buf) || n.Time != v.r.loadSec {
			v.fail("node %d differs from what the load wrote (payload of %d bytes, time %d; want %d bytes, time %d)",
				n.ID, len(n.Data), n.Time, len(v.buf), v.r.loadSec)
		}
	case !v.r.nodesTouched.has(n.ID):
		v.fail("node %d has version %d, but no request updated it", n.ID, n.Version)
	default:
		var ok bool
		v.buf, ok = v.c.updatedNode(v.rr, v.buf, n.ID, n.Version)
		if !ok || !bytes.Equal(n.Data, v.buf) {
			v.fail("node %d version %d: its payload (%d bytes) is not the one its id and version give", n.ID, n.Version, len(n.Data))
		}
	}
}

// checkAddedNodes reads every node outside the loaded ids: none below them, and above them
// exactly the nodes the requests added, each once (their versions' digest is the requests'),
// each with the payload its version gives.
func (v *verifier) checkAddedNodes(ctx context.Context) error {
	p, t := v.r.p, v.r.want()
	err := v.r.st.ScanNodes(ctx, math.MinInt64, p.StartID1, func(n *store.Node) error {
		v.fail("node %d is below startid1 %d: no step writes it", n.ID, p.StartID1)
		return nil
	})
	if err != nil {
		return err
	}
	var sum uint64
	err = v.r.st.ScanNodes(ctx, p.MaxID1, math.MaxInt64, func(n *store.Node) error {
		v.readOne()
		v.added++
		sum += workload.Mix64(uint64(n.Version))
		var ok bool
		v.buf, ok = v.c.addedNode(v.rr, v.buf, n.Version)
		switch {
		case !ok:
			v.fail("node %d has version %d, which no ADD_NODE writes", n.ID, n.Version)
		case n.Type != store.NodeType || !bytes.Equal(n.Data, v.buf):
			v.fail("node %d version %d: its type %d or payload (%d bytes) is not what ADD_NODE wrote", n.ID, n.Version, n.Type, len(n.Data))
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case v.added != t.nodesAdded:
		v.fail("%d nodes past the loaded ids, but requests added %d", v.added, t.nodesAdded)
	case sum != t.addedSum:
		v.fail("the %d nodes past the loaded ids are not the ones requests added: some are there twice, others missing", v.added)
	}
	return nil
}

// linkHash is a digest of every column of a link, for comparing the primary key with id1_type.
func (v *verifier) linkHash(l *store.Link) uint64 {
	var b [41]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(l.ID1))
	binary.LittleEndian.PutUint64(b[8:], uint64(l.LinkType))
	binary.LittleEndian.PutUint64(b[16:], uint64(l.ID2))
	binary.LittleEndian.PutUint64(b[24:], uint64(l.Time))
	binary.LittleEndian.PutUint64(b[32:], uint64(l.Version))
	b[40] = byte(l.Visibility)
	v.h.Reset()
	v.h.Write(b[:])
	v.h.Write(l.Data)
	return v.h.Sum64()
}

// checkRanges returns the id1 ranges [lo, hi) verification reads, sorted and disjoint, and
// what they are.
func checkRanges(p *Params) ([][2]int64, string) {
	if p.Nodes() <= fullCheckNodes {
		return [][2]int64{{p.StartID1, p.MaxID1}}, fmt.Sprintf("all %d id1s", p.Nodes())
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x636865636b))
	var out [][2]int64
	for i := 0; i < sampleChunks; i++ {
		lo := p.StartID1 + rng.Int64N(p.Nodes()-sampleChunk)
		out = append(out, [2]int64{lo, lo + sampleChunk})
	}
	slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	merged := out[:1]
	for _, r := range out[1:] {
		if last := &merged[len(merged)-1]; r[0] <= last[1] {
			last[1] = max(last[1], r[1])
		} else {
			merged = append(merged, r)
		}
	}
	return merged, fmt.Sprintf("%d random ranges of %d id1s", sampleChunks, sampleChunk)
}
