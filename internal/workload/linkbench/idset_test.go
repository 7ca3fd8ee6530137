package linkbench

import (
	"sync"
	"testing"
)

func TestIDSet(t *testing.T) {
	s := newIDSet([][2]int64{{10, 20}, {100, 164}, {1000, 1001}})
	in := []int64{10, 19, 100, 163, 1000}
	out := []int64{9, 20, 99, 164, 999, 1001, -1}
	var wg sync.WaitGroup
	for _, id := range append(in, out...) {
		wg.Add(1)
		go func() { defer wg.Done(); s.add(id) }()
	}
	wg.Wait()
	for _, id := range in {
		if !s.has(id) {
			t.Errorf("%d added, not held", id)
		}
	}
	for _, id := range append(out, 11, 150) {
		if s.has(id) {
			t.Errorf("%d held", id)
		}
	}
	if len(s.bits) != 2 { // 10 + 64 + 1 ids
		t.Errorf("%d words for 75 ids", len(s.bits))
	}
}

// TestCheckRanges: every id1 up to fullCheckNodes, else sorted, disjoint random ranges inside
// the id space, the same for the same seed.
func TestCheckRanges(t *testing.T) {
	p, _ := DefaultParams("small")
	if r, _ := checkRanges(&p); len(r) != 1 || r[0] != [2]int64{p.StartID1, p.MaxID1} {
		t.Errorf("small: %v", r)
	}
	p, _ = DefaultParams("iobound")
	p.MaxID1 = 5_000_001 // ranges overlap now and then
	r, what := checkRanges(&p)
	var ids int64
	for i, rg := range r {
		if rg[0] < p.StartID1 || rg[1] > p.MaxID1 || rg[0] >= rg[1] || i > 0 && rg[0] <= r[i-1][1] {
			t.Fatalf("range %d %v of %v", i, rg, r)
		}
		ids += rg[1] - rg[0]
	}
	if ids > sampleChunks*sampleChunk || ids < sampleChunk || what != "64 random ranges of 1024 id1s" {
		t.Errorf("%d ids in %d ranges (%s)", ids, len(r), what)
	}
	if again, _ := checkRanges(&p); len(again) != len(r) || again[0] != r[0] {
		t.Errorf("ranges differ for the same seed")
	}
}
