package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHarnessMemory reports the heap that the runner's recording of one step holds (its
// workers' recorders and the step's aggregates) at the largest presets, every worker recording
// every operation type open loop (service and response time, as with a request rate), over a
// few one-second intervals of latencies drawn from a long-tailed distribution (around 200 us,
// from below a microsecond to seconds):
//   - linkbench: 16 requesters, 10 operation types plus the requests total (cached, iobound);
//   - linkbench-periods: the same with a period report each interval, which no preset runs
//     (only iiBench reports periods, with 2 operation types): a bound for every workload;
//   - insertbench: 4 clients' query, insert and delete workers (12), 3 operation types;
//   - linkbench-hour: linkbench for 3,600 intervals (an hour-long interval, as the reference's), 2 operations of each
//     type and worker per interval: what an hour adds (the per-second figures it keeps).
func BenchmarkHarnessMemory(b *testing.B) {
	for _, bc := range []struct {
		name                       string
		workers, ops, ticks, perOp int
		report                     bool
	}{
		{"linkbench", 16, 10, 4, 2000, false}, {"linkbench-periods", 16, 10, 4, 2000, true},
		{"insertbench", 12, 3, 4, 2000, false}, {"linkbench-hour", 16, 10, 3600, 2, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var heap uint64
			for b.Loop() {
				heap = recordingHeap(bc.workers, bc.ops, bc.report, bc.ticks, bc.perOp)
			}
			b.ReportMetric(float64(heap)/(1<<20), "MB/step")
		})
	}
}

// recordingHeap returns the heap in use (after a GC) for a step of workers recording ops
// operation types (plus a total), perOp operations of each per interval, over ticks intervals,
// with a period report every interval if report.
func recordingHeap(workers, ops int, report bool, ticks, perOp int) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	clock := NewManualClock(t0)
	specs := make([]OpSpec, ops+1)
	for i := range ops {
		specs[i] = OpSpec{Name: "op" + strconv.Itoa(i)}
	}
	specs[ops] = OpSpec{Name: "requests", Total: true}
	s := &Step{Ops: specs}
	if report {
		s.Report = time.Second
	}
	recs := make([]*Recorder, workers)
	for i := range recs {
		recs[i] = newRecorder(clock, i, len(specs))
	}
	st := newStepStats(&Runner{}, s, clock, clock.Now(), time.Second)
	rng := rand.New(rand.NewPCG(1, 2))
	for range ticks {
		for _, rec := range recs {
			for op := range ops {
				for range perOp {
					lat := time.Duration(math.Exp(rng.NormFloat64()*2) * 2e5)
					intended := clock.Now()
					rec.Do(Op(op), intended, func() (int64, error) { clock.Advance(lat); return 1, nil })
				}
			}
		}
		st.tick(context.Background(), recs, true)
	}

	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(recs)
	runtime.KeepAlive(st)
	if after.HeapInuse < before.HeapInuse {
		return 0
	}
	return after.HeapInuse - before.HeapInuse
}
