//go:build rocksdb && cgo

package rocksdb

import (
	"io"

	"github.com/linxGnu/grocksdb"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

var _ kv.Snapshotter = (*db)(nil)

// Snapshot takes a RocksDB snapshot (kv.Snapshotter): until it is closed, compactions keep
// every version of a key that it sees. The guard counts it as an open iterator, so that the
// engine does not close under it.
func (d *db) Snapshot() (io.Closer, error) {
	if err := d.guard.Enter("snapshot"); err != nil {
		return nil, err
	}
	defer d.guard.Leave()
	d.guard.IterOpened()
	return &snapshot{d: d, s: d.rdb.NewSnapshot()}, nil
}

// snapshot is a RocksDB snapshot that is released once.
type snapshot struct {
	d *db
	s *grocksdb.Snapshot
}

// Close releases the snapshot; a second Close does nothing.
func (s *snapshot) Close() error {
	if s.s != nil {
		s.d.rdb.ReleaseSnapshot(s.s)
		s.s = nil
		s.d.guard.IterClosed()
	}
	return nil
}
