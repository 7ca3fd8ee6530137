//go:build rocksdb && cgo

package rocksdb

import (
	"testing"

	"github.com/linxGnu/grocksdb"
)

// TestSnapshot: a snapshot reads a key as it was when taken, after the key was overwritten and
// the database flushed and compacted; the engine does not close while it is held; it is
// released once; a closed engine takes none.
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
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	if err := d.rdb.Flush(fo); err != nil {
		t.Fatal(err)
	}
	d.rdb.CompactRange(grocksdb.Range{Start: []byte("a"), Limit: []byte("z")})
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetSnapshot(c.(*snapshot).s)
	v, err := d.rdb.Get(ro, []byte("k"))
	if err != nil || string(v.Data()) != "old" {
		t.Errorf("the snapshot reads %q, %v; want old", v.Data(), err)
	}
	v.Free()
	if err := d.Close(); err == nil {
		t.Fatal("Close with a snapshot held = nil error")
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
