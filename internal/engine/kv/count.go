package kv

import (
	"context"
	"errors"
)

// countCheck is how many keys Count reads between looks at its context.
const countCheck = 65536

// Count returns the number of keys in [lower, upper) by iterating over them: how workloads
// verify that a table or index range holds what was written. It stops with ctx's error when
// ctx is done.
func Count(ctx context.Context, db DB, lower, upper []byte) (int64, error) {
	it, err := db.NewIter(lower, upper)
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%countCheck == 0 && ctx.Err() != nil {
			it.Close()
			return n, ctx.Err()
		}
	}
	return n, errors.Join(it.Err(), it.Close())
}
