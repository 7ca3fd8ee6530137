package kv

import (
	"bytes"
	"context"
	"errors"
)

// ScanChunks calls fn with every key and value in [lower, upper) in key order, chunk keys per
// iterator: after each chunk it closes the iterator, calls flush (when not nil) and goes on with
// a new iterator from the key after the last one. It returns how many keys fn saw, and stops at
// the first error of fn, flush, the engine or ctx. fn's key and value are valid only during the
// call. flush is not called after the last, short chunk: the caller ends the scan's writes.
//
// A scan that writes as it reads (index creation) uses it so that no snapshot outlives a chunk:
// a copy-on-write B-tree (bbolt, LMDB) cannot reuse a page that an open reader may still see, so
// one iterator held over a whole table while its own batches commit grows the file with every
// page those batches free (a 0.1 GB table grew its file to 10 GB). Each chunk is its own
// snapshot, so the scan sees the keys that exist as it reaches them.
func ScanChunks(ctx context.Context, db DB, lower, upper []byte, chunk int, fn func(key, value []byte) error, flush func() error) (int64, error) {
	if chunk < 1 {
		chunk = 1
	}
	var n int64
	from := bytes.Clone(lower) // nil stays nil: unbounded
	for {
		it, err := db.NewIter(from, upper)
		if err != nil {
			return n, err
		}
		seen := 0
		for ok := it.First(); ok; ok = it.Next() {
			if err := fn(it.Key(), it.Value()); err != nil {
				it.Close()
				return n, err
			}
			seen++
			n++
			if seen == chunk {
				// The next chunk starts right after this key: the key with a 0x00 appended.
				from = append(append(from[:0:0], it.Key()...), 0)
				break
			}
		}
		if err := errors.Join(it.Err(), it.Close()); err != nil {
			return n, err
		}
		if seen < chunk {
			return n, nil
		}
		if flush != nil {
			if err := flush(); err != nil {
				return n, err
			}
		}
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if upper != nil && bytes.Compare(from, upper) >= 0 {
			return n, nil
		}
	}
}
