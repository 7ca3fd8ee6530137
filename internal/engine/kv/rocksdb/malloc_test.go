//go:build rocksdb && cgo && linux

package rocksdb

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/malloc"
)

// TestMallocUnderCap: see kvtest.CheckMallocUnderCap.
func TestMallocUnderCap(t *testing.T) {
	kvtest.CheckMallocUnderCap(t, func(capBytes int64) (engine.Engine, *malloc.Trimmer) {
		e, err := open(context.Background(), engine.Config{Name: "rocksdb", Engine: "rocksdb", DataDir: t.TempDir(),
			MemoryLimit: capBytes, Settings: Driver().CapDefaults(256 << 20)})
		if err != nil {
			t.Fatal(err)
		}
		return e, e.(*db).trim
	})
}
