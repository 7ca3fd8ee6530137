package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// DefaultMaxRetries is how many times an operation is retried after a transient conflict when
// Options.MaxRetries is 0: the reference's limit (GraphStore.java:63, 1000 attempts).
const DefaultMaxRetries = 999

// retryFirst is the pause before the first retry: the reference's (GraphStore.java:51).
const retryFirst = 20 * time.Millisecond

// backoff is the retry policy of opt: the reference's first pause and limit, with
// runner.DefaultBackoff's doubling, cap and jitter (the reference pauses 20 ms times the
// retry's number, without a cap or jitter), and no window: the reference bounds its retries by
// their number alone, and ours end with the step as well (SetRetryStop).
func (opt *Options) backoff() runner.Backoff {
	b := runner.DefaultBackoff()
	b.First, b.MaxRetries, b.Window = retryFirst, opt.MaxRetries, 0
	return b
}

// Open returns the Store of eng: the SQL implementation for an sqldb.DB, the key-value one for
// a kv.DB, the document one for a doc.DB. It creates nothing: Create does.
func Open(eng engine.Engine, opt Options) (Store, error) {
	if opt.MaxRetries < 0 {
		return nil, fmt.Errorf("linkbench store: MaxRetries %d is negative", opt.MaxRetries)
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = DefaultMaxRetries
		if _, ok := eng.(doc.DB); ok && opt.Corrected {
			opt.MaxRetries = forkMaxRetries
		}
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
	case doc.DB:
		if opt.Partitions > 0 {
			return nil, errors.New("linkbench store: a document engine's collections cannot be partitioned (MySQL and PostgreSQL only)")
		}
		return newDocStore(db, opt), nil
	case nil:
		return nil, errors.New("linkbench store: no engine")
	}
	return nil, fmt.Errorf("linkbench store: engine %T is not an SQL (sqldb.DB), key-value (kv.DB) or document engine (doc.DB)", eng)
}

// retryState is what the retry loops of both families share: the policy on the store's
// clock, the hook and the context that stops retrying.
type retryState struct {
	rt   runner.Retrier
	hook func()
	// stop ends retrying (the step's context); nil: the operation's.
	stop context.Context
}

func newRetryState(opt *Options) retryState {
	return retryState{rt: runner.Retrier{Backoff: opt.backoff(), Clock: opt.Clock}}
}

// SetRetryHook sets the function called once per retry.
func (r *retryState) SetRetryHook(f func()) { r.hook = f }

// SetRetryStop sets the context whose end stops retrying.
func (r *retryState) SetRetryStop(ctx context.Context) { r.stop = ctx }

// again decides what follows a failed attempt of op, whose retries so far are tries: nil when
// the operation is to be retried (after the pause; the hook has been called), else the error
// to return. retryable says whether err is a transient conflict.
func (r *retryState) again(ctx context.Context, op string, tries *runner.Retry, err error, retryable bool) error {
	if !retryable {
		return runner.OpError(op, err)
	}
	return r.retry(ctx, op, tries, err)
}

// retry is called before op, whose retries so far are tries, is retried after the transient
// error last: it pauses and calls the hook, or returns runner.Retrier.Wait's error (which
// wraps runner.ErrRetriesExhausted beyond the limit) once the step's context (or ctx) ends or
// the retries run out.
func (r *retryState) retry(ctx context.Context, op string, tries *runner.Retry, last error) error {
	stop := r.stop
	if stop == nil {
		stop = ctx
	}
	err := r.rt.Wait(stop, tries, last)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return runner.OpError(op, err)
	}
	if r.hook != nil {
		r.hook()
	}
	return nil
}
