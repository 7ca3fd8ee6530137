// Package null is the null engine: a KV engine that accepts every operation and stores nothing.
// Running a workload on it measures the benchmark harness's own cost per operation (key
// encoding, row generation, recording), so every operation is as cheap as it can be: none
// allocates, and a batch only counts its writes.
package null

import (
	"context"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Driver returns the driver of the "null" engine. It has no settings, needs no data directory
// and implements engine.Discarder: workloads skip their verification on it.
func Driver() engine.Driver {
	return engine.Driver{
		Name:        "null",
		Family:      engine.FamilyKV,
		Description: "stores nothing; measures the harness's own cost (verification is skipped)",
		Open: func(context.Context, engine.Config) (engine.Engine, error) {
			return db{}, nil
		},
	}
}

// db is the null engine. It has no state: every read finds nothing.
type db struct{}

// Compile-time checks of the interfaces the engine implements.
var (
	_ kv.DB            = db{}
	_ engine.Discarder = db{}
)

// Family returns engine.FamilyKV.
func (db) Family() engine.Family { return engine.FamilyKV }

// Version returns "1", the version of the null engine.
func (db) Version() string { return "1" }

// Settings returns an empty map: the engine has no settings.
func (db) Settings() map[string]string { return map[string]string{} }

// Close does nothing.
func (db) Close() error { return nil }

// Discards returns true: the engine stores nothing.
func (db) Discards() bool { return true }

// Get finds nothing: it returns dst unchanged and ok false.
func (db) Get(_, dst []byte) ([]byte, bool, error) { return dst, false, nil }

// NewBatch returns a batch that counts its writes and drops them on Commit. Workloads keep one
// batch per client and reuse it, so this is the only allocation.
func (db) NewBatch() kv.Batch { return &batch{} }

// NewIter returns an empty iterator (it allocates nothing).
func (db) NewIter(_, _ []byte) (kv.Iter, error) { return iter{}, nil }

// batch counts its writes so that Len behaves; Commit drops them.
type batch struct{ n int }

// Set counts one write.
func (b *batch) Set(_, _ []byte) { b.n++ }

// Delete counts one write.
func (b *batch) Delete(_ []byte) { b.n++ }

// Len returns the number of writes since the last Commit or Reset.
func (b *batch) Len() int { return b.n }

// Commit drops the writes.
func (b *batch) Commit() error { b.n = 0; return nil }

// Reset drops the writes.
func (b *batch) Reset() { b.n = 0 }

// Close does nothing.
func (b *batch) Close() error { return nil }

// iter is always empty and never valid.
type iter struct{}

// First returns false.
func (iter) First() bool { return false }

// Last returns false.
func (iter) Last() bool { return false }

// SeekGE returns false.
func (iter) SeekGE([]byte) bool { return false }

// Next returns false.
func (iter) Next() bool { return false }

// Prev returns false.
func (iter) Prev() bool { return false }

// Valid returns false.
func (iter) Valid() bool { return false }

// Key returns nil.
func (iter) Key() []byte { return nil }

// Value returns nil.
func (iter) Value() []byte { return nil }

// Err returns nil.
func (iter) Err() error { return nil }

// Close does nothing.
func (iter) Close() error { return nil }
