package merge

import (
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// TestSampleUsageLevels: a merged step's usage sums the sample's deltas over its seconds and
// keeps the last second's levels (sizes, resident memory, the CPUs' frequency), which a sum
// would make meaningless.
func TestSampleUsageLevels(t *testing.T) {
	start := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	st := &result.Step{Name: "qr100", StartedAt: start, Seconds: 2, Intervals: result.NewSeries()}
	smp := &Sample{rows: []sampleRow{
		{end: start.Add(time.Second), vals: map[string]float64{measure.KeyCPU: 1, measure.KeyFreqMHz: 3000, measure.KeyRSSMB: 10}},
		{end: start.Add(2 * time.Second), vals: map[string]float64{measure.KeyCPU: 2, measure.KeyFreqMHz: 2000, measure.KeyRSSMB: 12}},
	}}
	usage(st, nil, smp)
	for k, want := range map[string]float64{measure.KeyCPU: 3, measure.KeyFreqMHz: 2000, measure.KeyRSSMB: 12} {
		if got := st.Usage[k]; got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
}
