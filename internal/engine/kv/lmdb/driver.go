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
// With the tag, the binary links liblmdb through cgo (pkg-config): shared with make, static in
// make release (docs/engines.md). Opening the engine, and enginebench engines, check that the
// linked liblmdb has the major and minor version of the lmdb.h it was compiled against.
package lmdb

import (
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Driver returns the driver of the "lmdb" engine.
func Driver() engine.Driver {
	d := kv.NewDriver("lmdb",
		"LMDB (copy-on-write B+tree in one memory-mapped file), OpenLDAP's embedded store, through a cgo binding to liblmdb",
		settings(), available, parseConfig, open)
	d.Snapshots = true // db.Snapshot: a read transaction (kv.Snapshotter)
	return d
}
