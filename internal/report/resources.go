package report

import (
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// resColumns are the columns of the resources tables, as the Insert Benchmark's reports name
// them, with their getters: the data device's reads, MB read, writes and MB written a second,
// the host's context switches a second and us+sy CPU percentage, the client's share of the
// CPUs, the device's average wait per read and per write (ms), queue size and utilisation,
// and the DBMS's resident memory in GB at the step's end and at its peak.
var resColumns = []struct {
	name string
	get  func(s *result.Step) *float64
}{
	{"rps", resGet(func(r *result.Resources) *float64 { return r.Rps })},
	{"rmbps", resGet(func(r *result.Resources) *float64 { return r.RMBps })},
	{"wps", resGet(func(r *result.Resources) *float64 { return r.Wps })},
	{"wmbps", resGet(func(r *result.Resources) *float64 { return r.WMBps })},
	{"csps", resGet(func(r *result.Resources) *float64 { return r.CSps })},
	{"cpups", resGet(func(r *result.Resources) *float64 { return r.CPUps })},
	{"client%", resGet(func(r *result.Resources) *float64 { return r.ClientCPUPct })},
	{"r_await", resGet(func(r *result.Resources) *float64 { return r.RAwaitMs })},
	{"w_await", resGet(func(r *result.Resources) *float64 { return r.WAwaitMs })},
	{"aqu-sz", resGet(func(r *result.Resources) *float64 { return r.AquSz })},
	{"%util", resGet(func(r *result.Resources) *float64 { return r.UtilPct })},
	{"rss", func(s *result.Step) *float64 {
		return gb(resGet(func(r *result.Resources) *float64 { return r.RSSMB })(s))
	}},
	{"maxrss", func(s *result.Step) *float64 {
		return gb(eff(s, func(e *result.Efficiency) *float64 { return e.MaxRSSMB }))
	}},
}

// resourceLegend explains the resources and rate percentile columns in every summary.
var resourceLegend = []string{
	"Throughput p50, p99: of the step's per-second rates of its headline op (the step's whole seconds; none with fewer than 10), as the Insert Benchmark ranks them: p50 the median, p99 the rate that 99% of the seconds reached or exceeded (a low rate: the throughput's tail).",
	"Resources, per second of the step: rps, rmbps, wps, wmbps: reads, MB read, writes, MB written on the data directory's device; csps: the host's context switches (vmstat cs); cpups: the host's user+system CPU as % of all its CPUs (vmstat us+sy);",
	"  client%: the client's (the enginebench process's) CPU as % of all CPUs, for a server engine (an embedded engine is its own client: \"-\");",
	"  r_await, w_await: ms per read and per write on the device, queueing included; aqu-sz: requests queued or in service, on average; %util: % of the time the device was busy (iostat); rss, maxrss: GB resident in the DBMS's processes at the step's end and at its peak.",
}

// clientBoundMark marks the rate of a step whose client used more than the run's client CPU
// limit.
const clientBoundMark = "client-bound"

// clientLegend explains the client-bound mark for a run in which the client's share was
// measured (a server engine) or a step is marked, else nothing: an embedded engine has no
// client apart from itself.
func clientLegend(r *result.Run) []string {
	measured, bound := clientShares(r)
	if !measured && !bound {
		return nil
	}
	limit := "the run's limit (client_cpu_limit_pct in run.json)"
	if r.ClientCPULimitPct > 0 {
		limit = numfmt.Num(r.ClientCPULimitPct) + "%"
	} else if !bound {
		return nil
	}
	return []string{"client-bound: the client used more than " + limit +
		" of the CPUs (client%; --client-cpu-limit) or more than " + numfmt.Num(result.ClientSaturatedPct) +
		"% of the CPUs it may run on during the step: the client may have limited the engine, so the rate may be the client's, not the engine's."}
}

// clientShares reports whether a step of r has the client's share measured, and whether one
// is marked client-bound.
func clientShares(r *result.Run) (measured, bound bool) {
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			measured = measured || s.Resources != nil && s.Resources.ClientCPUPct != nil
			bound = bound || s.ClientBound
		}
	}
	return measured, bound
}

func resGet(f func(*result.Resources) *float64) func(*result.Step) *float64 {
	return func(s *result.Step) *float64 {
		if s.Resources == nil {
			return nil
		}
		return f(s.Resources)
	}
}

// gb converts MiB to GiB.
func gb(mb *float64) *float64 {
	if mb == nil {
		return nil
	}
	v := *mb / 1024
	return &v
}

// resourceCells are a step's resources columns.
func resourceCells(s *result.Step) []string {
	var out []string
	for _, col := range resColumns {
		out = append(out, optNum(col.get(s)))
	}
	return out
}

// resourceTable shows every step's resources per second, a row per configuration and step.
func resourceTable(r *result.Run, sp spreads) Table {
	t := Table{Title: "Resources per second", Header: []string{"config", "step"}}
	for _, c := range resColumns {
		t.Header = append(t.Header, c.name)
	}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			t.Rows = append(t.Rows, append([]string{c.Name, s.Name}, sp.cells(c.Name, s, resourceCells)...))
		}
	}
	return t
}

// primaryOp returns a step's headline op, nil when it has none.
func primaryOp(s *result.Step) *result.Op {
	if s == nil {
		return nil
	}
	return s.Ops[s.Primary]
}

// rateP50P99 are the p50 and p99 cells of the per-second rate of a step's headline op.
func rateP50P99(s *result.Step) []string {
	op := primaryOp(s)
	if op == nil {
		return []string{missing, missing}
	}
	return []string{optNum(op.RateP50), optNum(op.RateP99)}
}

// ratePercentileTable shows, for every step with a headline rate, the rate and the p50 and
// p99 of its per-second rates, a row per configuration and step.
func ratePercentileTable(r *result.Run, sp spreads) Table {
	t := Table{Title: "Throughput: p50 and p99 of the per-second rate", Header: []string{"config", "step", "unit", "rate", "p50", "p99"}}
	for _, c := range r.Configs {
		for _, n := range rateSteps(r) {
			s := findStep(c, n)
			if s == nil || n == "warmup" {
				continue
			}
			t.Rows = append(t.Rows, append([]string{c.Name, n, stepUnit(s), rateSpanCell(s, sp.get(c.Name, n))}, sp.cells(c.Name, s, rateP50P99)...))
		}
	}
	return t
}

// stepResourceTable is one step's rate, the p50 and p99 of its per-second rates and its
// resources per second, a row per configuration: the Insert Benchmark's table of a step.
func stepResourceTable(r *result.Run, step string, sp spreads) Table {
	header := []string{"p50", "p99"}
	for _, c := range resColumns {
		header = append(header, c.name)
	}
	return stepTable(r, step, step+": resources per second", header, func(s *result.Step) []string {
		return append(rateP50P99(s), resourceCells(s)...)
	}, sp)
}
