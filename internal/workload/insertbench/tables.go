package insertbench

import "fmt"

// Tables implements workload.Workload: the tables Run creates, pi1 to piN, one per client, or
// pi1 alone with a shared table; in a shard (--shard), those of its clients.
func (w *Workload) Tables() []string {
	var out []string
	for i := 0; i < w.p.Tables(); i++ {
		if w.p.SharedTable || w.p.Shard.Owns(i) {
			out = append(out, fmt.Sprintf("pi%d", i+1))
		}
	}
	return out
}
