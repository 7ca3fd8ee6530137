// Package kvbench holds benchmarks that compare the key-value engines on the operations the
// workloads make (a point read, a short range query, a small write batch), each engine through
// its kv.DB as the workloads use it. It has no code outside its tests.
package kvbench
