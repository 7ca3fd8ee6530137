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
// On x86-64 Linux the binary does not link librocksdb: grocksdb's calls resolve to trampolines
// (package dynlib), and librocksdb.so.7.8 is loaded with dlopen the first time the engine is
// checked or opened. A binary with the engine thus starts where librocksdb is not installed;
// enginebench engines then lists the engine as "not available: built in, but its library is
// missing: librocksdb.so.7.8: cannot open shared object file: No such file or directory
// (install librocksdb7.8, or run make deps)", and opening it fails with that error. Building
// still needs librocksdb-dev. On other platforms the binary links librocksdb.
package rocksdb

import (
	"context"

	"github.com/enginebench/enginebench/internal/engine"
)

// Driver returns the driver of the "rocksdb" engine.
func Driver() engine.Driver {
	return engine.Driver{
		Name:        "rocksdb",
		Family:      engine.FamilyKV,
		Description: "RocksDB (LSM), the storage engine of MyRocks, through github.com/linxGnu/grocksdb and librocksdb",
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
