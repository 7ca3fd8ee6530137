//go:build !rocksdb || !cgo

package rocksdb

import (
	"context"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine"
)

// errNotBuilt says how to build the engine in.
var errNotBuilt = engine.NotBuilt("librocksdb-dev", "rocksdb")

func available() error { return errNotBuilt }

func open(context.Context, engine.Config) (engine.Engine, error) {
	return nil, fmt.Errorf("rocksdb: %w", errNotBuilt)
}
