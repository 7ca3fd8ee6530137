package insertbench

import "fmt"

// Tables implements workload.Workload: the tables Run creates, pi1 to piN, one per client, or
// pi1 alone with a shared table.
func (w *Workload) Tables() []string {
	out := make([]string, w.p.Tables())
	for i := range out {
		out[i] = fmt.Sprintf("pi%d", i+1)
	}
	return out
}
