//go:build rocksdb && cgo && !linux

package rocksdb

// limitArenas does nothing where glibc's malloc arenas do not apply.
func limitArenas() error { return nil }
