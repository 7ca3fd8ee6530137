package linkbench

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// maxSource makes every draw its largest.
type maxSource struct{}

func (maxSource) Uint64() uint64 { return ^uint64(0) }

// TestVersions: the versions requests write fit their columns and name their writer, and a
// version no writer uses gives no payload.
func TestVersions(t *testing.T) {
	for _, requesters := range []int{1, 3, 4096} {
		p, _ := DefaultParams("tiny")
		p.Requesters, p.MaxID1 = requesters, 101
		w := mustNew(t, p)
		c := w.m.content
		rr := newRowRand()
		for _, r := range []*rand.Rand{rand.New(maxSource{}), rand.New(rand.NewPCG(1, 2))} {
			for _, i := range []int{0, requesters - 1} {
				for k, update := range []bool{false, true} {
					v := c.linkVersion(r, i, update)
					if v < 1 || v > linkVersionLimit || (v-1)&1 != int64(k) || ((v-1)>>1)%int64(requesters) != int64(i) {
						t.Errorf("%d requesters: requester %d (update %v) wrote link version %d", requesters, i, update, v)
					}
					if _, ok := c.requestLink(rr, nil, 1, 2, 3, v); !ok {
						t.Errorf("link version %d refused", v)
					}
				}
				v := c.nodeUpdateVersion(r, i)
				if _, ok := c.updatedNode(rr, nil, 5, v); !ok || v < 2 || isNodeAdd(v) || (v-2)%int64(requesters) != int64(i) {
					t.Errorf("%d requesters: requester %d updated a node with version %d", requesters, i, v)
				}
				v = nodeAddVersion(i, 1<<nodeAddShift-1)
				if _, ok := c.addedNode(rr, nil, v); !ok || !isNodeAdd(v) {
					t.Errorf("%d requesters: requester %d added a node with version %d", requesters, i, v)
				}
			}
		}
		for _, v := range []int64{loadLinkVersion, -1, linkVersionLimit + 1} {
			if _, ok := c.requestLink(rr, nil, 1, 2, 3, v); ok {
				t.Errorf("link version %d gave a payload", v)
			}
		}
		for _, v := range []int64{loadNodeVersion, 0, nodeAddVersion(0, 0)} {
			if _, ok := c.updatedNode(rr, nil, 5, v); ok {
				t.Errorf("node update version %d gave a payload", v)
			}
		}
		for _, v := range []int64{loadNodeVersion, 2, nodeAddVersion(requesters, 0), -1} {
			if _, ok := c.addedNode(rr, nil, v); ok {
				t.Errorf("node add version %d gave a payload", v)
			}
		}
	}
}

// TestRowsFromKeys: a row's payload (and a loaded link's time) is a function of its key and
// version alone, and differs from one key or version to the next.
func TestRowsFromKeys(t *testing.T) {
	p, _ := DefaultParams("tiny")
	w := mustNew(t, p)
	c := w.m.content
	a, b := newRowRand(), newRowRand()
	d1, t1 := c.loadLink(a, nil, 1e12, 7, linkType(0), 9)
	c.loadLink(a, nil, 1e12, 8, linkType(0), 9) // another row in between
	d2, t2 := c.loadLink(b, nil, 1e12, 7, linkType(0), 9)
	if !bytes.Equal(d1, d2) || t1 != t2 || t1 > 1e12 || t1 < 1e12-1<<32 {
		t.Errorf("link (7, 9): %x at %d, then %x at %d", d1, t1, d2, t2)
	}
	differ := 0
	for id2 := int64(10); id2 < 40; id2++ {
		d, tm := c.loadLink(b, nil, 1e12, 7, linkType(0), id2)
		if !bytes.Equal(d, d1) || tm != t1 {
			differ++
		}
	}
	v := c.linkVersion(rand.New(rand.NewPCG(3, 4)), 1, false)
	r1, _ := c.requestLink(a, nil, 7, linkType(0), 9, v)
	r2, _ := c.requestLink(b, nil, 7, linkType(0), 9, v)
	r3, _ := c.requestLink(b, nil, 7, linkType(0), 9, v+2)
	if differ != 30 || !bytes.Equal(r1, r2) || bytes.Equal(r1, r3) && len(r1) > 0 {
		t.Errorf("%d of 30 other keys differ; version %d: %x and %x, version %d: %x", differ, v, r1, r2, v+2, r3)
	}
	if n1, n2 := c.loadNode(a, nil, 5), c.loadNode(b, nil, 5); !bytes.Equal(n1, n2) || bytes.Equal(n1, c.loadNode(a, nil, 6)) {
		t.Error("node 5's payload is not a function of its id")
	}
}
