package linkbench

import "github.com/enginebench/enginebench/internal/workload/linkbench/store"

// Tables implements workload.Workload: the tables Run creates (on PostgreSQL, linktable's
// partitions go with it).
func (w *Workload) Tables() []string { return store.SQLTables() }
