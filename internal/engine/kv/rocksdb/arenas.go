//go:build rocksdb && cgo && linux

package rocksdb

// #include <malloc.h>
import "C"

import "fmt"

// cappedArenas is how many malloc arenas glibc may keep once RocksDB runs under a memory cap.
const cappedArenas = 2

// limitArenas caps glibc malloc's arenas for the whole process, as RocksDB's own advice for
// glibc asks: by default each thread that allocates may get its own arena (up to 8 per CPU),
// and the blocks RocksDB frees (block cache evictions, direct-IO read buffers) stay resident in
// them. Under the iobound preset's 512 MiB cap that memory OOM-killed the capped process at the
// start of l.i1; with two arenas the run got through l.i1, but still not to its end
// (docs/performance.md).
func limitArenas() error {
	if C.mallopt(C.M_ARENA_MAX, cappedArenas) != 1 {
		return fmt.Errorf("rocksdb: mallopt(M_ARENA_MAX, %d) failed", cappedArenas)
	}
	return nil
}
