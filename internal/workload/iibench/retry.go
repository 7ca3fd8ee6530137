package iibench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// Retries of a transient conflict (deadlock, lock wait timeout, serialization failure, busy):
// each waits a jittered, exponentially growing backoff, from retryFirst up to retryCap, and
// counts as a retry of its operation (result.Step.Retries). A retry loop ends with the
// operation's last error, which fails the step, when the step ends (its context) or when it has
// retried one operation for retryBudget; the run's interrupt ends it with no error of its own.
const (
	retryFirst  = time.Millisecond
	retryCap    = time.Second
	retryBudget = 5 * time.Minute
)

// clock is the runner's clock.
func (r *run) clock() runner.Clock {
	if c := r.env.Runner.Clock; c != nil {
		return c
	}
	return runner.SystemClock()
}

// do runs fn as op through rec, open loop from intended when it is not zero, retrying a
// transient conflict (see retry).
func (r *run) do(ctx context.Context, rec *runner.Recorder, op runner.Op, intended time.Time, fn func() (int64, error)) error {
	return rec.Do(op, intended, func() (int64, error) { return r.retry(ctx, rec, op, fn) })
}

// retry runs fn until it succeeds or fails with an error the engine does not call transient,
// within ctx (the step) and retryBudget; see the constants above.
func (r *run) retry(ctx context.Context, rec *runner.Recorder, op runner.Op, fn func() (int64, error)) (int64, error) {
	clock := r.clock()
	var first time.Time
	backoff := retryFirst
	for retries := 0; ; retries++ {
		n, err := fn()
		if err == nil || !r.be.retryable(err) || r.opCtx.Err() != nil {
			return n, err
		}
		now := clock.Now()
		if retries == 0 {
			first = now
		}
		if now.Sub(first) >= retryBudget {
			return 0, fmt.Errorf("%w (retried %d times for %s)", err, retries, retryBudget)
		}
		wait := backoff/2 + rand.N(backoff/2+1) // equal jitter
		if serr := clock.SleepUntil(ctx, now.Add(wait)); serr != nil {
			if r.opCtx.Err() != nil {
				return 0, serr
			}
			return 0, fmt.Errorf("%w (retried %d times; the step ended)", err, retries)
		}
		rec.Retried(op)
		backoff = min(2*backoff, retryCap)
	}
}
