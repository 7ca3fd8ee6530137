//go:build wiredtiger && cgo

package wiredtiger

import (
	"context"
	"testing"
)

// TestSnapshot: while a snapshot is held, the range of transaction IDs it pins grows with
// every commit (WiredTiger keeps their updates for it), and falls back once it is released;
// the engine does not close under a held snapshot, which closes once.
func TestSnapshot(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	commit := func(n int) float64 {
		for i := 0; i < n; i++ {
			b := d.NewBatch()
			b.Set([]byte("k"), []byte{byte(i)})
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		m, err := d.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return m["txn_pinned_range"]
	}
	commit(1)
	s, err := d.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if held := commit(100); held < 100 {
		t.Errorf("with a snapshot held behind 100 commits txn_pinned_range is %v, want at least 100", held)
	}
	if err := d.Close(); err == nil {
		t.Fatal("Close with a snapshot held = nil error")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if free := commit(1); free >= 100 {
		t.Errorf("once the snapshot is released txn_pinned_range is %v, want below 100", free)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close after the snapshot: %v", err)
	}
}
