//go:build !wiredtiger || !cgo

package wiredtiger

import (
	"context"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine"
)

// errNotBuilt says how to build the engine in.
var errNotBuilt = engine.NotBuilt("libwiredtiger-dev", "wiredtiger")

func available() error { return errNotBuilt }

func open(context.Context, engine.Config) (engine.Engine, error) {
	return nil, fmt.Errorf("wiredtiger: %w", errNotBuilt)
}
