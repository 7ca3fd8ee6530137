package testwait

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Until returns as soon as its condition holds, looking again until it does.
func TestUntilReturnsWhenTheConditionHolds(t *testing.T) {
	n := 0
	Until(t, "the third look", time.Hour, func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("looked %d times, want 3", n)
	}
}

// Until fails the test, naming what it waited for, when the condition never holds.
func TestUntilFailsAfterItsLimit(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Until(ft, "nothing", 0, func() bool { return false })
	}()
	<-done
	if ft.msg != "still waiting after 0s for nothing" {
		t.Errorf("failure %q", ft.msg)
	}
}

// fatalRecorder records Fatalf and ends its goroutine, as testing.T does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
