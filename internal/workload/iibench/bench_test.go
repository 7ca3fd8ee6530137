package iibench

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

// BenchmarkHarness measures the harness's CPU on the null engine: per row inserted (row
// generation, the key and value of the row and its three index entries, recording), with no
// queries; and per query (seek point, key encoding, recording) with four query threads and a
// trickle of inserts. Each runs for a fixed time, so b.N does not scale it.
func BenchmarkHarness(b *testing.B) {
	cases := []struct {
		name          string
		set           func(p *Params)
		op, per, rate string
	}{
		{"insert", func(p *Params) { p.QueryThreads = 0 }, "insert", "row", "rows/s"},
		{"query", func(p *Params) { p.MaxInsertRate, p.InsertBatch, p.QueryAfterRows = 1000, 100, 1 }, "query", "query", "queries/s"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			eng := openNull(b)
			p, _ := DefaultParams("small")
			p.MaxRows, p.Seconds = 0, 3
			c.set(&p)
			w, err := New(p)
			if err != nil {
				b.Fatal(err)
			}
			cpu := runnertest.NewCPU()
			st, err := runOn(b, ctx, w, eng, &runner.Runner{Clock: runner.SystemClock(), Samplers: []runner.Sampler{cpu}})
			if err != nil {
				b.Fatal(err)
			}
			op := st.Ops[c.op]
			b.ReportMetric(float64(cpu.Used[stepName].Nanoseconds())/float64(op.Units), "cpu-ns/"+c.per)
			b.ReportMetric(op.PerSec, c.rate)
		})
	}
}

// BenchmarkInsertBatch measures one batch of 1000 rows through the KV session on the null
// engine: row generation and the encoding of the row and its index entries.
func BenchmarkInsertBatch(b *testing.B) {
	ctx := context.Background()
	p, _ := DefaultParams("small")
	sess := nullSession(b, &p)
	gen := NewGen(&p, 1, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := sess.insert(ctx, gen.Batch(1000, 1)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestQueryAndInsertDoNotAllocate checks the KV hot path: a warm session allocates nothing per
// insert batch or per query.
func TestQueryAndInsertDoNotAllocate(t *testing.T) {
	ctx := context.Background()
	p, _ := DefaultParams("tiny")
	p.CharFields = 2
	sess := nullSession(t, &p)
	gen := NewGen(&p, 1, 1)
	out := make([]Key, 0, p.QueryLimit)
	if a := testing.AllocsPerRun(50, func() {
		if err := sess.insert(ctx, gen.Batch(100, 1)); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per insert batch", a)
	}
	if a := testing.AllocsPerRun(50, func() {
		for idx := idxPK; idx < numIndexes; idx++ {
			var err error
			if out, err = sess.query(ctx, idx, Key{1, 2, 3}, p.QueryLimit, out); err != nil {
				t.Fatal(err)
			}
		}
	}); a != 0 {
		t.Errorf("%v allocations per query", a)
	}
}
