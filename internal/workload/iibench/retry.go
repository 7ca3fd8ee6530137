package iibench

import (
	"context"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// clock is the runner's clock.
func (r *run) clock() runner.Clock {
	if c := r.env.Runner.Clock; c != nil {
		return c
	}
	return runner.SystemClock()
}

// do runs fn as op through rec, open loop from intended when it is not zero. A transient
// conflict (deadlock, lock wait timeout, serialization failure, busy) is retried under
// runner.DefaultBackoff within ctx (the step's context), each retry counted as a retry of op
// (result.Step.Retries): the reference does not retry, so nothing of it sets the policy.
func (r *run) do(ctx context.Context, rec *runner.Recorder, op runner.Op, intended time.Time, fn func() (int64, error)) error {
	rt := runner.Retrier{Backoff: runner.DefaultBackoff(), Clock: r.clock()}
	return rec.Do(op, intended, func() (int64, error) {
		return rt.Do(ctx, r.be.retryable, func() { rec.Retried(op) }, fn)
	})
}
