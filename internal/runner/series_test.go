package runner

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// seriesSampler stands for a real run's samplers: every raw key the OS sampler measures for a
// managed server (host, device, DBMS processes, sizes) and InnoDB's engine counters, each
// computed as measure.OS computes it: CPU seconds as differences of tick counts read as
// seconds, counters as whole differences, KB from 512-byte sectors and 4 KiB pages, sizes in
// GiB of 512-byte blocks.
type seriesSampler struct {
	rng   *rand.Rand
	ticks [5]float64 // cumulative CPU ticks: host busy, client, DBMS, host us+sy, host all
	size  int64      // data directory blocks
}

// seriesCounters are InnoDB's engine counters (internal/engine/sqldb innodbStatus), the
// checkpoint age in bytes.
var seriesCounters = []string{"history_list_length", "dirty_pages", "data_pages", "pending_reads",
	"pending_writes", "pending_fsyncs", "buffer_pool_wait_free", "log_waits", "row_lock_waits", "deadlocks"}

func (*seriesSampler) Begin(context.Context, time.Time)             {}
func (*seriesSampler) End(context.Context, time.Time, *result.Step) {}
func (s *seriesSampler) Sample(context.Context, time.Time) map[string]float64 {
	m := map[string]float64{}
	for i, k := range []string{measure.KeyCPU, measure.KeyClientCPU, measure.KeyDBCPU, measure.KeyCPUUsSy, measure.KeyCPUAll} {
		prev := s.ticks[i] / 100
		s.ticks[i] += float64(s.rng.IntN(200))
		m[k] = s.ticks[i]/100 - prev
	}
	n := func(limit int) float64 { return float64(s.rng.IntN(limit)) }
	m[measure.KeySeconds] = (time.Second + time.Duration(s.rng.IntN(2e6))).Seconds()
	m[measure.KeyCS], m[measure.KeyReads], m[measure.KeyWrites] = n(50000), n(3000), n(2000)
	m[measure.KeyReadKB], m[measure.KeyWriteKB] = n(200000)*512/1024, n(200000)*512/1024
	m[measure.KeyReadMs], m[measure.KeyWriteMs], m[measure.KeyIOMs], m[measure.KeyQueueMs] = n(3000), n(3000), n(1000), n(9000)
	m[measure.KeyDBReadKB], m[measure.KeyDBWriteKB] = n(50000)*4096/1024, n(50000)*4096/1024
	m[measure.KeyRSSMB] = n(1<<20) * 4096 / (1 << 20)
	s.size += int64(s.rng.IntN(20000))
	m[measure.KeyDBGB1], m[measure.KeyDBGB2] = float64(s.size*512)/(1<<30), float64(s.size*512+4096)/(1<<30)
	for _, k := range seriesCounters {
		m[k] = n(10000)
	}
	m["checkpoint_age_bytes"] = n(1 << 30)
	return m
}

// BenchmarkSeriesMemory reports the heap that a step's per-second series holds once the step
// has ended, per recorded second (3,600 of them), each operation type recorded every second,
// with the metrics of a managed server (seriesSampler) and those measure.Derive adds to every
// second: linkbench has LinkBench's 10 operation types and their total, insertbench the
// Insert Benchmark's 3.
func BenchmarkSeriesMemory(b *testing.B) {
	const ticks = 3600
	for _, bc := range []struct {
		name  string
		ops   int
		total bool
	}{{"linkbench", 10, true}, {"insertbench", 3, false}} {
		b.Run(bc.name, func(b *testing.B) {
			var perSecond float64
			for b.Loop() {
				perSecond = float64(seriesHeap(bc.ops, bc.total, ticks)) / ticks
			}
			b.ReportMetric(perSecond, "B/second")
		})
	}
}

// seriesHeap returns the heap (after a GC) that the per-second series of a step of ops
// operation types (and their total, if total) holds after ticks seconds.
func seriesHeap(ops int, total bool, ticks int) uint64 {
	clock := NewManualClock(t0)
	specs := make([]OpSpec, ops)
	for i := range ops {
		specs[i] = OpSpec{Name: "op" + strconv.Itoa(i)}
	}
	basis := measure.Basis{PerOp: specs[0].Name}
	if total {
		specs = append(specs, OpSpec{Name: "requests", Total: true})
		basis.PerOp = "requests"
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r := &Runner{Samplers: []Sampler{&seriesSampler{rng: rng}}}
	s := &Step{Ops: specs}
	rec := newRecorder(clock, 0, len(specs))
	recs := []*Recorder{rec}
	st := newStepStats(r, s, clock, clock.Now(), time.Second)
	for range ticks {
		for op := range ops {
			lat := time.Duration(rng.IntN(1e6))
			rec.Do(Op(op), time.Time{}, func() (int64, error) { clock.Advance(lat); return 1, nil })
		}
		clock.Advance(time.Second)
		st.tick(context.Background(), recs, false)
	}
	st.series.Trim()
	res := &result.Step{Intervals: st.series}
	st.series = nil
	measure.Derive(res, basis)

	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	res.Intervals = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	runtime.KeepAlive(st)
	runtime.KeepAlive(res)
	if with.HeapAlloc < without.HeapAlloc {
		return 0
	}
	return with.HeapAlloc - without.HeapAlloc
}

// The tick appends a second to the step's series without a map: with no sampler, a tick of
// a step whose operations all ran allocates nothing but the columns' growth (AllocsPerRun
// rounds the average down), where two maps a second took two or more.
func TestTickAppendsWithoutAllocating(t *testing.T) {
	clock := NewManualClock(t0)
	specs := []OpSpec{{Name: "read"}, {Name: "write"}, {Name: "requests", Total: true}}
	st := newStepStats(&Runner{}, &Step{Ops: specs}, clock, clock.Now(), time.Second)
	rec := newRecorder(clock, 0, len(specs))
	second := func() {
		for op := range 2 {
			rec.Do(Op(op), time.Time{}, func() (int64, error) { clock.Advance(time.Microsecond); return 1, nil })
		}
		clock.Advance(time.Second)
		st.tick(context.Background(), []*Recorder{rec}, false)
	}
	second()
	if n := testing.AllocsPerRun(3000, second); n != 0 {
		t.Errorf("%v allocations per tick", n)
	}
	if got := st.series.Len(); got != 3002 {
		t.Fatalf("%d seconds in the series, want 3002", got)
	}
	for i := range st.series.Len() {
		for _, name := range []string{"read", "write"} {
			if o, ok := st.series.Op(i, name); !ok || o.Count != 1 || o.P50 != 1 {
				t.Fatalf("second %d %s: %+v, %v; want one operation of 1 us", i+1, name, o, ok)
			}
		}
		if o, _ := st.series.Op(i, "requests"); o.Count != 2 {
			t.Fatalf("second %d: requests %+v, want the two operations", i+1, o)
		}
	}
}
