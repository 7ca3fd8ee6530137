package insertbench

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// cpuTime returns the CPU time (user + system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runOnNull runs steps on the null engine and returns the steps' results and the CPU used.
func runOnNull(b *testing.B, p Params) ([]*result.Step, time.Duration) {
	b.Helper()
	if err := p.Validate(); err != nil {
		b.Fatal(err)
	}
	w := &Workload{p: p}
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		b.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var steps []*result.Step
	before := cpuTime(b)
	err = w.Run(context.Background(), env, eng, func(s *result.Step) { steps = append(steps, s) })
	used := cpuTime(b) - before
	if err != nil {
		b.Fatal(err)
	}
	return steps, used
}

// BenchmarkHarnessLoad measures the harness's CPU per inserted row in l.i0 (100-row batches)
// on the null engine: row generation, key encoding, recording and merging.
func BenchmarkHarnessLoad(b *testing.B) {
	p, _ := DefaultParams("tiny")
	p.Steps = []string{"l.i0"}
	p.Rows = max(int64(b.N), 100_000)
	steps, cpu := runOnNull(b, p)
	rows := steps[0].Ops["insert"].Units
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
	b.ReportMetric(steps[0].Ops["insert"].PerSec, "rows/s")
}

// benchmarkQuery measures the harness's CPU per query of a query step on the null engine
// (the background writer included).
func benchmarkQuery(b *testing.B, step string) {
	p, _ := DefaultParams("tiny")
	p.Rows = 1000
	p.QuerySeconds = 2
	// The query step's CPU is the whole run's less that of the steps before it.
	p.Steps = []string{"l.i0", "l.x"}
	_, setupCPU := runOnNull(b, p)
	p.Steps = []string{"l.i0", "l.x", step}
	steps, cpu := runOnNull(b, p)
	q := steps[2].Ops["query"]
	b.ReportMetric(float64((cpu-setupCPU).Nanoseconds())/float64(q.Units), "cpu-ns/query")
	b.ReportMetric(q.PerSec, "queries/s")
}

// BenchmarkHarnessRangeQuery is qr100 on the null engine.
func BenchmarkHarnessRangeQuery(b *testing.B) { benchmarkQuery(b, "qr100") }

// BenchmarkHarnessPointQuery is qp100 on the null engine.
func BenchmarkHarnessPointQuery(b *testing.B) { benchmarkQuery(b, "qp100") }
