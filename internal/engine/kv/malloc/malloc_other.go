//go:build !cgo || !linux

package malloc

// Tune does nothing where glibc's malloc does not apply.
func Tune() error { return nil }

// StartTrimmer does nothing where glibc's malloc does not apply.
func StartTrimmer(<-chan struct{}) <-chan struct{} {
	d := make(chan struct{})
	close(d)
	return d
}

// Stats is not measured where glibc's malloc does not apply.
func Stats() (inUse, free float64, ok bool) { return 0, 0, false }

// MmapServed is false where glibc's malloc does not apply.
func MmapServed(int) bool { return false }
