//go:build lmdb && cgo && !(linux && amd64)

package lmdb

// available reports the engine available: outside x86-64 Linux the binary links liblmdb (there
// are no trampolines, see package dynlib), so it does not start without it.
func available() error { return nil }
