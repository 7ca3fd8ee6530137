//go:build lmdb && cgo

package lmdb

import (
	"io"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

var _ kv.Snapshotter = (*db)(nil)

// Snapshot holds a read transaction (kv.Snapshotter): until it is closed, LMDB cannot reuse
// the pages of the version it reads, so the writers take new pages and the file grows.
func (d *db) Snapshot() (io.Closer, error) {
	it, err := d.NewIter(nil, nil)
	if err != nil {
		return nil, err
	}
	return kv.IterSnapshot(it)
}
