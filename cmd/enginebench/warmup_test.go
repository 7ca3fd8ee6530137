package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// TestExcludeWarmupRecorded runs LinkBench's one interval of 3 s on Pebble with a warm-up of
// 1 s left out: run.json records it among the params and on the interval, whose measured time
// is what follows it, and the interval's steady verdict is unmeasured (two whole seconds are
// too few to test), saying why.
func TestExcludeWarmupRecorded(t *testing.T) {
	integration(t, "integration test")
	args, out := tinyArgs(t, "pebble", "--intervals", "1", "--interval-seconds", "3", "--requesters", "2",
		"--distribution-file", fewLinks(t), "--exclude-warmup", "1")
	runOK(t, slices.Insert(args, 1, "linkbench")...)
	run := loadRun(t, out)
	if run.Workload.Params["exclude_warmup_seconds"] != float64(1) {
		t.Errorf("params %v: no exclude_warmup_seconds", run.Workload.Params)
	}
	steps := run.Configs[0].Steps
	i := slices.IndexFunc(steps, func(s result.Step) bool { return s.Name == "run.1" })
	if i < 0 {
		t.Fatalf("no run.1 in %+v", steps)
	}
	s := steps[i]
	w := s.Warmup
	if w == nil || w.AskedSeconds != 1 || w.Seconds < 1 || w.Intervals < 1 {
		t.Fatalf("run.1 warmup %+v, want 1 s asked and left out", w)
	}
	if got := s.Seconds + w.Seconds; math.Abs(got-3) > 0.01 {
		t.Errorf("measured %v s after a warm-up of %v s, want 3 s in all", s.Seconds, w.Seconds)
	}
	if steps[0].Warmup != nil {
		t.Errorf("the load, which runs for no duration, left a warm-up out: %+v", steps[0].Warmup)
	}
	var steady *result.Verdict
	for k := range s.Verdicts {
		if s.Verdicts[k].Check == "steady" {
			steady = &s.Verdicts[k]
		}
	}
	if steady == nil || steady.State != result.VerdictUnmeasured || !strings.Contains(steady.Message, "at least 10") {
		t.Errorf("run.1's steady verdict %+v, want unmeasured with why", steady)
	}
}
