package measure

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

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
