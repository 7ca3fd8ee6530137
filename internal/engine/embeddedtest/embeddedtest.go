// Package embeddedtest names, once, the engines that run in a test's process (null aside), for
// the tests that run on each of them: the workloads' tests and the KV benchmarks. The engines
// behind a build tag (lmdb, rocksdb, wiredtiger) are stubs without it; kvtest.RequireBuilt skips
// them. It is a package of its own because the engines' own tests import enginetest and kvtest,
// which cannot import the engines back.
package embeddedtest

import (
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/bbolt"
	"github.com/enginebench/enginebench/internal/engine/kv/lmdb"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/kv/rocksdb"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// Drivers are the embedded engines: SQLite, then the key-value engines of KV.
func Drivers() []engine.Driver {
	return append([]engine.Driver{sqldb.SQLiteDriver()}, KV()...)
}

// KV are the embedded key-value engines.
func KV() []engine.Driver {
	return []engine.Driver{pebble.Driver(), bbolt.Driver(), lmdb.Driver(), rocksdb.Driver(), wiredtiger.Driver()}
}
