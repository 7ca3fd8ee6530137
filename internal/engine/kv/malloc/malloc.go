//go:build cgo && linux

// Package malloc tunes glibc's malloc for an embedded engine under a memory cap: the engines
// written in C and C++ (RocksDB, WiredTiger) allocate through it, in the enginebench process,
// and by default it keeps what they free resident, charged to the cap (docs/memory.md).
package malloc

// #include <malloc.h>
import "C"

import (
	"fmt"
	"time"
)

// The glibc malloc tuning of a process that runs an engine in C or C++ under a memory cap.
const (
	// cappedArenas is how many malloc arenas glibc may keep.
	cappedArenas = 2
	// cappedMmapThreshold is the size from which glibc serves an allocation with its own mmap,
	// unmapped when freed. Setting it also stops glibc raising it (up to 32 MiB) each time such
	// a block is freed.
	cappedMmapThreshold = 128 << 10
	// trimEvery is how often the trimmer hands the free pages of the heap back to the kernel.
	trimEvery = 2 * time.Second
)

// Tune sets glibc malloc's options for the whole process under a memory cap: two arenas,
// as RocksDB's own advice for glibc asks (by default each thread may get its own, up to 8 per
// CPU, and the blocks an engine frees stay resident in them), and a fixed mmap threshold, so that
// an engine's large blocks (RocksDB's (memtable arena blocks, direct-IO read and write buffers, index and
// filter blocks; WiredTiger's pages) are unmapped when freed instead of left in the heap. Neither is enough alone
// (docs/performance.md): the heap also holds the freed pages of the small blocks the block
// cache evicts, which only malloc_trim returns (StartTrimmer). It is process-wide, and idempotent.
func Tune() error {
	for _, o := range []struct {
		name       string
		param, val C.int
	}{
		{"M_ARENA_MAX", C.M_ARENA_MAX, cappedArenas},
		{"M_MMAP_THRESHOLD", C.M_MMAP_THRESHOLD, cappedMmapThreshold},
	} {
		if C.mallopt(o.param, o.val) != 1 {
			return fmt.Errorf("mallopt(%s, %d) failed", o.name, o.val)
		}
	}
	return nil
}

// trimMalloc hands the whole free pages of every malloc arena back to the kernel
// (malloc_trim(0)); it reports whether any were.
func trimMalloc() bool { return C.malloc_trim(0) == 1 }

// StartTrimmer starts a goroutine that calls trimMalloc every trimEvery until the Trimmer's
// Stop.
func StartTrimmer() *Trimmer {
	stop, d := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(d)
		t := time.NewTicker(trimEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				trimMalloc()
			}
		}
	}()
	return &Trimmer{stop: stop, done: d}
}

// Stats returns the bytes glibc malloc has handed out (heap and mmap blocks) and the free
// bytes it keeps in its heaps (mallinfo2), for the whole process; ok is true where measured.
func Stats() (inUse, free float64, ok bool) {
	mi := C.mallinfo2()
	return float64(mi.uordblks + mi.hblkhd), float64(mi.fordblks), true
}

// MmapServed reports whether glibc serves an allocation of size bytes from its own mapping,
// after one of that size was freed (which raises the threshold unless it was set). For tests of Tune.
func MmapServed(size int) bool {
	C.free(C.malloc(C.size_t(size)))
	before := C.mallinfo2().hblkhd
	p := C.malloc(C.size_t(size))
	defer C.free(p)
	return C.mallinfo2().hblkhd >= before+C.size_t(size)
}
