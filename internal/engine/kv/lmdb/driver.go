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
//
// On x86-64 Linux the binary does not link liblmdb: the binding calls it through trampolines
// (package dynlib) and loads liblmdb.so.0 with dlopen the first time the engine is checked or
// opened, checking its version against lmdb.h's. A binary with the engine thus starts where
// liblmdb is not installed; enginebench engines then lists the engine as "not available: built
// in, but its library is missing: liblmdb.so.0: cannot open shared object file: No such file
// or directory (install liblmdb0, or run make deps)", and opening it fails with that error.
// Building still needs liblmdb-dev. On other platforms the binary links liblmdb.
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
