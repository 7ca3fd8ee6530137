package insertbench

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// retrier retries one worker's operations that fail with a transient conflict (a deadlock, a
// lock wait timeout, a serialization failure, SQLite's busy) under runner.DefaultBackoff: the
// reference does not retry, so nothing of it sets the policy. Its jitter comes from a
// generator of its own, seeded by the run's seed and the worker.
type retrier struct {
	r  *run
	rt runner.Retrier
}

// retrier returns the retrier of a worker of client in step (role: which of its workers).
func (r *run) retrier(step string, client, role int) *retrier {
	return &retrier{r: r, rt: runner.Retrier{Backoff: runner.DefaultBackoff(), Clock: r.clock(),
		Rand: rand.New(rand.NewPCG(r.p.Seed, streamOf(step, client, 8+role)))}}
}

// do runs fn as op through rec, retrying it (see retry).
func (rt *retrier) do(ctx context.Context, rec *runner.Recorder, op runner.Op, intended time.Time, fn func() (int64, error)) error {
	return rec.Do(op, intended, func() (int64, error) { return rt.retry(ctx, rec, op, fn) })
}

// retry runs fn, without recording it, until it succeeds or fails with an error that is not a
// transient conflict or runner.Retrier.Wait ends its retries within ctx (the step's context);
// each retry counts as a retry of op.
func (rt *retrier) retry(ctx context.Context, rec *runner.Recorder, op runner.Op, fn func() (int64, error)) (int64, error) {
	return rt.rt.Do(ctx, rt.r.be.retryable, func() { rec.Retried(op) }, fn)
}
