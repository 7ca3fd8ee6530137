// Package runnertest holds what the workloads' benchmarks share: a runner.Sampler of the
// process's own CPU time per step, which on the null engine is the harness's cost, and the
// client CPU per operation of a benchmark against a server.
package runnertest

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// processTimes returns the user and system CPU time this process has used: every thread,
// not its children (getrusage RUSAGE_SELF).
func processTimes() (user, sys time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// ProcessCPU returns the CPU time (user + system) this process has used, or 0 when it cannot
// be read.
func ProcessCPU() time.Duration {
	user, sys, err := processTimes()
	if err != nil {
		return 0
	}
	return user + sys
}

// ClientCPU is the CPU time this process has used since StartClientCPU. Against a server,
// which runs in processes of its own, it is the client's CPU.
type ClientCPU struct{ user, sys time.Duration }

// StartClientCPU reads this process's CPU times at the start of a benchmark's loop.
func StartClientCPU(b *testing.B) ClientCPU {
	b.Helper()
	user, sys, err := processTimes()
	if err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return ClientCPU{user, sys}
}

// Report reads the CPU times again at the end of the loop and reports the CPU used since the
// start per operation (b.N of them), in microseconds: client-us/op (user + system) and
// client-sys-us/op. It returns client-us/op, for metrics per unit of an operation.
func (c ClientCPU) Report(b *testing.B) float64 {
	b.Helper()
	user, sys, err := processTimes()
	if err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	perOp := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(b.N) }
	us := perOp(user - c.user + sys - c.sys)
	b.ReportMetric(us, "client-us/op")
	b.ReportMetric(perOp(sys-c.sys), "client-sys-us/op")
	return us
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

// Loop runs op b.N times and reports, beside ns/op, the allocations and this process's CPU time
// per op (cpu-ns/op: every thread's, an engine's background work included).
func Loop(b *testing.B, op func()) {
	b.ReportAllocs()
	b.ResetTimer()
	start := ProcessCPU()
	for range b.N {
		op()
	}
	used := ProcessCPU() - start
	b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// PairOrder is the order in which a benchmark runs the two things it compares, each twice as
// sub-benchmarks (the second run's name ends in #01): what they run on drifts as the benchmark
// goes (caches warm, an LSM's debt grows with the writes), and each is first and last once.
func PairOrder(a, b string) []string { return []string{a, b, b, a} }
