package measure

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/result"
)

// near reports whether got is within the histogram's resolution (0.1%, plus 1 ns) of want.
func near(got, want float64) bool {
	return math.Abs(got-want) <= want*1e-3+1e-3
}

func TestSummarizeKnownData(t *testing.T) {
	tests := []struct {
		name    string
		values  []int64 // ns
		want    result.Latency
		buckets []float64
	}{
		{
			name:   "1..1000us",
			values: seq(1000, 1000, 1000),
			want:   result.Latency{P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000, Mean: 500.5},
			// 256 of 1000 values are <= 256us; all are <= 1ms.
			buckets: []float64{0.256, 1, 1, 1, 1, 1, 1, 1, 1},
		},
		{
			name:    "sub-microsecond exact",
			values:  seq(1, 1, 1000), // 1..1000 ns: below 2048 ns the histogram is exact
			want:    result.Latency{P50: 0.5, P90: 0.9, P99: 0.99, P999: 0.999, Max: 1, Mean: 0.5005},
			buckets: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1},
		},
		{
			name: "one slow outlier among 999 fast",
			values: append(func() []int64 {
				v := make([]int64, 999)
				for i := range v {
					v[i] = int64(time.Millisecond)
				}
				return v
			}(), int64(2*time.Second)),
			want:    result.Latency{P50: 1000, P90: 1000, P99: 1000, P999: 1000, Max: 2e6, Mean: (999*1e3 + 2e6) / 1000},
			buckets: []float64{0, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 1, 1},
		},
		{
			name:    "above the bound: percentiles clamp, max and mean stay exact",
			values:  []int64{int64(3 * time.Hour)},
			want:    result.Latency{P50: Us(HighestNs), P90: Us(HighestNs), P99: Us(HighestNs), P999: Us(HighestNs), Max: Us(int64(3 * time.Hour)), Mean: Us(int64(3 * time.Hour))},
			buckets: []float64{0, 0, 0, 0, 0, 0, 0, 0, 0},
		},
		{
			name:    "negative is zero",
			values:  []int64{-5, 0},
			want:    result.Latency{},
			buckets: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistogram()
			for _, v := range tt.values {
				h.Record(v)
			}
			if h.Count() != int64(len(tt.values)) {
				t.Fatalf("count %d, want %d", h.Count(), len(tt.values))
			}
			got := Summarize(h)
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"p50", got.P50, tt.want.P50}, {"p90", got.P90, tt.want.P90}, {"p99", got.P99, tt.want.P99},
				{"p999", got.P999, tt.want.P999}, {"max", got.Max, tt.want.Max}, {"mean", got.Mean, tt.want.Mean},
			} {
				if !near(c.got, c.want) {
					t.Errorf("%s = %v us, want %v", c.what, c.got, c.want)
				}
			}
			if got.Max != tt.want.Max {
				t.Errorf("max %v is not exact: want %v", got.Max, tt.want.Max)
			}
			if len(got.Buckets) != len(result.BucketBoundsUs) {
				t.Fatalf("buckets %v", got.Buckets)
			}
			for i := range got.Buckets {
				if math.Abs(got.Buckets[i]-tt.buckets[i]) > 1e-9 {
					t.Errorf("buckets %v, want %v", got.Buckets, tt.buckets)
					break
				}
			}
		})
	}
}

func TestSummarizeEmpty(t *testing.T) {
	for _, h := range []*Histogram{nil, NewHistogram()} {
		if got := Summarize(h); got.P50 != 0 || got.Max != 0 || got.Buckets != nil {
			t.Errorf("Summarize(empty) = %+v", got)
		}
	}
}

// The merge of two histograms has exactly the distribution of one histogram of the union.
func TestMergeIsUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		a, b []int64
	}{
		{"disjoint ranges", seq(1000, 1000, 500), seq(600_000, 1000, 500)},
		{"interleaved lognormal", logNormal(rng, 5000), logNormal(rng, 3000)},
		{"one empty", seq(10, 7, 100), nil},
		{"extremes", []int64{0, 1, 2047, 2048}, []int64{int64(time.Hour), int64(2 * time.Hour)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, all := NewHistogram(), NewHistogram(), NewHistogram()
			for _, v := range tt.a {
				a.Record(v)
				all.Record(v)
			}
			for _, v := range tt.b {
				b.Record(v)
				all.Record(v)
			}
			a.Merge(b)
			if a.Count() != all.Count() || a.Max() != all.Max() || a.Mean() != all.Mean() {
				t.Fatalf("merged count/max/mean %d/%d/%v, union %d/%d/%v",
					a.Count(), a.Max(), a.Mean(), all.Count(), all.Max(), all.Mean())
			}
			for _, p := range []float64{0, 1, 25, 50, 90, 99, 99.9, 99.99, 100} {
				if g, w := a.ValueAtPercentile(p), all.ValueAtPercentile(p); g != w {
					t.Errorf("p%v: merged %d, union %d", p, g, w)
				}
			}
			sa, sall := Summarize(a), Summarize(all)
			for i := range sall.Buckets {
				if sa.Buckets[i] != sall.Buckets[i] {
					t.Errorf("buckets %v, union %v", sa.Buckets, sall.Buckets)
					break
				}
			}
		})
	}
}

