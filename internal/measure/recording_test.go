package measure

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A Recording merged into a Histogram gives exactly the bins, count, max and mean of the same
// values recorded in the Histogram itself, at every magnitude from 0 to beyond HighestNs.
func TestRecordingMergesExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name   string
		values []int64
	}{
		{"sub-microsecond exact bins", seq(0, 1, 2100)},
		{"lognormal", logNormal(rng, 20000)},
		{"bin edges", []int64{2047, 2048, 2049, 4095, 4096, 1<<20 - 1, 1 << 20, 1<<40 + 12345}},
		{"clamped", []int64{-7, HighestNs - 1, HighestNs, HighestNs + 1, int64(5 * time.Hour)}},
		{"every power of two", func() []int64 {
			var v []int64
			for s := range 42 {
				v = append(v, 1<<s, 1<<s+1<<s/3)
			}
			return v
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, direct, merged := NewRecording(), NewHistogram(), NewHistogram()
			for _, v := range tt.values {
				r.Record(v)
				direct.Record(v)
			}
			merged.MergeRecording(r)
			if r.Count() != int64(len(tt.values)) || merged.Count() != direct.Count() ||
				merged.Max() != direct.Max() || merged.Mean() != direct.Mean() {
				t.Fatalf("count %d/%d, max %d/%d, mean %v/%v (merged/direct)", merged.Count(), direct.Count(),
					merged.Max(), direct.Max(), merged.Mean(), direct.Mean())
			}
			if !slices.Equal(denseBins(merged), denseBins(direct)) {
				t.Fatal("the merged bins differ from the directly recorded ones")
			}
		})
	}
}

func TestRecordingResetAndReuse(t *testing.T) {
	r := NewRecording()
	r.RecordDuration(time.Second)
	used := r.Bytes()
	r.Reset()
	if r.Count() != 0 || r.Max() != 0 || r.Bytes() != used {
		t.Fatalf("after Reset: count %d max %d, %d bytes (was %d)", r.Count(), r.Max(), r.Bytes(), used)
	}
	h := NewHistogram()
	h.MergeRecording(r)
	if h.Count() != 0 {
		t.Fatalf("an empty recording merged %d values", h.Count())
	}
	r.RecordDuration(time.Millisecond)
	h.MergeRecording(r)
	if got := Summarize(h); got.Max != 1000 || got.Mean != 1000 || !near(got.P50, 1000) {
		t.Fatalf("after reuse: %+v", got)
	}
}

// A Recording holds only the bins its values fall in: far less than an HdrHistogram.
func TestRecordingIsSmall(t *testing.T) {
	r := NewRecording()
	empty := r.Bytes()
	for _, v := range logNormal(rand.New(rand.NewPCG(5, 6)), 2000) {
		r.Record(v)
	}
	if full := newHdr().ByteSize(); r.Bytes() > full/2 || empty > full/32 {
		t.Fatalf("recording of 2000 values: %d bytes (empty %d), histogram %d", r.Bytes(), empty, full)
	}
}

// Reset releases the blocks that held no value in the interval, so that a Recording reused
// for many intervals holds the bins of its recent values only; it keeps a few released blocks
// for reuse, and what it records after a release merges exactly.
func TestRecordingReleasesIdleBlocks(t *testing.T) {
	r := NewRecording()
	tail := logNormal(rand.New(rand.NewPCG(13, 14)), 5000)
	for _, v := range tail {
		r.Record(v)
	}
	wide := r.Bytes()
	r.Reset() // every block held a value: all kept
	if r.Bytes() != wide {
		t.Fatalf("Reset after a full interval: %d bytes, was %d", r.Bytes(), wide)
	}
	r.Record(1000)
	r.Reset() // only 1000's block held a value
	narrow := r.Bytes()
	if narrow > wide/4 || len(r.blocks) != 1 || len(r.spare) != spareBlocks {
		t.Fatalf("after an interval of one value: %d bytes (%d blocks, %d spare), was %d",
			narrow, len(r.blocks), len(r.spare), wide)
	}
	if n := testing.AllocsPerRun(1, func() {
		r.Record(1000)             // a block it holds
		r.Record(int64(time.Hour)) // a released block: a spare one is reused
	}); n != 0 {
		t.Fatalf("recording into a spare block allocates %v times", n)
	}
	r.Reset()
	h, direct := NewHistogram(), NewHistogram()
	for _, v := range tail[:100] {
		r.Record(v)
		direct.Record(v)
	}
	h.MergeRecording(r)
	if !slices.Equal(denseBins(h), denseBins(direct)) || h.Count() != 100 || h.Max() != direct.Max() {
		t.Fatal("after releases, the recording does not merge exactly")
	}
}

// A tail that moves from one interval to the next reuses the blocks released by the interval
// before, however many: a Recording of such intervals allocates nothing once it has held both
// sets of blocks, and holds no more than them.
func TestRecordingReusesReleasedBlocks(t *testing.T) {
	r := NewRecording()
	interval := func(first int) {
		for k := range 40 {
			r.Record(binLowest((first + 2*k) << blockMag)) // 40 values, each in a block of its own
		}
		r.Reset()
	}
	a, b := func() { interval(100) }, func() { interval(101) }
	a()
	b()
	held := r.Bytes()
	if n := testing.AllocsPerRun(10, func() { a(); b() }); n != 0 {
		t.Fatalf("alternating intervals allocate %v times", n)
	}
	if len(r.blocks)+len(r.spare) != 80 || r.Bytes() != held {
		t.Fatalf("holds %d blocks (%d spare), %d bytes, was %d", len(r.blocks)+len(r.spare), len(r.spare), r.Bytes(), held)
	}
	r.Record(1000)
	r.Reset() // a narrow interval: the spares shrink to spareBlocks
	if len(r.blocks) != 1 || len(r.spare) != spareBlocks {
		t.Fatalf("after a narrow interval: %d blocks, %d spare", len(r.blocks), len(r.spare))
	}
}

func TestRecordingRecordDoesNotAllocate(t *testing.T) {
	r := NewRecording()
	r.Record(123456) // the first value in a block allocates it
	if n := testing.AllocsPerRun(1000, func() { r.Record(123456) }); n != 0 {
		t.Fatalf("Record allocates %v times", n)
	}
}

// A bin that counts past 16 bits carries exactly, and Reset clears the carries.
func TestRecordingCarries(t *testing.T) {
	r := NewRecording()
	const n = 3<<16 + 5
	for range n {
		r.Record(1500)
	}
	r.Record(1501)
	h := NewHistogram()
	h.MergeRecording(r)
	if h.Count() != n+1 || h.ValueAtPercentile(50) != 1500 || h.Max() != 1501 {
		t.Fatalf("count %d, p50 %d, max %d", h.Count(), h.ValueAtPercentile(50), h.Max())
	}
	r.Reset()
	r.Record(1500)
	h.Reset()
	h.MergeRecording(r)
	if h.Count() != 1 {
		t.Fatalf("after Reset the carries remain: count %d", h.Count())
	}
}

// BenchmarkRecord records long-tailed latencies into a Histogram and into a Recording.
func BenchmarkRecord(b *testing.B) {
	values := logNormal(rand.New(rand.NewPCG(7, 8)), 1<<16)
	for _, bc := range []struct {
		name   string
		record func(int64)
	}{{"histogram", NewHistogram().Record}, {"recording", NewRecording().Record}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bc.record(values[i&(len(values)-1)])
				i++
			}
		})
	}
}
