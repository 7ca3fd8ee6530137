//go:build wiredtiger && cgo

package wiredtiger

import (
	"io"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

var _ kv.Snapshotter = (*db)(nil)

// Snapshot holds a snapshot transaction on a session of its own (kv.Snapshotter), taken by a
// first read: until it is closed, WiredTiger keeps in its cache every update newer than it
// (held long enough, the cache fills and the writers stall).
func (d *db) Snapshot() (io.Closer, error) {
	it, err := d.NewIter(nil, nil)
	if err != nil {
		return nil, err
	}
	return kv.IterSnapshot(it)
}
