package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// The progress lines' numbers: ordinary values keep their short form, and a value that rounds
// up to the next unit is shown in that unit (999,600/s is 1M/s, 999.6 µs is 1ms), never in
// exponent notation (issue 20).
func TestProgressNumbers(t *testing.T) {
	line := statusLine(Status{Step: "load", Elapsed: 90 * time.Second, Units: 999_600, ExpectUnits: 2_000_000, Rate: 999_600}, "  ", "  ")
	if want := "load  1M/s  1:30  1M/2M (50%)"; line != want {
		t.Errorf("status line %q, want %q", line, want)
	}
	per := &result.Period{End: 60, Ops: map[string]result.PeriodOp{
		"insert": {Count: 1, Units: 999_600, PerSec: 999_600, CumUnits: 999_600, CumPerSec: 999_600, Latency: result.Latency{P99: 999.6}}}}
	if got := periodLine("load", per); !strings.Contains(got, "insert 1M/s (cum 1M/s, p99 1ms)") {
		t.Errorf("period line %q", got)
	}
	done := &result.Step{Name: "load", Status: result.StatusOK, Seconds: 0.42, Ops: map[string]*result.Op{
		"insert": {Count: 1, Units: 10_000, PerSec: 9999.6, Latency: result.Latency{P99: 999_999.6}}}}
	if got, want := doneLine(done), "load: ok in 0.42s - insert 10k (10k/s, p99 1s)"; got != want {
		t.Errorf("done line %q, want %q", got, want)
	}
}
