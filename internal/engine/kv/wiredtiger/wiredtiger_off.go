//go:build !wiredtiger || !cgo

package wiredtiger

import (
	"context"
	"errors"

	"github.com/enginebench/enginebench/internal/engine"
)

// errNotBuilt says how to build the engine in.
var errNotBuilt = errors.New("not built into this binary: install libwiredtiger-dev (make deps) and run make, which builds it in (go build -tags wiredtiger)")

func available() error { return errNotBuilt }

func open(context.Context, engine.Config) (engine.Engine, error) {
	return nil, errors.New("wiredtiger: " + errNotBuilt.Error())
}
