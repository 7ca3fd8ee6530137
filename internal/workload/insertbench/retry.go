package insertbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// The retries of an operation that fails with a transient conflict (a deadlock, a lock wait
// timeout, a serialization failure, SQLite's busy): the first backoff, its cap, and how long
// the conflict may last before the step fails with its last error.
const (
	retryFirst  = time.Millisecond
	retryCap    = 200 * time.Millisecond
	retryWindow = 2 * time.Minute
)

// retrier retries one worker's operations. Its jitter comes from a generator of its own,
// seeded by the run's seed and the worker.
type retrier struct {
	r   *run
	rng *rand.Rand
}

// retrier returns the retrier of a worker of client in step (role: which of its workers).
func (r *run) retrier(step string, client, role int) *retrier {
	return &retrier{r: r, rng: rand.New(rand.NewPCG(r.p.Seed, streamOf(step, client, 8+role)))}
}

// do runs fn as op through rec. While fn fails with a transient conflict, it waits a backoff
// (doubling from retryFirst up to retryCap, each wait drawn uniformly from its upper half) on
// the runner's clock and runs fn again, counting each retry as a retry of op. It gives up with
// the last error once the conflict has lasted retryWindow, or when ctx ends other than by the
// step's normal end or an interrupt (a deadline, a watchdog): the step then fails. When ctx is
// merely cancelled, it returns ctx's error, which ends the worker as the step ends.
func (rt *retrier) do(ctx context.Context, rec *runner.Recorder, op runner.Op, intended time.Time, fn func() (int64, error)) error {
	return rec.Do(op, intended, func() (int64, error) { return rt.retry(ctx, rec, op, fn) })
}

// retry is do's loop, without recording the operation: its retries count as op's.
func (rt *retrier) retry(ctx context.Context, rec *runner.Recorder, op runner.Op, fn func() (int64, error)) (int64, error) {
	var first time.Time
	backoff := retryFirst
	for retries := 0; ; retries++ {
		n, err := fn()
		if err == nil || !rt.r.be.retryable(err) {
			return n, err
		}
		clock := rt.r.clock()
		now := clock.Now()
		if retries == 0 {
			first = now
		}
		if lasted := now.Sub(first); lasted >= retryWindow {
			return n, fmt.Errorf("gave up after %d retries in %.0f s of transient conflicts: %w", retries, lasted.Seconds(), err)
		}
		rec.Retried(op)
		wait := backoff/2 + time.Duration(rt.rng.Int64N(int64(backoff/2)+1))
		if serr := clock.SleepUntil(ctx, now.Add(wait)); serr != nil {
			return n, retryEnded(ctx, retries+1, err)
		}
		backoff = min(2*backoff, retryCap)
	}
}

// retryEnded is the error of a retry loop whose context ended after retries retries of the
// error last: the context's own error when it was cancelled (the step's end or an interrupt),
// else last, with the cause.
func retryEnded(ctx context.Context, retries int, last error) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return ctx.Err()
	}
	return fmt.Errorf("gave up after %d retries at the step's end (%v): %w", retries, cause, last)
}
