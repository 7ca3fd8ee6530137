package kvtest

import (
	"math/rand"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

// BenchRows is how many rows LoadBenchRows writes: a table of 100-byte values that every
// engine's cache holds.
const BenchRows = 200_000

// benchValue is the size of a row's value.
const benchValue = 100

// The bounds of the rows' keys: the range tag of BenchKey and the one after it.
var benchLower, benchUpper = []byte{'r'}, []byte{'s'}

// BenchKey appends the key of row i: a one-byte range tag and the row number, order-preserving.
func BenchKey(dst []byte, i int64) []byte { return kv.AppendInt64(append(dst, 'r'), i) }

// LoadBenchRows declares the rows' key range on db and writes BenchRows rows in batches of 1000.
func LoadBenchRows(b *testing.B, db kv.DB) {
	b.Helper()
	if err := kv.DeclareRanges(db, []kv.Range{{Name: "rows", Prefix: benchLower}}); err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch()
	defer batch.Close()
	val := make([]byte, benchValue)
	var k []byte
	for i := int64(0); i < BenchRows; i++ {
		k = BenchKey(k[:0], i)
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
}

// Ops are the three operations the KV benchmarks time, as one client makes them on one engine:
// through kv.DB (ViaKV), or through the engine's own API (an engine's bare loop).
type Ops struct {
	// Get appends the value of key to dst; ok is false when it is missing.
	Get func(key, dst []byte) (val []byte, ok bool, err error)
	// Scan reads the rows from the first key >= start, at most n of them, through an iterator
	// over [lower, upper) made for this call, and returns how many it read.
	Scan func(lower, upper, start []byte, n int) (int, error)
	// Write commits keys[i] = val for every key in one atomic batch.
	Write func(keys [][]byte, val []byte) error
}

// ViaKV returns the operations as the workloads make them through db: Get, an iterator per
// range query (NewIter, SeekGE, Next), and one batch reused for every commit (Set, Commit).
// The batch is closed when b ends.
func ViaKV(b *testing.B, db kv.DB) Ops {
	batch := db.NewBatch()
	b.Cleanup(func() { batch.Close() })
	return Ops{
		Get: db.Get,
		Scan: func(lower, upper, start []byte, n int) (int, error) {
			it, err := db.NewIter(lower, upper)
			if err != nil {
				return 0, err
			}
			got := 0
			for ok := it.SeekGE(start); ok && got < n; ok = it.Next() {
				got++
			}
			if err := it.Err(); err != nil {
				it.Close()
				return got, err
			}
			return got, it.Close()
		},
		Write: func(keys [][]byte, val []byte) error {
			for _, k := range keys {
				batch.Set(k, val)
			}
			return batch.Commit()
		},
	}
}

// BenchGet reads one random row per operation.
func BenchGet(b *testing.B, ops Ops) {
	r := rand.New(rand.NewSource(1))
	var k, v []byte
	runnertest.Loop(b, func() {
		k = BenchKey(k[:0], r.Int63n(BenchRows))
		var ok bool
		var err error
		if v, ok, err = ops.Get(k, v[:0]); err != nil || !ok || len(v) != benchValue {
			b.Fatalf("get: %d bytes, found %v, %v", len(v), ok, err)
		}
	})
}

// BenchRange10 is the Insert Benchmark's range query at its shortest: an iterator bounded to
// the table, a seek to a random row and the 10 rows from there.
func BenchRange10(b *testing.B, ops Ops) {
	r := rand.New(rand.NewSource(1))
	var k []byte
	runnertest.Loop(b, func() {
		k = BenchKey(k[:0], r.Int63n(BenchRows-10))
		if n, err := ops.Scan(benchLower, benchUpper, k, 10); err != nil || n != 10 {
			b.Fatalf("range query: %d rows, %v", n, err)
		}
	})
}

// BenchBatch10 commits a batch of 10 overwrites of random rows (values of the same size).
func BenchBatch10(b *testing.B, ops Ops) {
	r := rand.New(rand.NewSource(1))
	val := make([]byte, benchValue)
	keys := make([][]byte, 10)
	runnertest.Loop(b, func() {
		for i := range keys {
			keys[i] = BenchKey(keys[i][:0], r.Int63n(BenchRows))
		}
		if err := ops.Write(keys, val); err != nil {
			b.Fatalf("batch: %v", err)
		}
	})
}

// AdapterFloor puts enginebench's path beside an engine's own API (issue 34): for a point read,
// a 10-row range query and a batch of 10 writes, sub-benchmarks "bare" (the engine's API, bare)
// and "enginebench" (ViaKV on db) in runnertest.PairOrder, on the rows LoadBenchRows wrote to db, the
// same keys in the same order. Their ratio is what the adapter costs.
func AdapterFloor(b *testing.B, db kv.DB, bare Ops) {
	checkBare(b, db, bare)
	ours := ViaKV(b, db)
	for _, op := range []struct {
		name string
		run  func(*testing.B, Ops)
	}{{"get", BenchGet}, {"range10", BenchRange10}, {"batch10", BenchBatch10}} {
		b.Run(op.name, func(b *testing.B) {
			for _, p := range runnertest.PairOrder("bare", "enginebench") {
				ops := bare
				if p == "enginebench" {
					ops = ours
				}
				b.Run(p, func(b *testing.B) { op.run(b, ops) })
			}
		})
	}
}

// checkBare checks before the timing that bare reads what db holds: a row's value, the end of
// the range, a missing row.
func checkBare(b *testing.B, db kv.DB, bare Ops) {
	b.Helper()
	k := BenchKey(nil, BenchRows/2)
	want, ok, err := db.Get(k, nil)
	if err != nil || !ok {
		b.Fatalf("get: %v %v", ok, err)
	}
	got, ok, err := bare.Get(k, nil)
	if err != nil || !ok || string(got) != string(want) {
		b.Fatalf("bare get: %d bytes, found %v, %v; want %d bytes", len(got), ok, err, len(want))
	}
	if n, err := bare.Scan(benchLower, benchUpper, BenchKey(nil, BenchRows-5), 10); err != nil || n != 5 {
		b.Fatalf("bare range query at the table's end: %d rows, want 5 (%v)", n, err)
	}
	if _, ok, err := bare.Get(BenchKey(nil, BenchRows), nil); err != nil || ok {
		b.Fatalf("bare get of a missing row: found %v, %v", ok, err)
	}
}
