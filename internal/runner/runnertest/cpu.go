// Package runnertest holds what the workloads' benchmarks share: a runner.Sampler of the
// process's own CPU time per step, which on the null engine is the harness's cost.
package runnertest

import (
	"context"
	"syscall"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// ProcessCPU returns the CPU time (user + system) this process has used, or 0 when it cannot
// be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CPU is a runner.Sampler that records the process's CPU time used by each step, by step name.
type CPU struct {
	begin time.Duration
	Used  map[string]time.Duration
}

// NewCPU returns an empty CPU sampler.
func NewCPU() *CPU { return &CPU{Used: map[string]time.Duration{}} }

// Begin implements runner.Sampler.
func (c *CPU) Begin(context.Context, time.Time) { c.begin = ProcessCPU() }

// Sample implements runner.Sampler: it adds nothing to the intervals.
func (c *CPU) Sample(context.Context, time.Time) map[string]float64 { return nil }

// End implements runner.Sampler.
func (c *CPU) End(_ context.Context, _ time.Time, res *result.Step) {
	c.Used[res.Name] = ProcessCPU() - c.begin
}
