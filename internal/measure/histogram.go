// Package measure holds what the runner and the workloads measure with: latency histograms
// (HdrHistogram's bins, nanosecond resolution) and their summaries in the result model.
package measure

import (
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// Bounds of a latency Histogram. Values are nanoseconds, recorded with 3 significant digits
// (0.1% resolution; exact below 2048 ns). A value above HighestNs is recorded as HighestNs, so
// percentiles saturate at one hour, while Max and Mean stay exact: they are tracked beside the
// bins. A negative value is recorded as 0.
const (
	LowestNs  int64 = 1
	HighestNs int64 = int64(time.Hour)
	SigFigs         = 3
)

// Histogram is a latency distribution in nanoseconds: the bins of an HdrHistogram of LowestNs,
// HighestNs and SigFigs, whose percentiles it computes as hdrhistogram-go does, plus the exact
// maximum and sum of the recorded values. Its bins are a Recording's, allocated when a value
// first falls in them: a few KB to a few tens of KB where hdrhistogram-go allocates about
// 270 KB for the whole range, so that the runner's aggregates per step, interval and operation
// type stay small. It is not safe for concurrent use. Record allocates only when a value
// falls in a block of bins that h does not hold and none is spare (see Recording).
type Histogram struct {
	r Recording
}

// NewHistogram returns an empty Histogram.
func NewHistogram() *Histogram { return &Histogram{r: newRecording()} }

// Record records one value in nanoseconds.
func (h *Histogram) Record(ns int64) { h.r.Record(ns) }

// RecordDuration records one duration.
func (h *Histogram) RecordDuration(d time.Duration) { h.r.Record(int64(d)) }

// Merge adds every value recorded in from to h.
func (h *Histogram) Merge(from *Histogram) {
	if from != nil {
		h.r.merge(&from.r)
	}
}

// MergeRecording adds every value recorded in from to h, bin by bin: the result is that of
// recording the same values in h.
func (h *Histogram) MergeRecording(from *Recording) { h.r.merge(from) }

// Reset empties h for reuse, keeping the bins that held a value (see Recording.Reset).
func (h *Histogram) Reset() { h.r.Reset() }

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.r.count }

// Max is the exact largest recorded value (0 when empty).
func (h *Histogram) Max() int64 { return h.r.max }

// Bytes is the memory h holds, for the harness's own accounting.
func (h *Histogram) Bytes() int { return h.r.Bytes() }

// Mean is the exact mean of the recorded values (0 when empty).
func (h *Histogram) Mean() float64 {
	if n := h.Count(); n > 0 {
		return float64(h.r.sum) / float64(n)
	}
	return 0
}

// ValueAtPercentile returns the value at percentile p (0..100): the largest value that
// (100-p)% of the values are at or above, at the histogram's resolution, never above Max.
// It is 0 when h is empty. It is hdrhistogram-go's ValueAtPercentile (v1.4.0): the highest
// value of the first bin at which the values counted reach p's rank, the lowest for p 0.
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	if h.Count() == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	rank := percentileRank(p, h.Count())
	var v, seen int64
	h.r.eachBin(func(i int, n int64) bool {
		if seen += n; seen < rank {
			return true
		}
		v = binHighest(i)
		if p == 0 {
			v = binLowest(i)
		}
		return false
	})
	return min(v, h.r.max)
}

// percentileRank is the number of values at or below percentile p (0..100) of total, at
// least 1, as hdrhistogram-go ranks it.
func percentileRank(p float64, total int64) int64 {
	rank := (p/100)*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// Us converts nanoseconds to microseconds.
func Us(ns int64) float64 { return float64(ns) / 1e3 }

// Summarize returns h's percentiles (the quartiles too), max and mean in microseconds and the
// share of values at or below each of result.BucketBoundsUs. An empty (or nil) histogram gives
// a zero Latency without quartiles or buckets.
func Summarize(h *Histogram) result.Latency {
	if h == nil || h.Count() == 0 {
		return result.Latency{}
	}
	l := result.Latency{
		P50:  Us(h.ValueAtPercentile(50)),
		P90:  Us(h.ValueAtPercentile(90)),
		P99:  Us(h.ValueAtPercentile(99)),
		P999: Us(h.ValueAtPercentile(99.9)),
		Max:  Us(h.r.max),
		Mean: h.Mean() / 1e3,
	}
	p25, p75 := Us(h.ValueAtPercentile(25)), Us(h.ValueAtPercentile(75))
	l.P25, l.P75 = &p25, &p75
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
	h.r.eachBin(func(i int, count int64) bool {
		for b < len(bounds) && float64(binLowest(i)) > bounds[b]*1e3 {
			out[b] = float64(n) / total
			b++
		}
		if b == len(bounds) {
			return false
		}
		n += count
		return true
	})
	for ; b < len(bounds); b++ {
		out[b] = float64(n) / total
	}
	for i, bound := range bounds {
		if float64(h.r.max) <= bound*1e3 {
			out[i] = 1 // exact: every value is at or below the bound
		}
	}
	return out
}

// RecordN records n (> 0) values of ns nanoseconds at once, clamped as Record clamps them:
// the result is that of n calls of Record.
func (h *Histogram) RecordN(ns, n int64) {
	if n > 0 {
		h.r.recordN(ns, n)
	}
}

// EachBin calls fn with the lowest and highest value and the count of every bin of h that
// holds a value, in the order of their values, until fn returns false. The bins are
// HdrHistogram's of LowestNs, HighestNs and SigFigs: an HdrHistogram of that geometry numbers
// them alike (package hdrlog writes them as HdrHistogram logs).
func (h *Histogram) EachBin(fn func(lowest, highest, count int64) bool) {
	h.r.eachBin(func(i int, n int64) bool { return fn(binLowest(i), binHighest(i), n) })
}

// SetExact sets the exact maximum and sum of h's values, for a histogram whose values were
// counted at their bins' resolution (read from an HdrHistogram log, package hdrlog) when the
// exact figures are known from elsewhere (the runs' totals): its Max, Mean and percentiles
// are then those of a Histogram of the values themselves.
func (h *Histogram) SetExact(maxNs, sumNs int64) { h.r.max, h.r.sum = maxNs, sumNs }
