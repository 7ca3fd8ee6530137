//go:build rocksdb && cgo && !(linux && amd64)

package rocksdb

// available reports the engine available: outside x86-64 Linux the binary links librocksdb
// (there are no trampolines, see package dynlib), so it does not start without it.
func available() error { return nil }
