package kvtest

import (
	"sync"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// RangeChecked wraps a kv.DB and records the ranges declared to it and every key written outside
// them, so that a workload's test can check that the workload declares the range of every key
// it writes: an engine that keeps ranges apart (kv.Ranger) routes keys by them.
type RangeChecked struct {
	kv.DB
	mu      sync.Mutex
	layout  *kv.Layout
	outside []string // the first keys written outside every range
	writes  int
}

// DeclareRanges records ranges and passes them on.
func (r *RangeChecked) DeclareRanges(ranges []kv.Range) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.layout == nil {
		r.layout, _ = kv.NewLayout(nil)
	}
	next, _, err := r.layout.With(ranges)
	if err != nil {
		return err
	}
	r.layout = next
	return kv.DeclareRanges(r.DB, ranges)
}

// NewBatch returns a batch that checks each key it is given.
func (r *RangeChecked) NewBatch() kv.Batch { return &checkedBatch{Batch: r.DB.NewBatch(), r: r} }

func (r *RangeChecked) check(key []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	if (r.layout == nil || r.layout.Find(key) == 0) && len(r.outside) < 5 {
		r.outside = append(r.outside, string(key))
	}
}

// Check fails t when nothing was written, or a key was written outside the declared ranges.
// It returns the declared ranges.
func (r *RangeChecked) Check(t testing.TB) []kv.Range {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writes == 0 {
		t.Error("nothing was written")
	}
	if len(r.outside) > 0 {
		t.Errorf("keys written outside every declared range (%d writes), the first: %q", r.writes, r.outside)
	}
	if r.layout == nil {
		return nil
	}
	return r.layout.Ranges()
}

type checkedBatch struct {
	kv.Batch
	r *RangeChecked
}

func (b *checkedBatch) Set(key, value []byte) { b.r.check(key); b.Batch.Set(key, value) }
func (b *checkedBatch) Delete(key []byte)     { b.r.check(key); b.Batch.Delete(key) }
