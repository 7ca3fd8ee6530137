package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// DefaultMaxRetries is how many times an operation is retried after a transient conflict when
// Options.MaxRetries is 0.
const DefaultMaxRetries = 10

// Open returns the Store of eng: the SQL implementation for an sqldb.DB, the key-value one for
// a kv.DB. It creates nothing: Create does.
func Open(eng engine.Engine, opt Options) (Store, error) {
	if opt.MaxRetries < 0 {
		return nil, fmt.Errorf("linkbench store: MaxRetries %d is negative", opt.MaxRetries)
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = DefaultMaxRetries
	}
	switch db := eng.(type) {
	case sqldb.DB:
		return newSQLStore(db, opt), nil
	case kv.DB:
		return newKVStore(db, opt), nil
	case nil:
		return nil, errors.New("linkbench store: no engine")
	}
	return nil, fmt.Errorf("linkbench store: engine %T is neither an SQL engine (sqldb.DB) nor a key-value engine (kv.DB)", eng)
}

// retryState is what the retry loops of both families share: the hook and the limit.
type retryState struct {
	hook       func()
	maxRetries int
}

// SetRetryHook sets the function called once per retry.
func (r *retryState) SetRetryHook(f func()) { r.hook = f }

// again decides what follows the failed attempt number attempt (0 for the first) of op: nil
// when the operation is to be retried (the hook has been called), else the error to return.
// retryable says whether err is a transient conflict.
func (r *retryState) again(ctx context.Context, op string, attempt int, err error, retryable bool) error {
	if !retryable {
		return fmt.Errorf("%s: %w", op, err)
	}
	if attempt >= r.maxRetries {
		return fmt.Errorf("%s: %w after %d retries: %w", op, ErrConflict, attempt, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if r.hook != nil {
		r.hook()
	}
	return nil
}
