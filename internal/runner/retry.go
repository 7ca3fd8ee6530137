package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff is a policy for retrying an operation that failed with a transient error (a
// deadlock, a lock wait timeout, a serialization failure, a busy engine). The wait before
// retry n (0 for the first) is First doubled n times, at most Cap, drawn uniformly within
// Jitter (a fraction, 0 to 1) of that. The operation gives up once it has been retried
// MaxRetries times or has been failing for Window; 0 sets no such limit. Its context bounds
// it too (see Retrier.Wait).
type Backoff struct {
	First, Cap time.Duration
	Jitter     float64
	Window     time.Duration
	MaxRetries int
}

// DefaultBackoff is the policy of a workload whose reference does not retry (the Insert
// Benchmark's, iiBench's): 1 ms doubling to 1 s, within 25%, for at most 2 minutes of one
// operation, which is less than the stall watchdog's default, so that a conflict that lasts
// fails its step with its own error.
func DefaultBackoff() Backoff {
	return Backoff{First: time.Millisecond, Cap: time.Second, Jitter: 0.25, Window: 2 * time.Minute}
}

// Pause returns the wait before retry n (0 for the first) for u, a number in [0, 1): u = 0.5
// gives the wait without jitter.
func (b Backoff) Pause(n int, u float64) time.Duration {
	d := b.First
	for i := 0; i < n && d < b.Cap; i++ {
		d *= 2
	}
	d = min(d, b.Cap)
	return time.Duration(float64(d) * (1 - b.Jitter + 2*b.Jitter*u))
}

// ErrRetriesExhausted is what errors.Is finds in the error of an operation whose transient
// errors outlasted its retries (Backoff.MaxRetries or Backoff.Window).
var ErrRetriesExhausted = errors.New("retries exhausted")

// gaveUp is the error of an operation that stopped retrying: it unwraps to the operation's
// last error.
type gaveUp struct {
	retries int
	lasted  time.Duration
	cause   error // why the context ended; nil when the retries ran out
	last    error
}

func (e *gaveUp) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("gave up after %d retries at the step's end (%v): %v", e.retries, e.cause, e.last)
	}
	return fmt.Sprintf("gave up after %d retries in %v of transient conflicts: %v", e.retries, e.lasted.Round(time.Millisecond), e.last)
}

func (e *gaveUp) Unwrap() error { return e.last }

func (e *gaveUp) Is(target error) bool { return target == ErrRetriesExhausted && e.cause == nil }

// Retrier retries operations under a Backoff, waiting on a Clock. A Retrier with a Rand
// belongs to one goroutine.
type Retrier struct {
	Backoff Backoff
	// Clock is the clock the waits are on; nil: the system clock.
	Clock Clock
	// Rand draws the jitter; nil: math/rand/v2's generator.
	Rand *rand.Rand
}

// Retry is the state of one operation's retries; its zero value starts one.
type Retry struct {
	n     int
	first time.Time
}

// Retries returns how many times the operation has been retried.
func (r *Retry) Retries() int { return r.n }

// Wait is called each time the operation r fails with the transient error last. It waits
// the backoff, then returns nil, r counting one more retry, for the operation to be tried
// again. Else it returns the error that ends the operation:
//   - ctx's error alone when ctx is cancelled without a cause of its own (the step's normal
//     end, an interrupt): the worker then ends as the step does;
//   - last, with the retry count and ctx's cause, when ctx ends otherwise (the step failed
//     or stalled, a deadline);
//   - last, with the retry count, wrapping ErrRetriesExhausted, once the operation has been
//     retried MaxRetries times or has been failing for Window.
func (rt *Retrier) Wait(ctx context.Context, r *Retry, last error) error {
	b := &rt.Backoff
	clock := rt.Clock
	if clock == nil {
		clock = SystemClock()
	}
	now := clock.Now()
	if r.n == 0 {
		r.first = now
	}
	lasted := now.Sub(r.first)
	if (b.MaxRetries > 0 && r.n >= b.MaxRetries) || (b.Window > 0 && lasted >= b.Window) {
		return &gaveUp{retries: r.n, lasted: lasted, last: last}
	}
	if err := clock.SleepUntil(ctx, now.Add(b.Pause(r.n, rt.uniform()))); err != nil {
		return ended(ctx, r.n, last)
	}
	r.n++
	return nil
}

// uniform draws a number in [0, 1) for the jitter.
func (rt *Retrier) uniform() float64 {
	if rt.Rand != nil {
		return rt.Rand.Float64()
	}
	return rand.Float64()
}

// ended is Wait's error when ctx ended after retries retries of the operation that failed
// with last.
func ended(ctx context.Context, retries int, last error) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return ctx.Err()
	}
	return &gaveUp{retries: retries, cause: cause, last: last}
}

// Do runs fn until it succeeds, fails with an error that retryable rejects (returned as it
// is), or Wait ends its retries (Wait's error); onRetry, when not nil, is called before each
// retry. It returns fn's last result with the error.
func (rt *Retrier) Do(ctx context.Context, retryable func(error) bool, onRetry func(), fn func() (int64, error)) (int64, error) {
	var r Retry
	for {
		n, err := fn()
		if err == nil || !retryable(err) {
			return n, err
		}
		if err := rt.Wait(ctx, &r, err); err != nil {
			return n, err
		}
		if onRetry != nil {
			onRetry()
		}
	}
}
