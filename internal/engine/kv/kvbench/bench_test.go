package kvbench

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// bench runs run as a sub-benchmark on each KV engine built in, through its kv.DB, on
// kvtest.BenchRows rows of 100 bytes.
func bench(b *testing.B, run func(*testing.B, kvtest.Ops)) {
	for _, d := range embeddedtest.KV() {
		b.Run(d.Name, func(b *testing.B) { run(b, kvtest.ViaKV(b, load(b, d))) })
	}
}

// load opens the engine of d in a new directory and writes the rows.
func load(b *testing.B, d engine.Driver) kv.DB {
	b.Helper()
	kvtest.RequireBuilt(b, d)
	db := enginetest.Open(b, context.Background(), d, "", nil, b.TempDir()).(kv.DB)
	kvtest.LoadBenchRows(b, db)
	return db
}

// BenchmarkGet reads one random row.
func BenchmarkGet(b *testing.B) { bench(b, kvtest.BenchGet) }

// BenchmarkRangeQuery10 is the Insert Benchmark's range query at its shortest: an iterator
// bounded to the table, a seek to a random row and the 10 rows from there.
func BenchmarkRangeQuery10(b *testing.B) { bench(b, kvtest.BenchRange10) }

// BenchmarkBatch10 commits a batch of 10 overwrites of random rows.
func BenchmarkBatch10(b *testing.B) { bench(b, kvtest.BenchBatch10) }
