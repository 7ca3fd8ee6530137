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
// workers' recorders and the step's aggregates) in the worst case of the presets: LinkBench
// at cached or iobound scale, 16 requesters recording its 10 operation types plus the
// requests total, open loop (a request rate: service and response time), with periods. Each
// worker records latencies drawn from a long-tailed distribution (around 200 us, from
// sub-microsecond to seconds) over a few one-second intervals.
func BenchmarkHarnessMemory(b *testing.B) {
	const workers, ops, ticks, perOp = 16, 10, 4, 2000
	var heap uint64
	for b.Loop() {
		heap = recordingHeap(workers, ops, ticks, perOp)
	}
	b.ReportMetric(float64(heap)/(1<<20), "MB/step")
}

// recordingHeap returns the heap in use (after a GC) for a step of workers recording ops
// operation types (plus a total), perOp operations of each per interval, over ticks intervals.
func recordingHeap(workers, ops, ticks, perOp int) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	clock := NewManualClock(t0)
	specs := make([]OpSpec, ops+1)
	for i := range ops {
		specs[i] = OpSpec{Name: "op" + strconv.Itoa(i)}
	}
	specs[ops] = OpSpec{Name: "requests", Total: true}
	s := &Step{Ops: specs, Report: time.Second}
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
