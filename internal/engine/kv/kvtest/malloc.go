package kvtest

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// CheckMallocUnderCap checks an engine in C or C++ that allocates through glibc in the
// enginebench process: opened under a memory cap (open(capBytes) returns the engine and its
// malloc trimmer), it fixes glibc's mmap threshold (a freed large block no longer raises it,
// so the next one is mapped again and unmapped when freed), runs the trimmer while open and
// stops it at Close, and reports malloc's figures in its stats; opened without a cap it runs
// no trimmer.
func CheckMallocUnderCap(t *testing.T, open func(capBytes int64) (engine.Engine, *malloc.Trimmer)) {
	t.Helper()
	const block = 4 << 20 // a memtable arena block's size under the iobound cap (2 MiB) and more
	for _, capBytes := range []int64{0, 256 << 20} {
		e, trim := open(capBytes)
		if (trim != nil) != (capBytes > 0) {
			t.Errorf("cap %d: trimmer running %v", capBytes, trim != nil)
		}
		if capBytes > 0 && !malloc.MmapServed(block) {
			t.Errorf("cap %d: a %d-byte block after one freed comes from the heap: the mmap threshold is not fixed", capBytes, block)
		}
		if s, ok := e.(engine.Statser); ok {
			st, err := s.Stats(context.Background())
			if err != nil || st["malloc_in_use_bytes"] <= 0 {
				t.Errorf("cap %d: stats %v, malloc in use %v", capBytes, err, st["malloc_in_use_bytes"])
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if !trim.Stopped() {
			t.Errorf("cap %d: the trimmer still runs after Close", capBytes)
		}
	}
}
