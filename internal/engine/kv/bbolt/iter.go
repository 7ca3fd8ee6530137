package bbolt

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// iter is a cursor in a read transaction that lasts until Close: the iterator sees one
// snapshot, as the kv contract asks.
//
// bbolt's writer remaps the file when it outgrows the map and waits for every open read
// transaction: a client that commits while it holds an iterator (index creation does) would
// wait for itself. The map is made large at open (initial_mmap_mb, 1 TiB of address space by
// default), so that no remap happens below that size.
type iter struct {
	tx           *bolt.Tx
	c            *bolt.Cursor
	lower, upper []byte // copies; nil is unbounded
	k, v         []byte // the current entry; k nil when not valid
	err          error
}

// NewIter returns an iterator over [lower, upper). It copies the bounds and begins a read
// transaction that Close ends.
func (d *db) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := d.checkOpen("new iterator"); err != nil {
		return nil, err
	}
	tx, err := d.bdb.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("bbolt: new iterator: %w", err)
	}
	it := &iter{tx: tx, c: tx.Bucket(bucketName).Cursor()}
	if lower != nil {
		it.lower = append([]byte{}, lower...)
	}
	if upper != nil {
		it.upper = append([]byte{}, upper...)
	}
	return it, nil
}

// set makes k, v the current entry when it lies within the bounds.
func (it *iter) set(k, v []byte) bool {
	if k == nil || (it.upper != nil && bytes.Compare(k, it.upper) >= 0) || (it.lower != nil && bytes.Compare(k, it.lower) < 0) {
		it.k, it.v = nil, nil
		return false
	}
	it.k, it.v = k, v
	return true
}

// usable reports whether the iterator may move: it is not closed and has no error.
func (it *iter) usable() bool {
	if it.tx == nil && it.err == nil {
		it.err = fmt.Errorf("bbolt: iterate: %w", errClosed)
	}
	return it.err == nil
}

// First positions the iterator on the range's first key.
func (it *iter) First() bool {
	if !it.usable() {
		return false
	}
	if it.lower == nil {
		return it.set(it.c.First())
	}
	return it.set(it.c.Seek(it.lower))
}

// Last positions the iterator on the range's last key.
func (it *iter) Last() bool {
	if !it.usable() {
		return false
	}
	if it.upper == nil {
		return it.set(it.c.Last())
	}
	if k, _ := it.c.Seek(it.upper); k == nil {
		return it.set(it.c.Last())
	}
	return it.set(it.c.Prev())
}

// SeekGE positions the iterator on the first key >= key (and >= lower).
func (it *iter) SeekGE(key []byte) bool {
	if !it.usable() {
		return false
	}
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	return it.set(it.c.Seek(key))
}

// Next moves to the next key.
func (it *iter) Next() bool {
	if !it.Valid() {
		return false
	}
	return it.set(it.c.Next())
}

// Prev moves to the previous key.
func (it *iter) Prev() bool {
	if !it.Valid() {
		return false
	}
	return it.set(it.c.Prev())
}

// Valid reports whether the iterator is on a key.
func (it *iter) Valid() bool { return it.err == nil && it.k != nil }

// Key returns the current key; it stays valid until the iterator moves or closes.
func (it *iter) Key() []byte { return it.k }

// Value returns the current value; it stays valid until the iterator moves or closes.
func (it *iter) Value() []byte { return it.v }

// Err returns the error that made the iterator invalid, if any.
func (it *iter) Err() error { return it.err }

// Close ends the iterator's read transaction.
func (it *iter) Close() error {
	if it.tx == nil {
		return nil
	}
	err := it.tx.Rollback()
	it.tx, it.c, it.k, it.v = nil, nil, nil, nil
	if err != nil {
		return fmt.Errorf("bbolt: close iterator: %w", err)
	}
	return nil
}
