package linkbench

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
)

// cpuSampler records the process's CPU time (user + system) used by each step.
type cpuSampler struct {
	begin time.Duration
	used  map[string]time.Duration
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuSampler) Begin(context.Context, time.Time)                     { c.begin = cpuTime() }
func (c *cpuSampler) Sample(context.Context, time.Time) map[string]float64 { return nil }
func (c *cpuSampler) End(_ context.Context, _ time.Time, res *result.Step) {
	c.used[res.Name] = cpuTime() - c.begin
}

// BenchmarkHarnessRequests measures the harness's CPU per request of the fb2011 mix on the
// null engine: drawing the operation and its ids and payloads, key encoding, recording and
// merging. It runs requesters for a fixed time, so b.N does not scale it.
func BenchmarkHarnessRequests(b *testing.B) {
	for _, prof := range []string{"fb2011", "fb2017"} {
		b.Run(prof, func(b *testing.B) {
			ctx := context.Background()
			eng, err := null.Driver().Open(ctx, engineConfig())
			if err != nil {
				b.Fatal(err)
			}
			defer eng.Close()
			p, _ := DefaultParams("small")
			p.Profile = prof
			p.Requesters = 2
			p.Intervals, p.IntervalSeconds = 1, 3
			w, err := New(p)
			if err != nil {
				b.Fatal(err)
			}
			cpu := &cpuSampler{used: map[string]time.Duration{}}
			steps, err := runOn(b, ctx, w, eng, cpu)
			if err != nil {
				b.Fatal(err)
			}
			run := steps[len(steps)-1].Ops["requests"]
			b.ReportMetric(float64(cpu.used["run.1"].Nanoseconds())/float64(run.Count), "cpu-ns/request")
			b.ReportMetric(run.PerSec, "requests/s")
			load := steps[0].Ops["link"]
			b.ReportMetric(float64(cpu.used["load"].Nanoseconds())/float64(load.Units), "load-cpu-ns/link")
		})
	}
}
