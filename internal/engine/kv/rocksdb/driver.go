// Package rocksdb is the "rocksdb" engine: RocksDB, the LSM tree of Facebook, through
// github.com/linxGnu/grocksdb built against Debian's librocksdb-dev (build tag rocksdb), as an
// ordered key-value engine (kv.DB).
//
// The engine keeps its files in the configuration's data directory. Every commit writes the WAL;
// with sync=true it also waits for the WAL's fsync. It implements engine.Cleaner (flush the
// memtables and wait for compactions to settle) and engine.Statser (compaction debt, L0 files,
// stalls, bytes written by flush and compaction). Without the build tag the engine is listed as
// not built, with the command that builds it.
//
// With the tag, the binary links librocksdb through grocksdb's cgo flags: shared with make,
// static in make release (docs/engines.md).
package rocksdb

import (
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// Driver returns the driver of the "rocksdb" engine.
func Driver() engine.Driver {
	d := kv.NewDriver("rocksdb",
		"RocksDB (LSM), the storage engine of MyRocks, through github.com/linxGnu/grocksdb and librocksdb",
		settings(), available, parseConfig, open)
	d.CapDefaults = capDefaults
	d.Snapshots = true // db.Snapshot (kv.Snapshotter)
	return d
}
