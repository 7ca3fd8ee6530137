package pebble

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// BenchmarkAdapterFloor puts the engine's kv.DB beside a bare loop of pebble's own API on the
// same rows (kvtest.AdapterFloor): DB.Get and its closer, an iterator with the bounds per range
// query, one batch reused for every commit, with the engine's write options.
func BenchmarkAdapterFloor(b *testing.B) {
	d := enginetest.Open(b, context.Background(), Driver(), "", nil, b.TempDir()).(*db)
	kvtest.LoadBenchRows(b, d)
	kvtest.AdapterFloor(b, d, bare(b, d.pdb, d.wo))
}

// bare returns the operations on pdb through pebble's API alone.
func bare(b *testing.B, pdb *pebble.DB, wo *pebble.WriteOptions) kvtest.Ops {
	batch := pdb.NewBatch()
	b.Cleanup(func() { batch.Close() })
	return kvtest.Ops{
		Get: func(key, dst []byte) ([]byte, bool, error) {
			v, closer, err := pdb.Get(key)
			if err == pebble.ErrNotFound {
				return dst, false, nil
			}
			if err != nil {
				return dst, false, err
			}
			dst = append(dst, v...)
			return dst, true, closer.Close()
		},
		Scan: func(lower, upper, start []byte, n int) (int, error) {
			it, err := pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
			if err != nil {
				return 0, err
			}
			got := 0
			for ok := it.SeekGE(start); ok && got < n; ok = it.Next() {
				got++
			}
			return got, it.Close()
		},
		Write: func(keys [][]byte, val []byte) error {
			for _, k := range keys {
				if err := batch.Set(k, val, nil); err != nil {
					return err
				}
			}
			err := batch.Commit(wo)
			batch.Reset()
			return err
		},
	}
}
