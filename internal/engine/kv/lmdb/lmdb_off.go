//go:build !lmdb || !cgo

package lmdb

import (
	"context"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine"
)

// errNotBuilt says how to build the engine in.
var errNotBuilt = engine.NotBuilt("liblmdb-dev", "lmdb")

func available() error { return errNotBuilt }

func open(context.Context, engine.Config) (engine.Engine, error) {
	return nil, fmt.Errorf("lmdb: %w", errNotBuilt)
}
