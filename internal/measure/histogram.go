// Package measure holds what the runner and the workloads measure with: latency histograms
// (HdrHistogram, nanosecond resolution) and their summaries in the result model.
package measure

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/result"
)

// Bounds of a latency Histogram. Values are nanoseconds, recorded with 3 significant digits
// (0.1% resolution; exact below 2048 ns). A value above HighestNs is recorded as HighestNs, so
// percentiles saturate at one hour, while Max and Mean stay exact: they are tracked beside the
// HdrHistogram. A negative value is recorded as 0.
const (
	LowestNs  int64 = 1
	HighestNs int64 = int64(time.Hour)
	SigFigs         = 3
)

// Histogram is a latency distribution in nanoseconds: an HdrHistogram plus the exact maximum
// and sum of the recorded values. It is not safe for concurrent use. Record does not allocate.
// One Histogram takes about 270 KB: the runner keeps them per step and operation type, and
// its workers record into Recordings, which merge into them exactly (MergeRecording).
type Histogram struct {
	h   *hdrhistogram.Histogram
	max int64 // exact largest recorded value
	sum int64 // exact sum of the recorded values, for the mean
}

// NewHistogram returns an empty Histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(LowestNs, HighestNs, SigFigs)}
}

// Record records one value in nanoseconds.
func (h *Histogram) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	if ns > h.max {
		h.max = ns
	}
	h.sum += ns
	// Cannot fail: the value is within the histogram's range after clamping.
	_ = h.h.RecordValue(min(ns, HighestNs))
}

// RecordDuration records one duration.
func (h *Histogram) RecordDuration(d time.Duration) { h.Record(int64(d)) }

// Merge adds every value recorded in from to h.
func (h *Histogram) Merge(from *Histogram) {
	if from == nil || from.Count() == 0 {
		return
	}
	h.h.Merge(from.h) // same geometry: nothing is dropped
	h.max = max(h.max, from.max)
	h.sum += from.sum
}

// Reset empties h for reuse.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.max, h.sum = 0, 0
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Max is the exact largest recorded value (0 when empty).
func (h *Histogram) Max() int64 { return h.max }

// Mean is the exact mean of the recorded values (0 when empty).
func (h *Histogram) Mean() float64 {
	if n := h.Count(); n > 0 {
		return float64(h.sum) / float64(n)
	}
	return 0
}

// ValueAtPercentile returns the value at percentile p (0..100): the largest value that
// (100-p)% of the values are at or above, at the histogram's resolution, never above Max.
// It is 0 when h is empty.
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	if h.Count() == 0 {
		return 0
	}
	return min(h.h.ValueAtPercentile(p), h.max)
}

// Us converts nanoseconds to microseconds.
func Us(ns int64) float64 { return float64(ns) / 1e3 }

// Summarize returns h's percentiles, max and mean in microseconds and the share of values at
// or below each of result.BucketBoundsUs. An empty (or nil) histogram gives a zero Latency
// without buckets.
func Summarize(h *Histogram) result.Latency {
	if h == nil || h.Count() == 0 {
		return result.Latency{}
	}
	l := result.Latency{
		P50:  Us(h.ValueAtPercentile(50)),
		P90:  Us(h.ValueAtPercentile(90)),
		P99:  Us(h.ValueAtPercentile(99)),
		P999: Us(h.ValueAtPercentile(99.9)),
		Max:  Us(h.max),
		Mean: h.Mean() / 1e3,
	}
	l.Buckets = buckets(h)
	return l
}

// buckets returns the share of h's values at or below each bound of result.BucketBoundsUs in
// one pass over the distribution. Values in the resolution step (0.1%) that contains a bound
// count as at or below it.
func buckets(h *Histogram) []float64 {
	bounds := result.BucketBoundsUs
	out := make([]float64, len(bounds))
	total := float64(h.Count())
	var n int64
	b := 0
	for _, bar := range h.h.Distribution() {
		for b < len(bounds) && float64(bar.From) > bounds[b]*1e3 {
			out[b] = float64(n) / total
			b++
		}
		if b == len(bounds) {
			break
		}
		n += bar.Count
	}
	for ; b < len(bounds); b++ {
		out[b] = float64(n) / total
	}
	for i, bound := range bounds {
		if float64(h.max) <= bound*1e3 {
			out[i] = 1 // exact: every value is at or below the bound
		}
	}
	return out
}
