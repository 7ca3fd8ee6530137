package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// DefaultMaxRetries is how many times an operation is retried after a transient conflict when
// Options.MaxRetries is 0: the reference's limit (GraphStore.java:65, 1000 attempts).
const DefaultMaxRetries = 999

// The pause before retry n: retryFirst (the reference's first pause, GraphStore.java:51)
// doubling with each retry up to retryCap, each drawn uniformly within retryJitter of it (the
// reference pauses 20 ms times n, without a cap or jitter).
const (
	retryFirst  = 20 * time.Millisecond
	retryCap    = time.Second
	retryJitter = 0.25
)

// Open returns the Store of eng: the SQL implementation for an sqldb.DB, the key-value one for
// a kv.DB. It creates nothing: Create does.
func Open(eng engine.Engine, opt Options) (Store, error) {
	if opt.MaxRetries < 0 {
		return nil, fmt.Errorf("linkbench store: MaxRetries %d is negative", opt.MaxRetries)
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = DefaultMaxRetries
	}
	if opt.Partitions < 0 || opt.Partitions > MaxPartitions {
		return nil, fmt.Errorf("linkbench store: %d partitions: must be 0 to %d", opt.Partitions, MaxPartitions)
	}
	switch db := eng.(type) {
	case sqldb.DB:
		if opt.Partitions > 0 && !partitionable(db.Dialect()) {
			return nil, fmt.Errorf("linkbench store: %s tables cannot be partitioned (MySQL and PostgreSQL only)", db.Dialect().Name())
		}
		return newSQLStore(db, opt), nil
	case kv.DB:
		if opt.Partitions > 0 {
			return nil, errors.New("linkbench store: a key-value engine's tables cannot be partitioned (MySQL and PostgreSQL only)")
		}
		return newKVStore(db, opt), nil
	case nil:
		return nil, errors.New("linkbench store: no engine")
	}
	return nil, fmt.Errorf("linkbench store: engine %T is neither an SQL engine (sqldb.DB) nor a key-value engine (kv.DB)", eng)
}

// retryState is what the retry loops of both families share: the hook, the limit, the
// context that stops retrying and the pause before a retry.
type retryState struct {
	hook       func()
	maxRetries int
	// stop ends retrying (the step's context); nil: the operation's.
	stop context.Context
	// sleep pauses for d or until ctx is done (sleepCtx; tests record the pauses instead).
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a number in [0, 1) (rand.Float64; tests fix it).
	jitter func() float64
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetRetryHook sets the function called once per retry.
func (r *retryState) SetRetryHook(f func()) { r.hook = f }

// SetRetryStop sets the context whose end stops retrying.
func (r *retryState) SetRetryStop(ctx context.Context) { r.stop = ctx }

// again decides what follows the failed attempt number attempt (0 for the first) of op: nil
// when the operation is to be retried (after the pause; the hook has been called), else the
// error to return. retryable says whether err is a transient conflict.
func (r *retryState) again(ctx context.Context, op string, attempt int, err error, retryable bool) error {
	if !retryable {
		return opErr(op, err)
	}
	return r.retry(ctx, op, attempt+1, err)
}

// retry is called before retry number n (1 for the second attempt) of op after the transient
// error last: it returns an error wrapping ErrConflict beyond the limit, or one wrapping the
// stopping context's error and last once the step's context (or ctx) is done, before or
// during the pause; else it pauses (backoff), calls the hook and returns nil.
func (r *retryState) retry(ctx context.Context, op string, n int, last error) error {
	if n > r.maxRetries {
		return opErr(op, fmt.Errorf("%w after %d retries: %w", ErrConflict, n-1, last))
	}
	stop := r.stop
	if stop == nil {
		stop = ctx
	}
	sleep := r.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	err := stop.Err()
	if err == nil {
		err = sleep(stop, r.backoff(n))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return opErr(op, fmt.Errorf("gave up after %d retries (%w): %w", n-1, err, last))
	}
	if r.hook != nil {
		r.hook()
	}
	return nil
}

// backoff is the pause before retry n (1 for the first): retryFirst doubled n-1 times, at
// most retryCap, times a uniform factor within retryJitter of 1.
func (r *retryState) backoff(n int) time.Duration {
	d := retryCap
	if n <= 10 && retryFirst<<(n-1) < retryCap {
		d = retryFirst << (n - 1)
	}
	jitter := r.jitter
	if jitter == nil {
		jitter = rand.Float64
	}
	return time.Duration(float64(d) * (1 - retryJitter + 2*retryJitter*jitter()))
}
