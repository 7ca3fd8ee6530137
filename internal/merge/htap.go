package merge

import "github.com/enginebench/enginebench/internal/result"

// htap sums what the shards' holders of the Insert Benchmark's --htap-transaction-seconds did
// (their connections, snapshots, seconds and errors), with the largest of each engine counter
// any of them read while its snapshot was open (one engine: each shard read the same one);
// nil when no shard held any.
func htap(active []part) *result.HTAP {
	var out *result.HTAP
	for _, p := range active {
		h := p.st.HTAP
		if h == nil {
			continue
		}
		if out == nil {
			out = &result.HTAP{TransactionSeconds: h.TransactionSeconds}
		}
		out.Connections += h.Connections
		out.Snapshots += h.Snapshots
		out.HeldSeconds += h.HeldSeconds
		out.Errors += h.Errors
		for k, v := range h.EngineStatsHeld {
			if out.EngineStatsHeld == nil {
				out.EngineStatsHeld = map[string]float64{}
			}
			if old, ok := out.EngineStatsHeld[k]; !ok || v > old {
				out.EngineStatsHeld[k] = v
			}
		}
	}
	return out
}
