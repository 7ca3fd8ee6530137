package linkbench

import "github.com/enginebench/enginebench/internal/workload/linkbench/store"

// Tables implements workload.Workload: the tables Run creates (on PostgreSQL, linktable's
// partitions go with it).
// In a sharded run they are shard 0's (it creates them before the first barrier and drops
// them after the last), so the other shards have none: they neither look for them before the
// run nor drop them after.
func (w *Workload) Tables() []string {
	if w.p.Shard.Sharded() && !w.p.Shard.Leader() {
		return nil
	}
	return store.SQLTables()
}
