package hdrlog

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

var t0 = time.Date(2026, 11, 24, 15, 0, 0, 123e6, time.UTC)

var percentiles = []float64{1, 10, 50, 90, 99, 99.9, 99.99, 100}

// libLog is what hdrhistogram-go's own log reader reads in a log: per tag, the intervals'
// counts in order and all of them merged.
type libLog struct {
	counts map[string][]int64
	merged map[string]*hdrhistogram.Histogram
	starts []int64
}

// readWithLibrary reads the log at path with hdrhistogram-go's HistogramLogReader.
func readWithLibrary(t *testing.T, path string) libLog {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := libLog{counts: map[string][]int64{}, merged: map[string]*hdrhistogram.Histogram{}}
	lr := hdrhistogram.NewHistogramLogReader(f)
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h == nil {
			return l
		}
		tag := h.Tag()
		if l.merged[tag] == nil {
			l.merged[tag] = hdrhistogram.New(measure.LowestNs, measure.HighestNs, measure.SigFigs)
		}
		l.merged[tag].Merge(h)
		l.counts[tag] = append(l.counts[tag], h.TotalCount())
		l.starts = append(l.starts, h.StartTimeMs())
	}
}

// checkPercentiles fails unless the library's histogram lib has the percentiles of want
// (microseconds, as run.json has them), which are measure's of the same values: the
// library's value capped at the exact maximum maxUs, which the log's bins do not keep.
func checkPercentiles(t *testing.T, what string, lib *hdrhistogram.Histogram, want result.Latency) {
	t.Helper()
	maxNs := int64(want.Max * 1e3)
	for _, c := range []struct {
		p    float64
		want float64
	}{{50, want.P50}, {90, want.P90}, {99, want.P99}, {99.9, want.P999}} {
		if got := measure.Us(min(lib.ValueAtPercentile(c.p), maxNs)); got != c.want {
			t.Errorf("%s p%v: the log read by hdrhistogram-go gives %vus, the step %vus", what, c.p, got, c.want)
		}
	}
	if lib.Max() < maxNs || !lib.ValuesAreEquivalent(lib.Max(), maxNs) {
		t.Errorf("%s max: log %d ns, step %d ns", what, lib.Max(), maxNs)
	}
}

// tickSignal is a runner.Sampler that tells the workers when the runner has ticked: it
// samples after it collected the interval's records.
type tickSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newTickSignal() *tickSignal { return &tickSignal{ch: make(chan struct{})} }

// next returns the channel that the next tick closes.
func (s *tickSignal) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

