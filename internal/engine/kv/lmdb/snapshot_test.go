//go:build lmdb && cgo

package lmdb

import (
	"context"
	"testing"
)

// TestSnapshot: while a snapshot is held, LMDB cannot reuse the pages its writers free, so
// rewriting a key a hundred times takes new pages (pages_in_use grows), which it does not
// without one; the engine does not close under a held snapshot, which closes once.
func TestSnapshot(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	rewrite := func() float64 {
		for i := 0; i < 100; i++ {
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
		return m["pages_in_use"]
	}
	base := rewrite()
	if again := rewrite(); again != base {
		t.Fatalf("without a snapshot pages_in_use went from %v to %v: the test's premise fails", base, again)
	}
	s, err := d.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if held := rewrite(); held < base+100 {
		t.Errorf("with a snapshot held pages_in_use went from %v to %v, want at least a page a commit", base, held)
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
	if err := d.Close(); err != nil {
		t.Fatalf("Close after the snapshot: %v", err)
	}
}
