package kvbench

import (
	"context"
	"math/rand"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// keys is how many keys each engine holds: a table of 100-byte rows that its cache holds.
const keys = 200_000

func drivers() []engine.Driver { return embeddedtest.KV() }

// key appends the key of row i: a one-byte range tag and the row number, order-preserving.
func key(dst []byte, i int64) []byte { return kv.AppendInt64(append(dst, 'r'), i) }

// load opens the engine of d in a new directory and writes the rows in batches of 1000.
func load(b *testing.B, d engine.Driver) kv.DB {
	b.Helper()
	kvtest.RequireBuilt(b, d)
	db := enginetest.Open(b, context.Background(), d, "", nil, b.TempDir()).(kv.DB)
	if err := kv.DeclareRanges(db, []kv.Range{{Name: "rows", Prefix: []byte{'r'}}}); err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch()
	defer batch.Close()
	val := make([]byte, 100)
	var k []byte
	for i := int64(0); i < keys; i++ {
		k = key(k[:0], i)
		batch.Set(k, val)
		if batch.Len() == 1000 {
			if err := batch.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkGet reads one random row.
func BenchmarkGet(b *testing.B) {
	for _, d := range drivers() {
		b.Run(d.Name, func(b *testing.B) {
			db := load(b, d)
			r := rand.New(rand.NewSource(1))
			var k, v []byte
			b.ResetTimer()
			for range b.N {
				k = key(k[:0], r.Int63n(keys))
				var ok bool
				var err error
				if v, ok, err = db.Get(k, v[:0]); err != nil || !ok {
					b.Fatalf("get: %v %v", ok, err)
				}
			}
		})
	}
}

// BenchmarkRangeQuery10 is the Insert Benchmark's range query at its shortest: an iterator
// bounded to the table, a seek to a random row and the 10 rows from there.
func BenchmarkRangeQuery10(b *testing.B) {
	lo, hi := []byte{'r'}, []byte{'s'}
	for _, d := range drivers() {
		b.Run(d.Name, func(b *testing.B) {
			db := load(b, d)
			r := rand.New(rand.NewSource(1))
			var k []byte
			b.ResetTimer()
			for range b.N {
				it, err := db.NewIter(lo, hi)
				if err != nil {
					b.Fatal(err)
				}
				k = key(k[:0], r.Int63n(keys-10))
				n := 0
				for ok := it.SeekGE(k); ok && n < 10; ok = it.Next() {
					n++
				}
				if err := it.Close(); err != nil || n != 10 {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}

// BenchmarkBatch10 commits a batch of 10 overwrites of random rows.
func BenchmarkBatch10(b *testing.B) {
	for _, d := range drivers() {
		b.Run(d.Name, func(b *testing.B) {
			db := load(b, d)
			r := rand.New(rand.NewSource(1))
			batch := db.NewBatch()
			defer batch.Close()
			val := make([]byte, 100)
			var k []byte
			b.ResetTimer()
			for range b.N {
				for range 10 {
					k = key(k[:0], r.Int63n(keys))
					batch.Set(k, val)
				}
				if err := batch.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
