package iibench

// Tables implements workload.Workload: the one table Run creates.
func (w *Workload) Tables() []string { return []string{tableName} }
