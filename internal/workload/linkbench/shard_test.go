package linkbench

import (
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/shard"
)

// TestShardsPartitionChunksAndRanges: the shards of a run take every chunk of id1s once (chunk k
// is shard k % N's), their parts of the checked ranges are disjoint and together the ranges,
// and their load shares sum to 1; one shard of one is the whole run.
func TestShardsPartitionChunksAndRanges(t *testing.T) {
	p := tinyParams(t)
	p.StartID1, p.MaxID1, p.LoadChunk = 5, 10_005, 1000 // chunks start at 5, 1005, ...
	ranges := [][2]int64{{5, 10_005}, {20_000, 20_100}}
	for _, n := range []int{1, 3} {
		var got [][2]int64
		var chunks []int64
		share := 0.0
		for i := range n {
			sp := p
			sp.Shard = shard.Shard{Index: i, Count: n, Run: "r"}
			r := &run{p: &sp}
			for j := int64(0); ; j++ {
				lo := r.chunkOf(j)
				if lo >= p.MaxID1 {
					break
				}
				if k := (lo - p.StartID1) / 1000; int(k)%n != i || !r.ownsID1(lo) || !r.ownsID1(lo+999) {
					t.Errorf("shard %d of %d: chunk %d at %d", i, n, k, lo)
				}
				chunks = append(chunks, lo)
			}
			got = append(got, r.ownRanges(ranges)...)
			share += r.loadShare()
		}
		slices.Sort(chunks)
		if len(chunks) != 10 || chunks[0] != 5 || chunks[9] != 9005 || len(slices.Compact(chunks)) != 10 {
			t.Errorf("%d shards took the chunks %v", n, chunks)
		}
		if share < 0.999 || share > 1.001 {
			t.Errorf("%d shards' load shares sum to %g", n, share)
		}
		slices.SortFunc(got, func(a, b [2]int64) int { return int(a[0] - b[0]) })
		var ids int64
		for i, rg := range got {
			ids += rg[1] - rg[0]
			if i > 0 && rg[0] < got[i-1][1] {
				t.Errorf("%d shards: ranges %v overlap", n, got)
			}
		}
		if ids != 10_000+100 {
			t.Errorf("%d shards verify %d ids of %v, want the 10,100 of %v", n, ids, got, ranges)
		}
		if n == 1 && !slices.Equal(got, ranges) {
			t.Errorf("one shard of one verifies %v, want %v", got, ranges)
		}
	}
}
