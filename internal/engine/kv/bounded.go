package kv

import (
	"bytes"
	"errors"
)

// Cursor is the primitive under an engine's iterator: each move returns the entry it lands on,
// ok false when it runs off either end of the keyspace. The key and value stay valid until the
// next move or Close.
type Cursor interface {
	First() (key, value []byte, ok bool, err error)
	Last() (key, value []byte, ok bool, err error)
	// SeekGE moves to the first key >= key.
	SeekGE(key []byte) (k, v []byte, ok bool, err error)
	Next() (key, value []byte, ok bool, err error)
	Prev() (key, value []byte, ok bool, err error)
	Close() error
}

// errIterClosed is the error of a move on a closed iterator.
var errIterClosed = errors.New("iterator is closed")

// NewBoundedIter returns an Iter over [lower, upper) on c (a nil bound is unbounded): the bounds
// and the Iter contract are kept here, so that an engine writes only its cursor's moves. It copies
// the bounds.
func NewBoundedIter(c Cursor, lower, upper []byte) Iter {
	it := &boundedIter{c: c}
	// Both copies in one buffer, within the iterator when they fit: no allocation of their own.
	buf := append(it.inline[:0], lower...)
	buf = append(buf, upper...)
	if lower != nil {
		it.lower = buf[:len(lower):len(lower)]
	}
	if upper != nil {
		it.upper = buf[len(lower):len(buf):len(buf)]
	}
	return it
}

type boundedIter struct {
	c            Cursor
	lower, upper []byte
	inline       [32]byte // holds the bounds' copies when they fit
	k, v         []byte   // the current entry; k nil when not valid
	err          error
	closed       bool
}

// land makes the entry a move returned current when it lies within the bounds.
func (it *boundedIter) land(k, v []byte, ok bool, err error) bool {
	it.k, it.v = nil, nil
	switch {
	case err != nil:
		it.err = err
		return false
	case !ok || k == nil:
		return false
	case it.upper != nil && bytes.Compare(k, it.upper) >= 0, it.lower != nil && bytes.Compare(k, it.lower) < 0:
		return false
	}
	it.k, it.v = k, v
	return true
}

// usable reports whether the iterator may move.
func (it *boundedIter) usable() bool {
	if it.closed && it.err == nil {
		it.err = errIterClosed
	}
	return it.err == nil
}

func (it *boundedIter) First() bool {
	if !it.usable() {
		return false
	}
	if it.lower == nil {
		return it.land(it.c.First())
	}
	return it.land(it.c.SeekGE(it.lower))
}

// Last moves to the key before the first key >= upper, or to the last key when there is none.
func (it *boundedIter) Last() bool {
	if !it.usable() {
		return false
	}
	if it.upper == nil {
		return it.land(it.c.Last())
	}
	_, _, ok, err := it.c.SeekGE(it.upper)
	switch {
	case err != nil:
		return it.land(nil, nil, false, err)
	case !ok:
		return it.land(it.c.Last())
	}
	return it.land(it.c.Prev())
}

func (it *boundedIter) SeekGE(key []byte) bool {
	if !it.usable() {
		return false
	}
	if it.lower != nil && bytes.Compare(key, it.lower) < 0 {
		key = it.lower
	}
	return it.land(it.c.SeekGE(key))
}

func (it *boundedIter) Next() bool {
	if !it.Valid() {
		return false
	}
	return it.land(it.c.Next())
}

func (it *boundedIter) Prev() bool {
	if !it.Valid() {
		return false
	}
	return it.land(it.c.Prev())
}

func (it *boundedIter) Valid() bool   { return it.err == nil && it.k != nil }
func (it *boundedIter) Key() []byte   { return it.k }
func (it *boundedIter) Value() []byte { return it.v }
func (it *boundedIter) Err() error    { return it.err }

// Close closes the cursor once.
func (it *boundedIter) Close() error {
	if it.closed {
		return nil
	}
	it.closed, it.k, it.v = true, nil, nil
	return it.c.Close()
}
