package iibench

// Tables implements workload.Workload: the one table Run creates. In a sharded run it is shard
// 0's (it creates it before the first barrier and drops it after the last), so the other shards
// have none: they neither look for it before the run nor drop it after.
func (w *Workload) Tables() []string {
	if w.p.Shard.Sharded() && !w.p.Shard.Leader() {
		return nil
	}
	return []string{tableName}
}
