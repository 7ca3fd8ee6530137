//go:build !wiredtiger || !cgo

package wiredtiger

import "github.com/enginebench/enginebench/internal/engine/kv"

// available and open say that the engine is not built in, and how to build it in.
var available, open = kv.NotBuilt("wiredtiger", "libwiredtiger-dev")
