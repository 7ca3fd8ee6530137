// Package lmdb is the "lmdb" engine: LMDB, the memory-mapped copy-on-write B+tree of OpenLDAP,
// through a small cgo binding to Debian's liblmdb (build tag lmdb), as an ordered key-value
// engine (kv.DB).
//
// Every key is in the environment's main database. A batch commits in one write transaction,
// applied by one cgo call (LMDB's writer lock belongs to the thread that took it). Reads run in
// read transactions without thread-local storage (MDB_NOTLS), so a goroutine may move between
// threads. An iterator is a cursor in its own read transaction until Close, a snapshot; writers
// never wait for readers. Without the build tag the engine is listed as not built, with the
// command that builds it.
package lmdb

import (
	"context"

	"github.com/enginebench/enginebench/internal/engine"
)

// Driver returns the driver of the "lmdb" engine.
func Driver() engine.Driver {
	return engine.Driver{
		Name:        "lmdb",
		Family:      engine.FamilyKV,
		Description: "LMDB (copy-on-write B+tree in one memory-mapped file), OpenLDAP's embedded store, through a cgo binding to liblmdb",
		Settings:    settings(),
		Available:   available,
		CheckSettings: func(overrides map[string]string) error {
			_, err := parseConfig(overrides)
			return err
		},
		Open: func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
			return open(ctx, cfg)
		},
	}
}
