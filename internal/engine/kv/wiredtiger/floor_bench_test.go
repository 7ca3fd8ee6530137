//go:build wiredtiger && cgo

package wiredtiger

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// BenchmarkAdapterFloor puts the engine's kv.DB beside the binding's C functions called
// directly on a session of its own (bareSession), on the same rows (kvtest.AdapterFloor).
func BenchmarkAdapterFloor(b *testing.B) {
	dir := b.TempDir()
	d := enginetest.Open(b, context.Background(), Driver(), "", nil, dir).(*db)
	kvtest.LoadBenchRows(b, d)
	// Reopened, so that neither path has the session that loaded the rows: measured, a batch
	// commits in that session about a third faster than in a new one, whichever path has it.
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	d = enginetest.Open(b, context.Background(), Driver(), "", nil, dir).(*db)
	e, err := d.newBare(kvtest.BenchKey(nil, 0))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.put(e.s) }) // the connection closes it
	kvtest.AdapterFloor(b, d, kvtest.Ops{Get: e.get, Scan: e.scan, Write: e.write})
}
