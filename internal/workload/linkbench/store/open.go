package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// DefaultMaxRetries is how many times an operation is retried after a transient conflict when
// Options.MaxRetries is 0: the reference's limit (GraphStore.java:65, 1000 attempts).
const DefaultMaxRetries = 999

// retryBackoff is the reference's pause before retry n: n times 20 ms (GraphStore.java:51).
const retryBackoff = 20 * time.Millisecond

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

// retryState is what the retry loops of both families share: the hook, the limit and the
// pause before a retry.
type retryState struct {
	hook       func()
	maxRetries int
	// sleep pauses for d or until ctx is done (sleepCtx; tests record the pauses instead).
	sleep func(ctx context.Context, d time.Duration) error
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

// again decides what follows the failed attempt number attempt (0 for the first) of op: nil
// when the operation is to be retried (after the pause; the hook has been called), else the
// error to return. retryable says whether err is a transient conflict.
func (r *retryState) again(ctx context.Context, op string, attempt int, err error, retryable bool) error {
	if !retryable {
		return fmt.Errorf("%s: %w", op, err)
	}
	return r.retry(ctx, op, attempt+1, err)
}

// retry is called before retry number n (1 for the second attempt) of op after the transient
// error last: it returns an error wrapping ErrConflict beyond the limit, else pauses n times
// retryBackoff, as the reference does, calls the hook and returns nil.
func (r *retryState) retry(ctx context.Context, op string, n int, last error) error {
	if n > r.maxRetries {
		return fmt.Errorf("%s: %w after %d retries: %w", op, ErrConflict, n-1, last)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, last)
	}
	sleep := r.sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	if err := sleep(ctx, time.Duration(n)*retryBackoff); err != nil {
		return fmt.Errorf("%s: %w", op, last)
	}
	if r.hook != nil {
		r.hook()
	}
	return nil
}
