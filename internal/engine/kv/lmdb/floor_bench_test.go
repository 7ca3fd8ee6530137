//go:build lmdb && cgo

package lmdb

import (
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// BenchmarkAdapterFloor puts the engine's kv.DB beside the binding's C functions called
// directly (bareEnv), on the same rows (kvtest.AdapterFloor).
func BenchmarkAdapterFloor(b *testing.B) {
	d := openTest(b, b.TempDir(), nil)
	kvtest.LoadBenchRows(b, d)
	e := &bareEnv{env: d.env, dbi: d.dbi}
	kvtest.AdapterFloor(b, d, kvtest.Ops{Get: e.get, Scan: e.scan, Write: e.write})
}
