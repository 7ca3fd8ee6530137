package pebble

import (
	"testing"

	"github.com/cockroachdb/pebble"
)

// TestSnapshot: a snapshot reads a key as it was when taken, after the key was overwritten and
// the database flushed and compacted; it closes once; a closed engine takes none.
func TestSnapshot(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	set := func(v string) {
		b := d.NewBatch()
		b.Set([]byte("k"), []byte(v))
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	set("old")
	c, err := d.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	set("new")
	if err := d.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := d.pdb.Compact([]byte("a"), []byte("z"), true); err != nil {
		t.Fatal(err)
	}
	v, closer, err := c.(*snapshot).s.(*pebble.Snapshot).Get([]byte("k"))
	if err != nil || string(v) != "old" {
		t.Errorf("the snapshot reads %q, %v; want old", v, err)
	}
	if closer != nil {
		_ = closer.Close()
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Snapshot(); err == nil {
		t.Error("Snapshot of a closed engine = nil error")
	}
}
