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
// that builds it. With it, on x86-64 Linux, the library is loaded at run time (package dynlib),
// so that a binary starts without it and lists the engine as built in but missing its library.
package wiredtiger

import (
	"context"

	"github.com/enginebench/enginebench/internal/engine"
)

// Driver returns the driver of the "wiredtiger" engine.
func Driver() engine.Driver {
	return engine.Driver{
		Name:        "wiredtiger",
		Family:      engine.FamilyKV,
		Description: "WiredTiger (B-tree or LSM), MongoDB's storage engine, through a cgo binding to libwiredtiger (its cache must hold a step's working set: see docs/engines.md)",
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
