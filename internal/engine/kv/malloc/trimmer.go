package malloc

// Trimmer is a running malloc trimmer (StartTrimmer). A nil *Trimmer is none: its methods do
// nothing, so that an engine without a memory cap keeps a nil one.
type Trimmer struct {
	stop chan struct{}
	done <-chan struct{}
}

// Stop stops the trimmer and waits until its goroutine has ended. Call it once.
func (t *Trimmer) Stop() {
	if t != nil {
		close(t.stop)
		<-t.done
	}
}

// Stopped reports whether the trimmer's goroutine has ended (true for none).
func (t *Trimmer) Stopped() bool {
	if t == nil {
		return true
	}
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}
