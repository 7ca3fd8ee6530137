//go:build !cgo || !linux

package malloc

// Tune does nothing where glibc's malloc does not apply.
func Tune() error { return nil }

// StartTrimmer returns a Trimmer that does nothing where glibc's malloc does not apply.
func StartTrimmer() *Trimmer {
	d := make(chan struct{})
	close(d)
	return &Trimmer{stop: make(chan struct{}), done: d}
}

// Stats is not measured where glibc's malloc does not apply.
func Stats() (inUse, free float64, ok bool) { return 0, 0, false }

// MmapServed is false where glibc's malloc does not apply.
func MmapServed(int) bool { return false }
