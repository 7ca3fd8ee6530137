package lmdb

import "testing"

// TestNoCapDefaults: LMDB has no cache to size under a memory cap (its file is memory-mapped:
// the page cache, which the cap charges, is its cache).
func TestNoCapDefaults(t *testing.T) {
	if Driver().CapDefaults != nil {
		t.Errorf("lmdb has CapDefaults")
	}
}
