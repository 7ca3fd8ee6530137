// Package kv defines the ordered key-value engine family: point reads, atomic write batches and
// ordered iterators over key ranges, plus the order-preserving key encoding that workloads use
// to lay tables and indexes out as key ranges (see keys.go). One sub-package per engine.
package kv

import (
	"io"

	"github.com/enginebench/enginebench/internal/engine"
)

// DB is an open ordered key-value engine. It is safe for concurrent use by many goroutines;
// batches and iterators are used by one goroutine at a time.
type DB interface {
	engine.Engine
	// Get appends the value stored under key to dst and returns it; ok is false when the key
	// does not exist. The returned slice is owned by the caller.
	Get(key, dst []byte) (val []byte, ok bool, err error)
	// NewBatch returns an empty write batch.
	NewBatch() Batch
	// NewIter returns an iterator over keys in [lower, upper); a nil bound is unbounded.
	// The iterator is not positioned until a First, Last or SeekGE call.
	NewIter(lower, upper []byte) (Iter, error)
}

// Batch collects writes that Commit applies atomically: after a crash or a concurrent read,
// either all of them are visible or none. Set and Delete copy their arguments.
type Batch interface {
	Set(key, value []byte)
	Delete(key []byte)
	// Len is the number of writes in the batch.
	Len() int
	// Commit applies the batch with the engine's configured durability; the batch is then
	// empty and may be reused.
	Commit() error
	// Reset empties the batch without applying it.
	Reset()
	// Close releases the batch; it may not be used afterwards.
	Close() error
}

// Iter is an ordered iterator. Positioning methods return whether the iterator is valid
// (positioned on a key within its bounds). Key and Value are valid until the next call that
// moves or closes the iterator.
type Iter interface {
	First() bool
	Last() bool
	SeekGE(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	Key() []byte
	Value() []byte
	// Err returns the error, if any, that made the iterator invalid.
	Err() error
	Close() error
}

// Snapshotter is a DB that can hold a snapshot: a view of its keys as they are now, kept until
// Close however they change, so that the engine keeps what the view may read (an LSM's
// compactions keep the versions it sees). The Insert Benchmark's --htap-transaction-seconds
// holds one open at a time, as its reference holds a read transaction open on a SQL server.
// An engine that implements it sets engine.Driver.Snapshots.
type Snapshotter interface {
	// Snapshot takes a snapshot; closing it releases it (a second Close does nothing).
	Snapshot() (io.Closer, error)
}
