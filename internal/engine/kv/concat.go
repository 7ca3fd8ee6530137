package kv

import (
	"bytes"
	"errors"
)

// NewConcatIter returns an Iter over parts: iterators over disjoint key ranges in key order,
// part i's keys below uppers[i] (nil: unbounded, the last part only), as Layout.Split gives
// them. An engine that keeps ranges apart iterates over several of them with it. Parts may share
// an underlying cursor: the iterator positions a part (First, Last or SeekGE) before it moves it.
// Close closes every part, then calls release (when not nil).
func NewConcatIter(parts []Iter, uppers [][]byte, release func() error) Iter {
	return &concatIter{parts: parts, uppers: uppers, release: release, cur: -1}
}

type concatIter struct {
	parts   []Iter
	uppers  [][]byte
	release func() error
	cur     int // the part the iterator is on; -1 when not valid
	err     error
	closed  bool
}

// settle makes part i current when ok; otherwise it keeps the part's error, if any.
func (it *concatIter) settle(i int, ok bool) bool {
	if ok {
		it.cur = i
		return true
	}
	it.cur = -1
	if err := it.parts[i].Err(); err != nil {
		it.err = err
	}
	return false
}

// usable reports whether the iterator may move.
func (it *concatIter) usable() bool {
	if it.closed && it.err == nil {
		it.err = errIterClosed
	}
	it.cur = -1
	return it.err == nil
}

// firstFrom moves to the first key of parts i, i+1, ...
func (it *concatIter) firstFrom(i int) bool {
	for ; i < len(it.parts); i++ {
		if it.settle(i, it.parts[i].First()) || it.err != nil {
			return it.cur >= 0
		}
	}
	return false
}

// lastFrom moves to the last key of parts i, i-1, ...
func (it *concatIter) lastFrom(i int) bool {
	for ; i >= 0; i-- {
		if it.settle(i, it.parts[i].Last()) || it.err != nil {
			return it.cur >= 0
		}
	}
	return false
}

func (it *concatIter) First() bool { return it.usable() && it.firstFrom(0) }
func (it *concatIter) Last() bool  { return it.usable() && it.lastFrom(len(it.parts)-1) }

func (it *concatIter) SeekGE(key []byte) bool {
	if !it.usable() || len(it.parts) == 0 {
		return false
	}
	// The part whose bounds hold key: the first whose upper bound is above it (the last part's
	// bound is the iterator's own).
	i := 0
	for i < len(it.parts)-1 && it.uppers[i] != nil && bytes.Compare(key, it.uppers[i]) >= 0 {
		i++
	}
	if it.settle(i, it.parts[i].SeekGE(key)) || it.err != nil {
		return it.cur >= 0
	}
	return it.firstFrom(i + 1)
}

func (it *concatIter) Next() bool {
	if !it.Valid() {
		return false
	}
	i := it.cur
	if it.settle(i, it.parts[i].Next()) || it.err != nil {
		return it.cur >= 0
	}
	return it.firstFrom(i + 1)
}

func (it *concatIter) Prev() bool {
	if !it.Valid() {
		return false
	}
	i := it.cur
	if it.settle(i, it.parts[i].Prev()) || it.err != nil {
		return it.cur >= 0
	}
	return it.lastFrom(i - 1)
}

func (it *concatIter) Valid() bool { return it.err == nil && it.cur >= 0 }

func (it *concatIter) Key() []byte {
	if !it.Valid() {
		return nil
	}
	return it.parts[it.cur].Key()
}

func (it *concatIter) Value() []byte {
	if !it.Valid() {
		return nil
	}
	return it.parts[it.cur].Value()
}

func (it *concatIter) Err() error { return it.err }

// Close closes every part and releases what they share, once.
func (it *concatIter) Close() error {
	if it.closed {
		return nil
	}
	it.closed, it.cur = true, -1
	var errs []error
	for _, p := range it.parts {
		errs = append(errs, p.Close())
	}
	if it.release != nil {
		errs = append(errs, it.release())
	}
	return errors.Join(errs...)
}
