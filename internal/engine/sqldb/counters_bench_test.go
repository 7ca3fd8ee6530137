package sqldb

import (
	"context"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// BenchmarkServerCounters is what one reading of the server's own counters costs, as a run's
// sampler takes one a second (and at each step's start and end): the client's and the
// server's CPU microseconds per reading, on each managed server, measured as a run measures a
// step (measure.OS: this process by getrusage, the server's process tree by /proc). At one
// reading a second the sampler's share of a CPU is (client + server µs) / 10^6
// (docs/performance.md, What the server's counters cost).
func BenchmarkServerCounters(b *testing.B) {
	for _, c := range serverCases() {
		b.Run(c.driver.Name, func(b *testing.B) {
			c.require(b)
			e := c.openManaged(b)
			sc := e.DB.(engine.ServerCounters)
			ctx := context.Background()
			if _, err := sc.ServerCounters(ctx); err != nil { // the pool's connection, warm
				b.Fatal(err)
			}
			acct, err := measure.NewOS(measure.OSOptions{DBPID: e.server().ServerPID()})
			if err != nil {
				b.Fatal(err)
			}
			acct.Begin(ctx, time.Now())
			b.ResetTimer()
			for b.Loop() {
				if _, err := sc.ServerCounters(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var st result.Step
			acct.End(ctx, time.Now(), &st)
			n := float64(b.N)
			b.ReportMetric(st.Usage[measure.KeyClientCPU]*1e6/n, "client-cpu-us/reading")
			b.ReportMetric(st.Usage[measure.KeyDBCPU]*1e6/n, "server-cpu-us/reading")
		})
	}
}
