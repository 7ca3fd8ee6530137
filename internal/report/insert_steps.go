package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// The Insert Benchmark's section of each step of the page.

// stepSection is one step's part of the page: a bar chart of its rate per configuration, its
// efficiency (absolute and relative to the base), the response-time distribution and
// percentiles, and the per-second charts of each operation.
func stepSection(r *result.Run, base, step string, sp spreads) Section {
	sec := Section{ID: chartID("step", step), Title: "Step " + step}
	bars := &Bars{}
	for i, c := range r.Configs {
		v, ok := stepRate(findStep(c, step))
		if !ok {
			v = math.NaN()
		}
		bars.Labels, bars.Values, bars.Colors = append(bars.Labels, c.Name), append(bars.Values, v), append(bars.Colors, i)
	}
	sec.Blocks = append(sec.Blocks, Block{Charts: []Chart{{ID: chartID(step, "rate"), Bars: bars,
		Options: chart.Options{Title: step + ": " + unit(step), YLabel: unit(step)}}}})
	for _, t := range nonEmpty([]Table{effTable(r, step, sp), effRelTable(r, base, step, sp), stepResourceTable(r, step, sp),
		distributionTable(r, step, sp), percentileTable(r, step, sp)}) {
		sec.Blocks = append(sec.Blocks, Block{Table: &t})
	}
	sec.Blocks = append(sec.Blocks, boxBlocks(r, step)...)
	for _, op := range stepOps(r, step) {
		sec.Blocks = append(sec.Blocks, Block{Charts: opCharts(r, step, op)})
	}
	return sec
}

// opRow is one operation of one configuration in a step.
type opRow struct {
	config, name string
	op           *result.Op
	step         *result.Step
}

// stepOpRows returns each configuration's operations in the step, configuration by
// configuration, the headline op first.
func stepOpRows(r *result.Run, step string) []opRow {
	var out []opRow
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			for _, name := range opNames(*s) {
				out = append(out, opRow{c.Name, name, s.Ops[name], s})
			}
		}
	}
	return out
}

// effRelTable is a step's rate and efficiency divided by the base configuration's.
func effRelTable(r *result.Run, base, step string, sp spreads) Table {
	t := Table{Title: step + ": efficiency relative to " + base, Header: []string{"config", unit(step)}}
	for _, c := range effColumns {
		t.Header = append(t.Header, c.name)
	}
	bi := slices.IndexFunc(r.Configs, func(c result.Config) bool { return c.Name == base })
	if bi < 0 || len(r.Configs) < 2 {
		return t
	}
	bs := findStep(r.Configs[bi], step)
	for _, c := range r.Configs {
		s := findStep(c, step)
		if s == nil {
			continue
		}
		v, ok := sp.span(c.Name, step, s, stepRate)
		b, bok := sp.span(base, step, bs, stepRate)
		text, cl := relSpanCell(v, b, ok, bok, directionOf(t, 1))
		row, class := []string{c.Name, text}, []string{"", cl}
		for j, col := range effColumns {
			get := okFigure(col.get)
			v, ok := sp.span(c.Name, step, s, get)
			b, bok := sp.span(base, step, bs, get)
			text, cl := relSpanCell(v, b, ok, bok, directionOf(t, j+2))
			row, class = append(row, text), append(class, cl)
		}
		t.Rows, t.Class = append(t.Rows, row), append(t.Class, class)
	}
	return t
}

// bucketHeader names the response-time buckets of result.BucketBoundsUs, then everything above.
func bucketHeader() []string {
	var h []string
	for _, b := range result.BucketBoundsUs {
		h = append(h, "<="+numfmt.Duration(b))
	}
	return append(h, ">"+numfmt.Duration(result.BucketBoundsUs[len(result.BucketBoundsUs)-1]))
}

// distributionTable shows, per configuration and operation of a step, the percentage of
// operations in each response-time bucket and the maximum.
func distributionTable(r *result.Run, step string, sp spreads) Table {
	t := Table{Title: step + ": response-time distribution (% of operations)",
		Header: append(append([]string{"config", "op", "count"}, bucketHeader()...), "max")}
	for _, o := range stepOpRows(r, step) {
		label := opLabel(o.name, o.op)
		t.Rows = append(t.Rows, append([]string{o.config, label}, sp.cells(o.config, o.step, opCells(o.name, func(op *result.Op) []string {
			return bucketRow(op.Count, op.Latency)
		}))...))
		if o.op.Response != nil && o.op.Count > 0 {
			t.Rows = append(t.Rows, append([]string{o.config, label + " rt"}, sp.cells(o.config, o.step, opCells(o.name, func(op *result.Op) []string {
				if op.Response == nil {
					return allMissing(bucketRow(0, result.Latency{}))
				}
				return bucketRow(op.Count, *op.Response)
			}))...))
		}
	}
	return t
}

// bucketRow are the cells of a latency distribution: its count, the percentage of operations
// in each bucket and its max.
func bucketRow(count int64, l result.Latency) []string {
	row := []string{strconv.FormatInt(count, 10)}
	n := len(result.BucketBoundsUs)
	if count == 0 || len(l.Buckets) != n {
		for range n + 1 {
			row = append(row, missing)
		}
		if count == 0 {
			return append(row, missing)
		}
		return append(row, numfmt.Duration(l.Max))
	}
	prev := 0.0
	for i := range n + 1 {
		cum := 1.0
		if i < n {
			cum = l.Buckets[i]
		}
		row = append(row, pct(cum-prev))
		prev = cum
	}
	return append(row, numfmt.Duration(l.Max))
}

// pct formats a share (0..1) as a percentage with up to three decimals, so that 99.97 is not
// rounded up to 100.
func pct(share float64) string {
	v := math.Max(0, share*100)
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "0" {
		return "<0.001"
	}
	return s
}

// percentileTable shows a step's latency percentiles per configuration and operation.
func percentileTable(r *result.Run, step string, sp spreads) Table {
	t := Table{Title: step + ": latency percentiles", Header: []string{"config", "op", "count", "ops/s",
		"p50", "p90", "p99", "p99.9", "max", "mean", "rt p50", "rt p99", "rt max", "p25", "p75"}}
	for _, o := range stepOpRows(r, step) {
		row := []string{o.config, opLabel(o.name, o.op)}
		t.Rows = append(t.Rows, append(row, sp.cells(o.config, o.step, opCells(o.name, percentileCells))...))
	}
	return t
}

// percentileCells are the latency percentiles table's cells of op.
func percentileCells(op *result.Op) []string {
	row := []string{strconv.FormatInt(op.Count, 10), numfmt.Num(op.PerSec)}
	row = append(row, latencyCells(op)...)
	return append(append(row, responseCells(op)...), quartileCells(op)...)
}
