package report

import (
	"math"
	"time"

	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// linkBenchSections are LinkBench's sections: the published layout (load time, rate and size;
// QPS and size of each interval), the load, the per-second request rate and load rate, the
// per-op latency, the steps and the efficiency.
func linkBenchSections(r *result.Run, p *Page) []Section {
	sum := Section{ID: "summary", Title: "LinkBench"}
	for _, t := range nonEmpty([]Table{lbPublished(r, p.spreads), lbLoad(r, p.spreads), ratePercentileTable(r, p.spreads)}) {
		sum.Blocks = append(sum.Blocks, Block{Table: &t})
	}
	ivs := intervalNames(r)
	sum.Blocks = append(sum.Blocks, Block{Charts: []Chart{
		{ID: "requests-rate", Series: spanSeries(r, ivs, oneOp("requests")), Sync: "requests",
			Options: chart.Options{Title: "requests/s each second (all operations, every interval)", XLabel: "seconds since the first interval", YLabel: "requests/s", Legend: true}},
		{ID: "load-rate", Series: spanSeries(r, []string{"load"}, oneOp("link")), Sync: "load",
			Options: chart.Options{Title: "load: links/s each second", XLabel: "seconds", YLabel: "links/s", Legend: true}},
	}})
	lat := Section{ID: "latency", Title: "Latency"}
	if t := lbLatency(r, p.spreads); len(t.Rows) > 0 {
		lat.Blocks = append(lat.Blocks, Block{Table: &t})
	}
	for _, n := range latencyIntervals(r) {
		lat.Blocks = append(lat.Blocks, boxBlocks(r, n)...)
	}
	out := []Section{sum, lat}
	if c := capacitySection(r); c != nil {
		out = append(out, *c)
	}
	return append(out, stepsAndEfficiency(r, p.spreads)...)
}

// iiBenchSections are iiBench's sections: the published totals, inserts/s and queries/s
// against rows inserted (chart and table), the cost, latency, resources per operation, the
// per-second insert rate and latency, the steps and the efficiency.
func iiBenchSections(r *result.Run, p *Page) []Section {
	sum := Section{ID: "summary", Title: "iiBench"}
	for _, t := range nonEmpty([]Table{ibPublished(r, p.spreads), ibCost(r, p.spreads)}) {
		sum.Blocks = append(sum.Blocks, Block{Table: &t})
	}
	sum.Blocks = append(sum.Blocks, Block{Charts: []Chart{
		{ID: "inserts-by-rows", Series: periodSeries(r, "insert"), Sync: "periods",
			Options: chart.Options{Title: "inserts/s against rows inserted (each report period)", XLabel: "rows in the table", YLabel: "inserts/s", Legend: true}},
		{ID: "queries-by-rows", Series: periodSeries(r, "query"), Sync: "periods",
			Options: chart.Options{Title: "queries/s against rows inserted (each report period)", XLabel: "rows in the table", YLabel: "queries/s", Legend: true}},
	}})
	for _, t := range nonEmpty([]Table{ibRates(r, p.spreads), ratePercentileTable(r, p.spreads)}) {
		sum.Blocks = append(sum.Blocks, Block{Table: &t})
	}
	lat := Section{ID: "latency", Title: "Latency and resources per operation"}
	for _, t := range nonEmpty([]Table{ibLatency(r, p.spreads), ibPerOp(r, p.spreads)}) {
		lat.Blocks = append(lat.Blocks, Block{Table: &t})
	}
	lat.Blocks = append(lat.Blocks, boxBlocks(r, ibStep)...)
	for _, op := range stepOps(r, ibStep) {
		lat.Blocks = append(lat.Blocks, Block{Charts: opCharts(r, ibStep, op)})
	}
	return append([]Section{sum, lat}, stepsAndEfficiency(r, p.spreads)...)
}

// stepsAndEfficiency are the steps' status and the efficiency tables, as sections.
func stepsAndEfficiency(r *result.Run, sp spreads) []Section {
	steps := Section{ID: "steps", Title: "Steps"}
	for _, t := range nonEmpty(append([]Table{details(r, sp), failures(r)}, debtTables(r, sp)...)) {
		steps.Blocks = append(steps.Blocks, Block{Table: &t})
	}
	eff := Section{ID: "efficiency", Title: "Efficiency"}
	for _, t := range nonEmpty(append(efficiency(r, sp), resourceTable(r, sp))) {
		eff.Blocks = append(eff.Blocks, Block{Table: &t})
	}
	return nonEmptySections(steps, eff)
}

// nonEmptySections returns the sections that have blocks.
func nonEmptySections(secs ...Section) []Section {
	var out []Section
	for _, s := range secs {
		if len(s.Blocks) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// oneOp is the rate of one operation in the second.
func oneOp(op string) intervalValue {
	return func(ivs *result.Series, i int, secs float64) float64 {
		o, ok := ivs.Op(i, op)
		if !ok {
			return math.NaN()
		}
		return ivRate(o, secs)
	}
}

// spanSeries returns a line per configuration over the given steps one after the other: x is
// seconds since the first of them started.
func spanSeries(r *result.Run, steps []string, value intervalValue) []chart.Series {
	var out []chart.Series
	for ci, c := range r.Configs {
		var x, y []float64
		var t0 time.Time
		for _, n := range steps {
			s := findStep(c, n)
			if s == nil {
				continue
			}
			if t0.IsZero() {
				t0 = s.StartedAt
			}
			sx, sy := points(s, t0, value)
			x, y = append(x, sx...), append(y, sy...)
		}
		if len(x) == 0 {
			continue
		}
		x, y = chart.Downsample(x, y, linePoints(len(r.Configs)))
		out = append(out, chart.Series{Name: c.Name, Color: ci, X: x, Y: y})
	}
	return out
}

// periodSeries returns, per configuration of an iiBench run, op's rate in each report period
// against the rows in the table at the period's end.
func periodSeries(r *result.Run, op string) []chart.Series {
	var out []chart.Series
	for ci, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil || len(s.Periods) == 0 {
			continue
		}
		var x, y []float64
		for _, p := range s.Periods {
			po, ok := p.Ops[op]
			x = append(x, float64(p.Rows))
			if ok && (op != "query" || po.CumUnits > 0) {
				y = append(y, po.PerSec)
			} else {
				y = append(y, math.NaN()) // queries not started yet
			}
		}
		x, y = chart.Downsample(x, y, linePoints(len(r.Configs)))
		out = append(out, chart.Series{Name: c.Name, Color: ci, X: x, Y: y})
	}
	return out
}
