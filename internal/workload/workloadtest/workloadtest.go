// Package workloadtest holds what the workloads' tests share: a run of a workload that collects
// its steps and the checks of the scale presets' memory caps. The embedded engines they run on
// are embeddedtest.Drivers.
package workloadtest

import (
	"context"
	"io"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// Run runs w on eng with rn (nil: a runner on the system clock), its log discarded, and returns
// every step it emitted, in order, with Run's error.
func Run(ctx context.Context, w workload.Workload, eng engine.Engine, rn *runner.Runner) ([]*result.Step, error) {
	if rn == nil {
		rn = &runner.Runner{Clock: runner.SystemClock()}
	}
	var steps []*result.Step
	err := w.Run(ctx, workload.Env{Log: io.Discard, Runner: rn}, eng, func(s *result.Step) { steps = append(steps, s) })
	return steps, err
}