func (*tickSignal) Begin(context.Context, time.Time)             {}
func (*tickSignal) End(context.Context, time.Time, *result.Step) {}
func (s *tickSignal) Sample(context.Context, time.Time) map[string]float64 {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// A step's logs, read back with hdrhistogram-go's own log reader, give every interval's count
// and the step's counts and percentiles of service and response time, as the runner's
// aggregates give them; read with Reader, the same.
func TestRunnerLogsReadBackByTheLibrary(t *testing.T) {
	c := runner.NewManualClock(t0)
	root := t.TempDir()
	var mu sync.Mutex // one operation at a time, each timed alone
	const clients, perClient, block = 3, 4000, 500
	tick := newTickSignal()
	var workers []runner.Worker
	for cl := range clients {
		rng := rand.New(rand.NewPCG(uint64(cl), 7))
		workers = append(workers, runner.Worker{Client: cl, Run: func(ctx context.Context, rec *runner.Recorder) error {
			for i := range perClient {
				if i%block == block-1 { // the next block in a later interval
					select {
					case <-tick.next():
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				mu.Lock()
				op, intended := runner.Op(0), time.Time{}
				if i%3 == 0 { // an open-loop insert, started late
					op, intended = 1, c.Now().Add(-time.Duration(rng.IntN(5e6)))
				}
				err := rec.Do(op, intended, func() (int64, error) {
					c.Advance(time.Duration(rng.ExpFloat64()*float64(200*time.Microsecond)) + time.Microsecond)
					return 1, nil
				})
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			return nil
		}})
	}
	r := &runner.Runner{Clock: c, Tick: time.Millisecond, Config: "pg/a1", Histograms: NewDir(root),
		Samplers: []runner.Sampler{tick}}
	res := r.Run(context.Background(), runner.Step{Name: "l.i1", Workers: workers,
		Ops: []runner.OpSpec{{Name: "query"}, {Name: "insert"}, {Name: "idle"}}})
	if res.Status != result.StatusOK || len(res.Notes) != 0 {
		t.Fatalf("step %s %s, notes %q", res.Status, res.Error, res.Notes)
	}
	if _, err := os.Stat(Path(root, "pg/a1", "l.i1", "idle")); !os.IsNotExist(err) {
		t.Errorf("an operation that measured nothing has a log: %v", err)
	}
	for _, op := range []string{"query", "insert"} {
		path := filepath.Join(root, "pg_a1", "l.i1", op+".hlog")
		lib := readWithLibrary(t, path)
		want := res.Ops[op]
		if got := lib.merged[""].TotalCount(); got != want.Count || got == 0 {
			t.Fatalf("%s: the log counts %d operations, the step %d", op, got, want.Count)
		}
		checkPercentiles(t, op+" service time", lib.merged[""], want.Latency)
		if op == "insert" {
			if lib.merged[TagResponse].TotalCount() != want.Count {
				t.Fatalf("insert response time: %d in the log, %d in the step", lib.merged[TagResponse].TotalCount(), want.Count)
			}
			checkPercentiles(t, "insert response time", lib.merged[TagResponse], *want.Response)
		} else if lib.merged[TagResponse] != nil {
			t.Errorf("a closed-loop operation has response times in its log")
		}
		var ivs []int64
		for i := range res.Intervals.Len() {
			if o, ok := res.Intervals.Op(i, op); ok && o.Count > 0 {
				ivs = append(ivs, o.Count)
			}
		}
		if !slices.Equal(lib.counts[""], ivs) || len(ivs) < perClient/block {
			t.Errorf("%s: counts of the intervals: log %v, step %v", op, lib.counts[""], ivs)
		}
		if lib.starts[0] != t0.UnixMilli() {
			t.Errorf("%s: first interval starts at %d ms, the step at %d", op, lib.starts[0], t0.UnixMilli())
		}
		// Our reader reads the same.
		ours := readOurs(t, path)
		if ours[""].Count() != want.Count || measure.Us(min(ours[""].ValueAtPercentile(99), int64(want.Latency.Max*1e3))) != want.Latency.P99 {
			t.Errorf("%s: Reader gives %d operations, p99 %d ns; the step %d, %vus", op, ours[""].Count(),
				ours[""].ValueAtPercentile(99), want.Count, want.Latency.P99)
		}
	}
}

// readOurs reads the log at path with Reader and merges its intervals by tag.
func readOurs(t *testing.T, path string) map[string]*measure.Histogram {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*measure.Histogram{}
	r := NewReader(bytes.NewReader(b))
	for {
		iv, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if out[iv.Tag] == nil {
			out[iv.Tag] = measure.NewHistogram()
		}
		out[iv.Tag].Merge(iv.Hist)
	}
}

// libraryLog writes, with hdrhistogram-go's own log writer, a log of seconds intervals of
// random latencies from start, every other one also with a tagged line, into a histogram of
// geometry lowest, highest and sig; relative logs have a base time and timestamps relative to
// it. It returns the log and the library's merge of its histograms by tag.
func libraryLog(t *testing.T, seed uint64, start time.Time, seconds int, lowest, highest int64, sig int, relative bool) ([]byte, map[string]*hdrhistogram.Histogram) {
	t.Helper()
	var buf bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&buf)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(lw.OutputLogFormatVersion())
	must(lw.OutputStartTime(start.UnixMilli()))
	if relative {
		lw.SetBaseTime(start.UnixMilli())
		must(lw.OutputBaseTime(start.UnixMilli()))
	}
	must(lw.OutputLegend())
	rng := rand.New(rand.NewPCG(seed, 1))
	merged := map[string]*hdrhistogram.Histogram{}
	for s := range seconds {
		for _, tag := range []string{"", "rt"} {
			if tag != "" && s%2 == 1 {
				continue
			}
			h := hdrhistogram.New(lowest, highest, sig)
			for range 500 + rng.IntN(2000) {
				must(h.RecordValue(int64(rng.ExpFloat64()*float64(3*time.Millisecond)) + int64(rng.IntN(1e5))))
			}
			h.SetTag(tag)
			h.SetStartTimeMs(start.Add(time.Duration(s) * time.Second).UnixMilli())
			h.SetEndTimeMs(start.Add(time.Duration(s+1) * time.Second).UnixMilli())
			must(lw.OutputIntervalHistogram(h))
			if merged[tag] == nil {
				merged[tag] = hdrhistogram.New(lowest, highest, sig)
			}
			merged[tag].Merge(h)
		}
	}
	return buf.Bytes(), merged
}

// Logs written by hdrhistogram-go itself (absolute and relative timestamps, measure's geometry
// and a coarser one), read with Reader and merged bin by bin as measure.Histograms, give the
// counts and percentiles of the library's own merge, and the intervals' absolute times.
func TestReaderMergesLibraryLogs(t *testing.T) {
	for _, tc := range []struct {
		name            string
		lowest, highest int64
		sig             int
		relative        bool
	}{
		{"measure geometry, absolute", measure.LowestNs, measure.HighestNs, measure.SigFigs, false},
		{"measure geometry, relative", measure.LowestNs, measure.HighestNs, measure.SigFigs, true},
		{"coarser geometry", 1000, int64(10 * time.Second), 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// hdrhistogram-go writes the base time in whole seconds: a relative log's
			// timestamps are whole seconds after it.
			start := t0.Add(-time.Hour).Truncate(time.Second)
			ours := map[string]*measure.Histogram{}
			libMerged := map[string]*hdrhistogram.Histogram{}
			for shard := range 3 { // three hosts' logs of the same seconds
				log, merged := libraryLog(t, uint64(shard), start, 6, tc.lowest, tc.highest, tc.sig, tc.relative)
				for tag, h := range merged {
					if libMerged[tag] == nil {
						libMerged[tag] = hdrhistogram.New(tc.lowest, tc.highest, tc.sig)
					}
					libMerged[tag].Merge(h)
				}
				r := NewReader(bytes.NewReader(log))
				for i := 0; ; i++ {
					iv, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if iv.Start.Before(start) || iv.End.Sub(iv.Start) != time.Second || iv.Start.Sub(start)%time.Second != 0 {
						t.Fatalf("interval %d: %v to %v, the log starts at %v", i, iv.Start, iv.End, start)
					}
					if ours[iv.Tag] == nil {
						ours[iv.Tag] = measure.NewHistogram()
					}
					ours[iv.Tag].Merge(iv.Hist)
				}
			}
			for tag, lib := range libMerged {
				h := ours[tag]
				if h == nil || h.Count() != lib.TotalCount() {
					t.Fatalf("tag %q: %v values read, the library merged %d", tag, h, lib.TotalCount())
				}
				for _, p := range percentiles {
					if got, want := h.ValueAtPercentile(p), lib.ValueAtPercentile(p); got != want {
						t.Errorf("tag %q p%v: %d, the library's merge %d", tag, p, got, want)
					}
				}
				if h.Max() != lib.Max() {
					t.Errorf("tag %q max %d, the library's %d", tag, h.Max(), lib.Max())
				}
			}
		})
	}
}

// benchHistogram returns a histogram of n latencies of random distribution dist, scaled by
// scale: the benchmarks' operation seconds.
func benchHistogram(n int, scale time.Duration, dist func(*rand.Rand) float64) *measure.Histogram {
	h := measure.NewHistogram()
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		h.Record(int64(dist(rng) * float64(scale)))
	}
	return h
}

// exponential and wide are distributions of latencies: exponential, and the product of
// exponentials (a long tail, several thousand bins for 50,000 values).
func exponential(rng *rand.Rand) float64 { return rng.ExpFloat64() }
func wide(rng *rand.Rand) float64 {
	return rng.ExpFloat64() * (1 + 10*rng.ExpFloat64()*rng.ExpFloat64())
}

// processCPU returns the CPU time the process has used (user and system): the benchmarks
// report it per operation (cpu-ns/op), which, unlike ns/op, other processes on a shared
// machine do not inflate.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkWriterWrite measures a line of Writer: a second of an operation of 2,000
// latencies, exponential around 1 ms (about 1,700 bins; docs/performance.md, "A line of the
// hdr logs").
func BenchmarkWriterWrite(b *testing.B) {
	h := benchHistogram(2000, time.Millisecond, exponential)
	w, err := NewWriter(io.Discard, t0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPU(b)
	for b.Loop() {
		if err := w.Write("", t0, t0.Add(time.Second), h); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// BenchmarkLibraryWrite measures the line of BenchmarkWriterWrite written as Writer wrote it
// before it encoded lines itself: the bins converted through a reused hdrhistogram-go sparse
// histogram, which the library's log writer encodes.
func BenchmarkLibraryWrite(b *testing.B) {
	h := benchHistogram(2000, time.Millisecond, exponential)
	p := hdrhistogram.NewPacked(measure.LowestNs, measure.HighestNs, measure.SigFigs)
	lw := hdrhistogram.NewHistogramLogWriter(io.Discard)
	b.ReportAllocs()
	cpu0 := processCPU(b)
	for b.Loop() {
		p.Reset()
		h.EachBin(func(lowest, _, n int64) bool { return p.RecordValues(lowest, n) == nil })
		p.SetStartTimeMs(t0.UnixMilli())
		p.SetEndTimeMs(t0.Add(time.Second).UnixMilli())
		if err := lw.OutputIntervalPackedHistogram(p); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// BenchmarkEncoderLevels measures a line at zlib's levels, with its length (B/line), for
// operation seconds of 20, 2,000 and 50,000 latencies.
func BenchmarkEncoderLevels(b *testing.B) {
	for _, hc := range []struct {
		name string
		h    *measure.Histogram
	}{
		{"20", benchHistogram(20, 10*time.Millisecond, exponential)},
		{"2000", benchHistogram(2000, time.Millisecond, exponential)},
		{"50000_wide", benchHistogram(50000, 20*time.Microsecond, wide)},
	} {
		for _, level := range []int{zlib.NoCompression, zlib.HuffmanOnly, zlib.BestSpeed, zlib.DefaultCompression, zlib.BestCompression} {
			b.Run(fmt.Sprintf("values=%s/level=%d", hc.name, level), func(b *testing.B) {
				e, err := newEncoder(level)
				if err != nil {
					b.Fatal(err)
				}
				var line []byte
				b.ReportAllocs()
				cpu0 := processCPU(b)
				for b.Loop() {
					if line, err = e.interval("", t0, t0.Add(time.Second), hc.h); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu0)
				b.ReportMetric(float64(len(line)), "B/line")
			})
		}
	}
}
