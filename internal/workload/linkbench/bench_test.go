package linkbench

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

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
			cpu := runnertest.NewCPU()
			steps, err := runOn(b, ctx, w, eng, cpu)
			if err != nil {
				b.Fatal(err)
			}
			run := steps[len(steps)-1].Ops["requests"]
			b.ReportMetric(float64(cpu.Used["run.1"].Nanoseconds())/float64(run.Count), "cpu-ns/request")
			b.ReportMetric(run.PerSec, "requests/s")
			load := steps[0].Ops["link"]
			b.ReportMetric(float64(cpu.Used["load"].Nanoseconds())/float64(load.Units), "load-cpu-ns/link")
		})
	}
}
