package plan

import (
	"fmt"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/workload"
)

// checkWarmup checks --exclude-warmup against the steps of w that run for a duration, where
// w knows them (workload.Timed): a warm-up must be shorter than each of them, and a run with
// none has nothing to leave a warm-up out of. A sharded run cannot leave one out: the merge
// of its shards' steps counts from each step's start.
func checkWarmup(warmup float64, w workload.Benchmark, sharded bool) error {
	if warmup == 0 {
		return nil
	}
	if !(warmup > 0) || warmup > maxSeconds {
		return fmt.Errorf("--exclude-warmup %v: want 0 (none) or more seconds", warmup)
	}
	if sharded {
		return fmt.Errorf("--exclude-warmup %v: not with --shard: enginebench merge counts each shard's steps from their start", warmup)
	}
	t, ok := w.(workload.Timed)
	if !ok {
		return nil
	}
	steps := t.TimedSteps()
	if len(steps) == 0 {
		return fmt.Errorf("--exclude-warmup %v: no step of this %s run runs for a duration, so none has a warm-up to leave out "+
			"(docs/results.md, Warm-up)", warmup, w.Name())
	}
	for _, s := range steps {
		if s.Duration.Seconds() <= warmup {
			return fmt.Errorf("--exclude-warmup %v: step %s runs for %s, which the warm-up would take whole: want fewer seconds than every step it applies to",
				warmup, s.Name, numfmt.Seconds(s.Duration.Seconds()))
		}
	}
	return nil
}

// maxSeconds bounds a number of seconds that becomes a time.Duration (292 years); a billion is
// 31 years.
const maxSeconds = 1e9
