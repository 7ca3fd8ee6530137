//go:build rocksdb && cgo && linux

package rocksdb

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// TestMallocUnderCap: an engine opened under a memory cap fixes glibc's mmap threshold (a
// freed large block no longer raises it, so the next one is mapped again and unmapped when
// freed), runs the malloc trimmer while open and stops it at Close; one opened without a cap
// runs none.
func TestMallocUnderCap(t *testing.T) {
	const block = 4 << 20 // a memtable arena block's size under the iobound cap (2 MiB) and more
	for _, capBytes := range []int64{0, 256 << 20} {
		e, err := open(context.Background(), engine.Config{Name: "rocksdb", Engine: "rocksdb", DataDir: t.TempDir(),
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