func TestResetAndReuse(t *testing.T) {
	h := NewHistogram()
	h.Record(int64(time.Second))
	h.Reset()
	if h.Count() != 0 || h.Max() != 0 || h.Mean() != 0 || h.ValueAtPercentile(99) != 0 {
		t.Fatalf("after Reset: count %d max %d", h.Count(), h.Max())
	}
	h.RecordDuration(time.Millisecond)
	if got := Summarize(h); got.Max != 1000 || !near(got.P50, 1000) {
		t.Fatalf("after reuse: %+v", got)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	h := NewHistogram()
	if n := testing.AllocsPerRun(1000, func() { h.Record(123456) }); n != 0 {
		t.Fatalf("Record allocates %v times", n)
	}
}

// seq returns n values start, start+step, ...
func seq(start, step int64, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = start + int64(i)*step
	}
	return v
}

// logNormal returns n latency-like values around 100us with a long tail.
func logNormal(rng *rand.Rand, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(math.Exp(rng.NormFloat64()*1.5) * 1e5)
	}
	return v
}

// newHdr returns an HdrHistogram of a Histogram's geometry, the reference it is checked against.
func newHdr() *hdrhistogram.Histogram { return hdrhistogram.New(LowestNs, HighestNs, SigFigs) }

// denseBins returns h's counts as the HdrHistogram holds them, one per bin of its whole range.
func denseBins(h *Histogram) []int64 {
	counts := make([]int64, len(newHdr().Export().Counts))
	h.r.eachBin(func(i int, n int64) bool {
		counts[i] = n
		return true
	})
	return counts
}

// hdrSummary is Summarize computed by hdrhistogram-go from the same values (its percentiles,
// never above the exact max, and the buckets from its Distribution): what the summaries were
// when the Histograms were HdrHistograms.
func hdrSummary(values []int64) result.Latency {
	h := newHdr()
	var maxNs, sum int64
	for _, v := range values {
		v = max(v, 0)
		maxNs = max(maxNs, v)
		sum += v
		_ = h.RecordValue(min(v, HighestNs))
	}
	pct := func(p float64) float64 { return Us(min(h.ValueAtPercentile(p), maxNs)) }
	l := result.Latency{P50: pct(50), P90: pct(90), P99: pct(99), P999: pct(99.9), Max: Us(maxNs),
		Mean: float64(sum) / float64(len(values)) / 1e3}
	p25, p75 := pct(25), pct(75)
	l.P25, l.P75 = &p25, &p75
	bounds := result.BucketBoundsUs
	l.Buckets = make([]float64, len(bounds))
	var n int64
	b := 0
	for _, bar := range h.Distribution() {
		for b < len(bounds) && float64(bar.From) > bounds[b]*1e3 {
			l.Buckets[b] = float64(n) / float64(h.TotalCount())
			b++
		}
		if b == len(bounds) {
			break
		}
		n += bar.Count
	}
	for ; b < len(bounds); b++ {
		l.Buckets[b] = float64(n) / float64(h.TotalCount())
	}
	for i, bound := range bounds {
		if float64(maxNs) <= bound*1e3 {
			l.Buckets[i] = 1
		}
	}
	return l
}

// A Histogram has the bins of an HdrHistogram of the same values and computes the same
// percentiles (every one, not only those summarized), summaries and buckets, on random
// long-tailed data from below a microsecond to beyond the range, directly and when merged
// from Recordings and Histograms of parts of the values.
func TestHistogramMatchesHdrHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pareto := func(n int, scale, alpha float64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(scale / math.Pow(1-rng.Float64(), 1/alpha))
		}
		return v
	}
	lognormal := func(n int, median, sigma float64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(math.Exp(rng.NormFloat64()*sigma) * median)
		}
		return v
	}
	tests := []struct {
		name   string
		values []int64
	}{
		{"lognormal 200us sigma 2", lognormal(50_000, 2e5, 2)},
		{"lognormal 500ns sigma 0.5 (carries)", lognormal(300_000, 500, 0.5)},
		{"lognormal 1ms sigma 4 (clamped)", lognormal(20_000, 1e6, 4)},
		{"pareto 1us alpha 1.1", pareto(50_000, 1e3, 1.1)},
		{"pareto 50us alpha 0.5", pareto(10_000, 5e4, 0.5)},
		{"few", lognormal(3, 1e5, 2)},
		{"one", []int64{123_456_789}},
	}
	pcts := []float64{-1, 0, 1e-9, 0.001, 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 99.999, 100, 101}
	for range 50 {
		pcts = append(pcts, rng.Float64()*100)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := newHdr()
			var maxNs int64
			direct, merged, parts := NewHistogram(), NewHistogram(), NewHistogram()
			recs := []*Recording{NewRecording(), NewRecording(), NewRecording()}
			for i, v := range tt.values {
				_ = ref.RecordValue(min(max(v, 0), HighestNs))
				maxNs = max(maxNs, v)
				direct.Record(v)
				recs[i%len(recs)].Record(v)
			}
			for i, r := range recs {
				part := NewHistogram()
				part.MergeRecording(r)
				merged.MergeRecording(r)
				if i%2 == 0 {
					parts.Merge(part)
				} else {
					parts.MergeRecording(r)
				}
			}
			want := hdrSummary(tt.values)
			for name, h := range map[string]*Histogram{"direct": direct, "merged": merged, "parts": parts} {
				if !slices.Equal(denseBins(h), ref.Export().Counts) {
					t.Fatalf("%s: the bins differ from the HdrHistogram's", name)
				}
				for _, p := range pcts {
					if got, w := h.ValueAtPercentile(p), min(ref.ValueAtPercentile(p), maxNs); got != w {
						t.Errorf("%s: p%v = %d, HdrHistogram %d", name, p, got, w)
					}
				}
				if got := Summarize(h); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: summary %+v\nHdrHistogram's %+v", name, got, want)
				}
			}
		})
	}
}

