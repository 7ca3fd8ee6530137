package kv

import (
	"errors"
	"io"
)

// IterSnapshot returns a snapshot (Snapshotter) held by it, an iterator of an engine whose
// iterator reads one snapshot until it is closed (a read transaction: LMDB, WiredTiger). It
// positions it on the first key, which takes the snapshot where the transaction takes it at
// its first read (WiredTiger), and never moves it again (WiredTiger renews an iterator's
// snapshot only as it moves); closing the snapshot closes it, once.
func IterSnapshot(it Iter) (io.Closer, error) {
	it.First()
	if err := it.Err(); err != nil {
		return nil, errors.Join(err, it.Close())
	}
	return &iterSnapshot{it: it}, nil
}

// iterSnapshot is a snapshot held by an iterator.
type iterSnapshot struct{ it Iter }

// Close closes the iterator; a second Close does nothing.
func (s *iterSnapshot) Close() error {
	if s.it == nil {
		return nil
	}
	err := s.it.Close()
	s.it = nil
	return err
}
