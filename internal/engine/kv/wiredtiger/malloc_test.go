//go:build wiredtiger && cgo && linux

package wiredtiger

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// TestMallocUnderCap: an engine opened under a memory cap fixes glibc's mmap threshold (a
// freed large block no longer raises it), runs the malloc trimmer while open and stops it at
// Close, and reports malloc's figures; one opened without a cap runs no trimmer. WiredTiger
// allocates its pages through glibc, in the enginebench process, as RocksDB does.
func TestMallocUnderCap(t *testing.T) {
	const block = 4 << 20
	for _, capBytes := range []int64{0, 256 << 20} {
		e, err := open(context.Background(), engine.Config{Name: "wiredtiger", Engine: "wiredtiger", DataDir: t.TempDir(),
			MemoryLimit: capBytes, Settings: Driver().CapDefaults(256 << 20)})
		if err != nil {
			t.Fatal(err)
		}
		d := e.(*db)
		if (d.stopTrim != nil) != (capBytes > 0) {
			t.Errorf("cap %d: trimmer running %v", capBytes, d.stopTrim != nil)
		}
		if capBytes > 0 && !malloc.MmapServed(block) {
			t.Errorf("cap %d: a %d-byte block after one freed comes from the heap: the mmap threshold is not fixed", capBytes, block)
		}
		st, err := d.Stats(context.Background())
		if err != nil || st["malloc_in_use_bytes"] <= 0 {
			t.Errorf("cap %d: stats %v, malloc in use %v", capBytes, err, st["malloc_in_use_bytes"])
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if d.trimDone != nil {
			select {
			case <-d.trimDone:
			default:
				t.Errorf("cap %d: the trimmer still runs after Close", capBytes)
			}
		}
	}
}
