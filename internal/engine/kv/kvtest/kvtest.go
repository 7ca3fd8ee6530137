// Package kvtest is the conformance suite of the ordered key-value engines: every engine's tests
// call Run with a function that opens the engine, and so check the behaviour that the kv.DB,
// kv.Batch and kv.Iter contracts promise and that the workloads rely on.
//
// kvtest.go holds the entry points and the helpers the suite shares; the suite's tests are by
// topic in db.go (Get, reopen, concurrent writers), batch.go, atomicity.go, iter.go (bounds,
// seeks, Count) and tuple.go (the key encoding's order). Beside the suite, an engine's tests
// call driver.go's checks (built in or not, Cleanup, Close, cap defaults), leak.go's (resident
// memory over reopens), malloc.go's (glibc under a cap) and ranges.go's RangeChecked.
package kvtest

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Opener opens an engine on dir. Run calls it once per subtest with a fresh directory, and again
// on the same directory after closing the engine to check that committed data survives a
// reopen. It fails t on error.
type Opener func(t *testing.T, dir string) kv.DB

// Run runs the conformance suite as parallel subtests of t. Each subtest opens its own engine in
// its own directory (t.TempDir()) and closes it before it returns.
func Run(t *testing.T, open func(t *testing.T, dir string) kv.DB) {
	run(t, open, atomicityBatches)
}

// atomicityBatches is how many batches BatchAtomicity commits under the readers.
const atomicityBatches = 2000

// RunDriver runs the conformance suite on the engine of d opened as the command opens it
// (enginetest.Open): with its default settings, and in parallel with them in each of configs (a
// name and the settings it overrides), each as a subtest. The other configurations check that their
// settings keep the contracts; they are not run under -short, and their BatchAtomicity commits
// a fifth of the batches (with fsync at every commit, the 2,000 of the default settings would
// take the better part of a minute).
func RunDriver(t *testing.T, d engine.Driver, configs map[string]map[string]string) {
	opener := func(settings map[string]string) Opener {
		return func(t *testing.T, dir string) kv.DB {
			return enginetest.Open(t, context.Background(), d, "", settings, dir).(kv.DB)
		}
	}
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		run(t, opener(nil), atomicityBatches)
	})
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("another configuration")
			}
			t.Parallel()
			run(t, opener(configs[name]), atomicityBatches/5)
		})
	}
}

// run runs the conformance suite, BatchAtomicity committing batches batches.
func run(t *testing.T, open Opener, batches int) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Get", testGet},
		{"BatchSetDeleteOverwrite", testBatchSetDeleteOverwrite},
		{"BatchCopiesArguments", testBatchCopiesArguments},
		{"BatchReuseAfterCommit", testBatchReuse},
		{"BatchReset", testBatchReset},
		{"BatchAtomicity", func(t *testing.T, open Opener) { testBatchAtomicity(t, open, batches) }},
		{"IterBounds", testIterBounds},
		{"Count", testCount},
		{"IterSeekGE", testIterSeekGE},
		{"IterDirectionChange", testIterDirectionChange},
		{"IterEmptyRange", testIterEmptyRange},
		{"IterSeesDeletesAndOverwrites", testIterDeletes},
		{"IterTupleOrder", testIterTupleOrder},
		{"Reopen", testReopen},
		{"ConcurrentWriters", testConcurrentWriters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open)
		})
	}
}

// openDB opens a fresh engine and closes it when the test ends.
func openDB(t *testing.T, open Opener) kv.DB {
	t.Helper()
	db := open(t, t.TempDir())
	if db == nil {
		t.Fatal("open returned a nil DB")
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// kvPair is one key and value, as strings for readable failures.
type kvPair struct{ k, v string }

// write commits pairs in one batch; a pair with v == "<del>" is a Delete.
func write(t *testing.T, db kv.DB, pairs ...kvPair) {
	t.Helper()
	b := db.NewBatch()
	defer closeBatch(t, b)
	for _, p := range pairs {
		if p.v == "<del>" {
			b.Delete([]byte(p.k))
		} else {
			b.Set([]byte(p.k), []byte(p.v))
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func closeBatch(t *testing.T, b kv.Batch) {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Errorf("batch close: %v", err)
	}
}

// get returns the value of key; ok is false when it does not exist.
func get(t *testing.T, db kv.DB, key string) (string, bool) {
	t.Helper()
	v, ok, err := db.Get([]byte(key), nil)
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	if !ok && len(v) != 0 {
		t.Fatalf("get %q: not found but returned %q", key, v)
	}
	return string(v), ok
}

// expectGet checks the value of key, or that it is missing when want is "<missing>".
func expectGet(t *testing.T, db kv.DB, key, want string) {
	t.Helper()
	v, ok := get(t, db, key)
	switch {
	case want == "<missing>" && ok:
		t.Errorf("get %q = %q, want missing", key, v)
	case want != "<missing>" && !ok:
		t.Errorf("get %q: missing, want %q", key, want)
	case want != "<missing>" && v != want:
		t.Errorf("get %q = %q, want %q", key, v, want)
	}
}

// newIter opens an iterator on [lower, upper); "" is a nil bound.
func newIter(t *testing.T, db kv.DB, lower, upper string) kv.Iter {
	t.Helper()
	it, err := db.NewIter(bound(lower), bound(upper))
	if err != nil {
		t.Fatalf("new iter [%q, %q): %v", lower, upper, err)
	}
	return it
}

func bound(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func closeIter(t *testing.T, it kv.Iter) {
	t.Helper()
	if err := it.Err(); err != nil {
		t.Errorf("iter error: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Errorf("iter close: %v", err)
	}
}

// scan returns the keys of [lower, upper) forwards (First, Next) and checks that the backward
// scan (Last, Prev) returns the same keys in reverse.
func scan(t *testing.T, db kv.DB, lower, upper string) []string {
	t.Helper()
	it := newIter(t, db, lower, upper)
	defer closeIter(t, it)
	var fwd []string
	for ok := it.First(); ok; ok = it.Next() {
		if !it.Valid() {
			t.Fatalf("[%q, %q): positioning returned true but Valid is false", lower, upper)
		}
		fwd = append(fwd, string(it.Key()))
	}
	if it.Valid() {
		t.Errorf("[%q, %q): Valid after the forward scan ended", lower, upper)
	}
	var bwd []string
	for ok := it.Last(); ok; ok = it.Prev() {
		bwd = append(bwd, string(it.Key()))
	}
	if len(bwd) != len(fwd) {
		t.Fatalf("[%q, %q): forward scan %q, backward scan %q", lower, upper, fwd, bwd)
	}
	for i := range bwd {
		if bwd[i] != fwd[len(fwd)-1-i] {
			t.Fatalf("[%q, %q): forward scan %q, backward scan %q", lower, upper, fwd, bwd)
		}
	}
	return fwd
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
