//go:build !rocksdb || !cgo

package rocksdb

import (
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestNotBuilt checks that a binary without the rocksdb tag lists the engine as not built, with
// the command that builds it, and refuses to open it.
func TestNotBuilt(t *testing.T) { kvtest.CheckNotBuilt(t, Driver(), "rocksdb") }
