package bbolt

import (
	"bytes"
	"context"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// BenchmarkAdapterFloor puts the engine's kv.DB beside a bare loop of bbolt's own API on the
// same rows (kvtest.AdapterFloor): Bucket.Get in a read transaction, a cursor in a read
// transaction per range query, Bucket.Put in an update transaction per batch.
func BenchmarkAdapterFloor(b *testing.B) {
	d := enginetest.Open(b, context.Background(), Driver(), "", nil, b.TempDir()).(*db)
	kvtest.LoadBenchRows(b, d)
	kvtest.AdapterFloor(b, d, bare(d.bdb, float64(d.cfg.fillPercent)/100))
}

// bare returns the operations on bdb's bucket through bbolt's API alone.
func bare(bdb *bolt.DB, fill float64) kvtest.Ops {
	return kvtest.Ops{
		Get: func(key, dst []byte) ([]byte, bool, error) {
			found := false
			err := bdb.View(func(tx *bolt.Tx) error {
				if v := tx.Bucket(bucketName).Get(key); v != nil {
					found, dst = true, append(dst, v...)
				}
				return nil
			})
			return dst, found, err
		},
		Scan: func(lower, upper, start []byte, n int) (int, error) {
			tx, err := bdb.Begin(false)
			if err != nil {
				return 0, err
			}
			c := tx.Bucket(bucketName).Cursor()
			got := 0
			for k, _ := c.Seek(start); k != nil && bytes.Compare(k, upper) < 0 && got < n; k, _ = c.Next() {
				got++
			}
			return got, tx.Rollback()
		},
		Write: func(keys [][]byte, val []byte) error {
			return bdb.Update(func(tx *bolt.Tx) error {
				bk := tx.Bucket(bucketName)
				bk.FillPercent = fill
				for _, k := range keys {
					if err := bk.Put(k, val); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
}
