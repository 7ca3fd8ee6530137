//go:build rocksdb && cgo && !linux

package rocksdb

// tuneMalloc does nothing where glibc's malloc does not apply.
func tuneMalloc() error { return nil }

// startTrimmer does nothing where glibc's malloc does not apply.
func startTrimmer(<-chan struct{}) <-chan struct{} {
	d := make(chan struct{})
	close(d)
	return d
}

// mallocStats is not measured where glibc's malloc does not apply.
func mallocStats() (inUse, free float64, ok bool) { return 0, 0, false }