// A Histogram holds only the bins its values fall in.
func TestHistogramIsSmall(t *testing.T) {
	h := NewHistogram()
	for _, v := range logNormal(rand.New(rand.NewPCG(9, 10)), 100_000) {
		h.Record(v)
	}
	if full := newHdr().ByteSize(); h.Bytes() > full/4 {
		t.Fatalf("histogram of 100,000 long-tailed values: %d bytes, HdrHistogram %d", h.Bytes(), full)
	}
}

// RecordN(v, n) is n calls of Record(v), also for counts past a bin's 16-bit first form, and
// EachBin gives back every bin with its bounds and count.
func TestRecordNIsNRecords(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for i, v := range []int64{0, 5, 2047, 2048, 123456, 123457, int64(time.Second), HighestNs + 5} {
		n := int64(1 + i*30000)
		a.RecordN(v, n)
		for range n {
			b.Record(v)
		}
	}
	if a.Count() != b.Count() || a.Max() != b.Max() || a.Mean() != b.Mean() {
		t.Fatalf("RecordN: count %d max %d mean %v; Record: %d %d %v", a.Count(), a.Max(), a.Mean(), b.Count(), b.Max(), b.Mean())
	}
	for _, p := range []float64{0, 10, 50, 90, 99, 99.99, 100} {
		if a.ValueAtPercentile(p) != b.ValueAtPercentile(p) {
			t.Errorf("p%v: %d, want %d", p, a.ValueAtPercentile(p), b.ValueAtPercentile(p))
		}
	}
	var bins, total int64
	a.EachBin(func(lowest, highest, n int64) bool {
		if lowest > highest || binIndex(lowest) != binIndex(highest) || n <= 0 {
			t.Errorf("bin %d..%d count %d", lowest, highest, n)
		}
		bins++
		total += n
		return true
	})
	if bins != 7 || total != a.Count() { // 123456 and 123457 share a bin
		t.Errorf("EachBin: %d bins of %d values, want 7 of %d", bins, total, a.Count())
	}
}

// The quartiles come from the same histogram as the other percentiles: p25 and p75 of known
// values, none of an empty histogram, and p25 <= p50 <= p75 <= p99 on a long-tailed sample.
func TestSummarizeQuartiles(t *testing.T) {
	tests := []struct {
		name     string
		values   []int64 // ns
		p25, p75 float64 // us
	}{
		{"1..1000us", seq(1000, 1000, 1000), 250, 750},
		{"sub-microsecond exact", seq(1, 1, 1000), 0.25, 0.75},
		{"three quarters fast", append(seq(int64(time.Millisecond), 0, 750), seq(int64(time.Second), 0, 250)...), 1000, 1000},
		{"a quarter fast", append(seq(int64(time.Millisecond), 0, 250), seq(int64(time.Second), 0, 750)...), 1000, 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistogram()
			for _, v := range tt.values {
				h.Record(v)
			}
			got := Summarize(h)
			if got.P25 == nil || got.P75 == nil {
				t.Fatalf("no quartiles: %+v", got)
			}
			if !near(*got.P25, tt.p25) || !near(*got.P75, tt.p75) {
				t.Errorf("p25 %v p75 %v us, want %v and %v", *got.P25, *got.P75, tt.p25, tt.p75)
			}
		})
	}
	if got := Summarize(NewHistogram()); got.P25 != nil || got.P75 != nil {
		t.Errorf("empty histogram has quartiles %v %v", got.P25, got.P75)
	}
	h := NewHistogram()
	for _, v := range logNormal(rand.New(rand.NewPCG(3, 4)), 10000) {
		h.Record(v)
	}
	l := Summarize(h)
	if !(*l.P25 <= l.P50 && l.P50 <= *l.P75 && *l.P75 <= l.P99 && l.P99 <= l.Max) || *l.P25 >= *l.P75 {
		t.Errorf("quartiles out of order: p25 %v p50 %v p75 %v p99 %v max %v", *l.P25, l.P50, *l.P75, l.P99, l.Max)
	}
}
