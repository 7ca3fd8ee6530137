package sqldb

import (
	"context"
	"syscall"
	"testing"

	"github.com/prometheus/procfs"

	"github.com/enginebench/enginebench/internal/engine"
)

// BenchmarkServerCounters is what one reading of the server's own counters costs, as a run's
// sampler takes one a second (and at each step's start and end): the client's and the
// server's CPU microseconds per reading, on each managed server. At one reading a second the
// sampler's share of a CPU is (client + server µs) / 10^6 (docs/performance.md, What the
// server's counters cost).
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
			pid := e.server().ServerPID()
			client0, server0 := ownCPU(b), treeCPU(b, pid)
			b.ResetTimer()
			for b.Loop() {
				if _, err := sc.ServerCounters(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric((ownCPU(b)-client0)*1e6/n, "client-cpu-us/reading")
			b.ReportMetric((treeCPU(b, pid)-server0)*1e6/n, "server-cpu-us/reading")
		})
	}
}

// ownCPU is this process's CPU seconds, user and system.
func ownCPU(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// treeCPU is the CPU seconds of the server process pid and its children (PostgreSQL's
// backends), the reaped ones included.
func treeCPU(b *testing.B, pid int) float64 {
	procs, err := procfs.AllProcs()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || (p.PID != pid && st.PPID != pid) {
			continue
		}
		sum += st.CPUTime()
		if p.PID == pid {
			sum += float64(st.CUTime+st.CSTime) / 100 // USER_HZ
		}
	}
	return sum
}
