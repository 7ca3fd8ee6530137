package report

import (
	"math"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// quartileLegend explains the p25 and p75 columns and the box view.
const quartileLegend = "p25, p75: the quartiles of the service time (a quarter of the operations took at most p25, three quarters at most p75), the last columns of the latency tables; \"-\" in runs made before they were measured. The page's box charts draw each operation's latency per configuration: the box from p25 to p75, the black line at p50, the whisker to p99, the diamond at max, on a log axis (docs/report.md, Box view of latency)."

// boxBlocks are the box view of a step's latency: for each operation, a box chart of its
// service time with a row per configuration, and one of its response time when a configuration
// measured one (an open-loop writer's, from when each operation was due). The charts are one
// row of charts, or a row per operation when the step has response times, so that each op's
// two charts sit side by side.
func boxBlocks(r *result.Run, step string) []Block {
	var out []Block
	all := Block{}
	for _, op := range stepOps(r, step) {
		b := Block{Charts: []Chart{boxChart(r, step, op, false)}}
		if hasResponseLatency(r, step, op) {
			b.Charts = append(b.Charts, boxChart(r, step, op, true))
		}
		out = append(out, b)
		all.Charts = append(all.Charts, b.Charts...)
	}
	if len(all.Charts) == len(out) { // no response times
		return []Block{all}
	}
	return out
}

// boxChart is the box chart of op's service time in the step (its response time with rt).
func boxChart(r *result.Run, step, op string, rt bool) Chart {
	id, kind := chartID(step, op, "box"), "service time"
	if rt {
		id, kind = chartID(step, op, "rt", "box"), "response time"
	}
	return Chart{ID: id, Box: boxRows(r, step, op, rt),
		Options: chart.Options{Title: step + " " + op + ": " + kind + " per configuration", XLabel: "ms (log scale)"}}
}

// boxRows are the rows of a box chart, one per configuration in order, in ms: NaN where the
// configuration did not run the op in the step or did not measure the value (the quartiles of
// a run made before them).
func boxRows(r *result.Run, step, op string, rt bool) []chart.BoxRow {
	rows := make([]chart.BoxRow, len(r.Configs))
	for i, c := range r.Configs {
		nan := math.NaN()
		rows[i] = chart.BoxRow{Name: c.Name, Color: i, P25: nan, P50: nan, P75: nan, P99: nan, Max: nan}
		l := opLatency(findStep(c, step), op, rt)
		if l == nil {
			continue
		}
		ms := func(us *float64) float64 {
			if us == nil {
				return nan
			}
			return *us / 1e3
		}
		rows[i].P25, rows[i].P50, rows[i].P75 = ms(l.P25), ms(&l.P50), ms(l.P75)
		rows[i].P99, rows[i].Max = ms(&l.P99), ms(&l.Max)
	}
	return rows
}

// opLatency is op's service time in step s (its response time with rt), nil where s did not
// run it or measured none.
func opLatency(s *result.Step, op string, rt bool) *result.Latency {
	if s == nil || s.Ops[op] == nil || s.Ops[op].Count == 0 {
		return nil
	}
	if rt {
		return s.Ops[op].Response
	}
	return &s.Ops[op].Latency
}

// hasResponseLatency reports whether any configuration measured op's response time in the step.
func hasResponseLatency(r *result.Run, step, op string) bool {
	for _, c := range r.Configs {
		if opLatency(findStep(c, step), op, true) != nil {
			return true
		}
	}
	return false
}

// quartileCells are op's p25 and p75 service time, missing where it did no operation or its run
// did not measure them.
func quartileCells(op *result.Op) []string {
	cell := func(us *float64) string {
		if us == nil || op.Count == 0 {
			return missing
		}
		return numfmt.Duration(*us)
	}
	return []string{cell(op.Latency.P25), cell(op.Latency.P75)}
}
