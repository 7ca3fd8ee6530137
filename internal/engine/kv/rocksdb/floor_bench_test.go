//go:build rocksdb && cgo

package rocksdb

import (
	"context"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// BenchmarkAdapterFloor puts the engine's kv.DB beside a bare loop of grocksdb, the binding the
// engine uses, on the same rows (kvtest.AdapterFloor): DB.Get, an iterator with the bounds in
// its read options per range query, one write batch reused for every commit, with the engine's
// read and write options.
func BenchmarkAdapterFloor(b *testing.B) {
	d := enginetest.Open(b, context.Background(), Driver(), "", nil, b.TempDir()).(*db)
	kvtest.LoadBenchRows(b, d)
	kvtest.AdapterFloor(b, d, bare(b, d))
}

// bare returns the operations on d's database through grocksdb alone.
func bare(b *testing.B, d *db) kvtest.Ops {
	wb := grocksdb.NewWriteBatch()
	b.Cleanup(wb.Destroy)
	rdb, ro, wo := d.rdb, d.ro, d.wo
	return kvtest.Ops{
		Get: func(key, dst []byte) ([]byte, bool, error) {
			s, err := rdb.Get(ro, key)
			if err != nil {
				return dst, false, err
			}
			defer s.Free()
			if !s.Exists() {
				return dst, false, nil
			}
			return append(dst, s.Data()...), true, nil
		},
		Scan: func(lower, upper, start []byte, n int) (int, error) {
			iro := grocksdb.NewDefaultReadOptions()
			defer iro.Destroy()
			iro.SetIterateLowerBound(lower)
			iro.SetIterateUpperBound(upper)
			it := rdb.NewIterator(iro)
			defer it.Close()
			got := 0
			for it.Seek(start); it.Valid() && got < n; it.Next() {
				got++
			}
			return got, it.Err()
		},
		Write: func(keys [][]byte, val []byte) error {
			for _, k := range keys {
				wb.Put(k, val)
			}
			err := rdb.Write(wo, wb)
			wb.Clear()
			return err
		},
	}
}
