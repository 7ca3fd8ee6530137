//go:build !wiredtiger || !cgo

package wiredtiger

import (
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestNotBuilt checks that a binary without the wiredtiger tag lists the engine as not built, with
// the command that builds it, and refuses to open it.
func TestNotBuilt(t *testing.T) { kvtest.CheckNotBuilt(t, Driver(), "wiredtiger") }
