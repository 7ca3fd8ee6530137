package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/workload"
)

// timed is a workload whose steps of a duration are steps.
type timed struct {
	workload.Benchmark
	steps []workload.TimedStep
}

func (timed) Name() string                       { return "insert" }
func (w timed) TimedSteps() []workload.TimedStep { return w.steps }

// A warm-up must be shorter than every step it applies to; a run without such a step, a
// negative warm-up and a sharded run are refused; none (0) is always fine.
func TestCheckWarmup(t *testing.T) {
	qr := timed{steps: []workload.TimedStep{{Name: "qr100", Duration: 30 * time.Second}, {Name: "cap.N", Duration: 10 * time.Second}}}
	for _, c := range []struct {
		warmup  float64
		w       workload.Benchmark
		sharded bool
		want    string
	}{
		{0, timed{}, true, ""},
		{5, qr, false, ""},
		{10, qr, false, "step cap.N runs for 10"},
		{-1, qr, false, "want 0 (none) or more seconds"},
		{5, timed{}, false, "no step of this insert run runs for a duration"},
		{5, qr, true, "not with --shard"},
	} {
		err := checkWarmup(c.warmup, c.w, c.sharded)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkWarmup(%v, sharded %v): %v, want %q", c.warmup, c.sharded, err, c.want)
		}
	}
}
