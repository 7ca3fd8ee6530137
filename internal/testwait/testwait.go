// Package testwait waits in tests for a state that lives in another process: a server's locks
// or sessions, a child enginebench's run.json or output, processes under /proc. Such a state
// offers no event to wait on, so it is polled, with a bound that fails the test; a state of the
// test's own process is waited for with channels or the runner's manual clock instead.
package testwait

import (
	"testing"
	"time"
)

// interval is how often the state is looked at.
const interval = 20 * time.Millisecond

// Until returns once cond holds, or fails the test after limit, saying what it waited for.
// cond runs on the test's goroutine, so it may itself fail the test.
func Until(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	if cond() {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return
			}
		case <-deadline.C:
			t.Fatalf("still waiting after %v for %s", limit, what)
		}
	}
}
