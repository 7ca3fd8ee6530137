//go:build wiredtiger && cgo && !(linux && amd64)

package wiredtiger

// available reports the engine available: outside x86-64 Linux the binary links libwiredtiger
// (there are no trampolines, see package dynlib), so it does not start without it.
func available() error { return nil }
