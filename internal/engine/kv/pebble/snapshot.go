package pebble

import (
	"fmt"
	"io"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

var _ kv.Snapshotter = (*db)(nil)

// Snapshot takes a pebble snapshot (kv.Snapshotter): until it is closed, compactions keep
// every version of a key that it sees.
func (d *db) Snapshot() (io.Closer, error) {
	if err := d.CheckOpen("snapshot"); err != nil {
		return nil, err
	}
	return &snapshot{s: d.pdb.NewSnapshot()}, nil
}

// snapshot is a pebble snapshot that closes once.
type snapshot struct {
	s interface{ Close() error }
}

// Close releases the snapshot; a second Close does nothing.
func (s *snapshot) Close() error {
	if s.s == nil {
		return nil
	}
	err := s.s.Close()
	s.s = nil
	if err != nil {
		return fmt.Errorf("pebble: release the snapshot: %w", err)
	}
	return nil
}
