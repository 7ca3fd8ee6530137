package registry

import (
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/kv/bbolt"
	"github.com/enginebench/enginebench/internal/engine/kv/lmdb"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/kv/rocksdb"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// Engines returns every engine built into this binary. An engine behind a build tag (lmdb,
// rocksdb, wiredtiger) is listed either way: built without its tag, its driver says it is not
// available.
func Engines() (*engine.Registry, error) {
	return engine.NewRegistry(sqldb.SQLiteDriver(), pebble.Driver(), bbolt.Driver(), lmdb.Driver(), rocksdb.Driver(), wiredtiger.Driver(), sqldb.PostgresDriver(),
		sqldb.InnoDBDriver(), sqldb.MyRocksDriver(), doc.FerretDBDriver(), doc.MongoDBDriver(), null.Driver())
}
