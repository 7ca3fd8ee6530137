// Package wiredtiger is the "wiredtiger" engine: WiredTiger, MongoDB's storage engine, through a
// small cgo binding to Debian's libwiredtiger (build tag wiredtiger), as an ordered key-value
// engine (kv.DB). Each key range a workload declares (kv.Ranger: a table or an index) is a
// WiredTiger table of its own, a B-tree or an LSM tree (table_type for tables, index_type for
// secondary indexes); other keys are in one default table.
//
// WiredTiger sessions are single-threaded: the engine keeps a pool of sessions, each with a
// cursor on each table it has used, and a Get, a batch commit or an iterator takes one for its
// duration. A batch is one snapshot transaction applied by one cgo call, retried when WiredTiger
// rolls it back for a write conflict. An iterator is its session's cursors in one snapshot
// transaction, renewed every refreshMoves moves, until Close. Its cache must hold a step's working set
// (docs/engines.md). Without the build tag the engine is listed as not built, with the command
// that builds it.
//
// With the tag, the binary links libwiredtiger through cgo (pkg-config): shared with make,
// static in make release (docs/engines.md).
package wiredtiger

import (
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Driver returns the driver of the "wiredtiger" engine.
func Driver() engine.Driver {
	d := kv.NewDriver("wiredtiger",
		"WiredTiger (B-tree or LSM), MongoDB's storage engine, through a cgo binding to libwiredtiger (its cache must hold a step's working set: see docs/engines.md)",
		settings(), available, parseConfig, open)
	d.CapDefaults = capDefaults
	d.Snapshots = true // db.Snapshot: a snapshot transaction (kv.Snapshotter)
	return d
}
