package linkbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// Verification reads every id1 up to fullCheckNodes nodes, else sampleChunks random ranges of
// sampleChunk id1s; it reads at most checkSpan id1s at a time.
const (
	fullCheckNodes = 1_000_000
	sampleChunks   = 64
	sampleChunk    = 1024
	checkSpan      = 65536
	maxReported    = 5
)

// verify checks that nothing was lost: linktable has the rows the load wrote and the requests
// added, through its primary key and through id1_type; nodetable has the nodes; and every
// (id1, link type) of the checked id1s has a count equal to its visible links.
func (r *run) verify(ctx context.Context) *result.Verify {
	if r.discards() {
		return nil
	}
	rows, err := r.st.Rows(ctx)
	if err != nil {
		if isCanceled(err) {
			return nil
		}
		return &result.Verify{OK: false, Detail: err.Error()}
	}
	t := &r.tally
	var bad []string
	wantLinks := t.links + t.linksInserted - t.linksExpunged
	wantNodes := t.nodes + t.nodesAdded - t.nodesDeleted
	if rows.LinksByPK != wantLinks {
		bad = append(bad, fmt.Sprintf("linktable has %d links through its primary key, expected %d", rows.LinksByPK, wantLinks))
	}
	if r.indexed && rows.LinksByIndex != rows.LinksByPK {
		bad = append(bad, fmt.Sprintf("linktable has %d links through id1_type and %d through its primary key", rows.LinksByIndex, rows.LinksByPK))
	}
	if rows.Nodes != wantNodes {
		bad = append(bad, fmt.Sprintf("nodetable has %d nodes, expected %d", rows.Nodes, wantNodes))
	}
	ranges, what := r.checkRanges()
	var pairs, mismatches int64
	for _, rg := range ranges {
		for lo := rg[0]; lo < rg[1]; lo += checkSpan {
			hi := min(lo+checkSpan, rg[1])
			res, err := r.st.Check(ctx, lo, hi)
			if err != nil {
				if isCanceled(err) {
					return nil
				}
				return &result.Verify{OK: false, Detail: fmt.Sprintf("check counts of id1 %d..%d: %v", lo, hi-1, err)}
			}
			keys := make(map[[2]int64]bool, len(res.Stored)+len(res.Visible))
			for k := range res.Stored {
				keys[k] = true
			}
			for k := range res.Visible {
				keys[k] = true
			}
			var wrong [][2]int64
			for k := range keys {
				pairs++
				if res.Stored[k] != res.Visible[k] {
					wrong = append(wrong, k)
				}
			}
			sort.Slice(wrong, func(i, j int) bool {
				return wrong[i][0] < wrong[j][0] || wrong[i][0] == wrong[j][0] && wrong[i][1] < wrong[j][1]
			})
			for _, k := range wrong {
				mismatches++
				if mismatches <= maxReported {
					bad = append(bad, fmt.Sprintf("id1 %d link_type %d: count %d, visible links %d",
						k[0], k[1], res.Stored[k], res.Visible[k]))
				}
			}
		}
	}
	if mismatches > maxReported {
		bad = append(bad, fmt.Sprintf("%d more count mismatches", mismatches-maxReported))
	}
	summary := fmt.Sprintf("%d links (primary key), %d nodes; counts of %d (id1, link_type) pairs of %s equal their visible links",
		rows.LinksByPK, rows.Nodes, pairs, what)
	if r.indexed {
		summary = fmt.Sprintf("%d links (primary key and id1_type), %d nodes; counts of %d (id1, link_type) pairs of %s checked",
			rows.LinksByPK, rows.Nodes, pairs, what)
	}
	if len(bad) > 0 {
		return &result.Verify{OK: false, Detail: strings.Join(bad, "; ")}
	}
	return &result.Verify{OK: true, Detail: summary}
}

// checkRanges returns the id1 ranges [lo, hi) whose counts are checked, and what they are.
func (r *run) checkRanges() ([][2]int64, string) {
	p := r.p
	if p.Nodes() <= fullCheckNodes {
		return [][2]int64{{p.StartID1, p.MaxID1}}, fmt.Sprintf("all %d id1s", p.Nodes())
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x636865636b))
	var out [][2]int64
	for i := 0; i < sampleChunks; i++ {
		lo := p.StartID1 + rng.Int64N(p.Nodes()-sampleChunk)
		out = append(out, [2]int64{lo, lo + sampleChunk})
	}
	return out, fmt.Sprintf("%d random ranges of %d id1s", sampleChunks, sampleChunk)
}
