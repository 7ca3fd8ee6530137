package kv

import (
	"errors"
	"testing"
)

// countIter is an iterator that counts its moves and closes, failing First with err.
type countIter struct {
	Iter
	firsts, closes int
	err            error
}

func (c *countIter) First() bool  { c.firsts++; return c.err == nil }
func (c *countIter) Err() error   { return c.err }
func (c *countIter) Close() error { c.closes++; return nil }

// TestIterSnapshot: the iterator is positioned once, which takes the snapshot, and closed
// once however often the snapshot is; an iterator that fails is closed at once.
func TestIterSnapshot(t *testing.T) {
	it := &countIter{}
	s, err := IterSnapshot(it)
	if err != nil {
		t.Fatal(err)
	}
	if it.firsts != 1 || it.closes != 0 {
		t.Fatalf("after IterSnapshot: %d firsts, %d closes; want 1 and 0", it.firsts, it.closes)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if it.firsts != 1 || it.closes != 1 {
		t.Errorf("after two Closes: %d firsts, %d closes; want 1 and 1", it.firsts, it.closes)
	}
	bad := &countIter{err: errors.New("read failed")}
	if _, err := IterSnapshot(bad); err == nil || bad.closes != 1 {
		t.Errorf("a failing iterator: %v, %d closes; want its error and 1", err, bad.closes)
	}
}
