package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// insertSections are the Insert Benchmark's sections: the throughput summary (absolute and
// relative to the base), the SLA, the steps' status, probe, fairness and engine debt, then
// one section per step with its charts, efficiency, response-time distribution and percentiles.
func insertSections(r *result.Run, p *Page) []Section {
	abs, rel := throughputTables(r, p.Base, p.spreads)
	summary := Section{ID: "summary", Title: "Throughput"}
	for _, t := range nonEmpty([]Table{abs, rel, ratePercentileTable(r, p.spreads), slaTable(r, p.spreads)}) {
		summary.Blocks = append(summary.Blocks, Block{Table: &t})
	}
	steps := Section{ID: "steps", Title: "Steps"}
	tables := []Table{details(r, p.spreads), failures(r), probeTable(r, p.spreads), fairnessTable(r, p.spreads), phases(r, p.spreads), cleanup(r, p.spreads)}
	tables = append(tables, debtTables(r, p.spreads)...)
	for _, t := range nonEmpty(tables) {
		steps.Blocks = append(steps.Blocks, Block{Table: &t})
	}
	out := []Section{summary, steps}
	if c := capacitySection(r); c != nil {
		out = append(out, *c)
	}
	for _, n := range rateSteps(r) {
		if n == "warmup" {
			continue
		}
		out = append(out, stepSection(r, p.Base, n, p.spreads))
	}
	return out
}

// throughputSteps are the columns of the throughput summary: every step with a rate but the
// scan (which has its own table).
func throughputSteps(r *result.Run) []string {
	return slices.DeleteFunc(rateSteps(r), func(n string) bool { return n == "scan" || n == "warmup" })
}

// throughputTables are the published throughput summary (ips of the load steps, qps of the
// read-write steps, a row per configuration, coloured per column) and the same relative to
// the base configuration.
func throughputTables(r *result.Run, base string, sp spreads) (Table, Table) {
	steps := throughputSteps(r)
	abs := Table{Title: "Throughput", Header: []string{"config"}}
	rel := Table{Title: "Throughput relative to " + base, Header: []string{"config"}}
	for _, n := range steps {
		abs.Header = append(abs.Header, n+" "+unit(n))
		rel.Header = append(rel.Header, n+" "+unit(n))
	}
	if len(steps) == 0 {
		return abs, rel
	}
	bi := slices.IndexFunc(r.Configs, func(c result.Config) bool { return c.Name == base })
	cols := make([][]string, len(steps))
	for j, n := range steps {
		vals, ok := make([]float64, len(r.Configs)), make([]bool, len(r.Configs))
		for i, c := range r.Configs {
			vals[i], ok[i] = stepRate(findStep(c, n))
		}
		cols[j] = rangeClasses(vals, ok, directionOf(abs, j+1))
		for i, c := range r.Configs {
			s := findStep(c, n)
			switch {
			case !ok[i]:
				cols[j][i] = stateClass(s)
			case s.Target != nil && !s.Target.SLAMet:
				cols[j][i] = ClassMissed
			}
		}
	}
	for i, c := range r.Configs {
		row, class := []string{c.Name}, []string{""}
		rrow, rclass := []string{c.Name}, []string{""}
		for j, n := range steps {
			s := findStep(c, n)
			row, class = append(row, rateSpanCell(s, sp.get(c.Name, n))), append(class, cols[j][i])
			v, ok := sp.span(c.Name, n, s, stepRate)
			var b span
			bok := false
			if bi >= 0 {
				b, bok = sp.span(base, n, findStep(r.Configs[bi], n), stepRate)
			}
			text, cl := relSpanCell(v, b, ok, bok, directionOf(rel, j+1))
			if !ok {
				text, cl = rateCell(s), stateClass(s)
			}
			rrow, rclass = append(rrow, text), append(rclass, cl)
		}
		abs.Rows, abs.Class = append(abs.Rows, row), append(abs.Class, class)
		rel.Rows, rel.Class = append(rel.Rows, rrow), append(rel.Class, rclass)
	}
	if len(r.Configs) < 2 {
		rel.Rows = nil // one configuration is its own base
	}
	return abs, rel
}

// slaTable shows each read-write step's background insert rate against its target, red where
// it achieved less than 95% (the SLA was missed).
func slaTable(r *result.Run, sp spreads) Table {
	steps := stepsWith(r, func(s *result.Step) bool { return s.Target != nil })
	t := Table{Title: "SLA: background inserts/s achieved of the target", Header: []string{"config"}, Metric: "sla"}
	if len(steps) == 0 {
		return t
	}
	t.Header = append(t.Header, steps...)
	for _, c := range r.Configs {
		row, class := []string{c.Name}, []string{""}
		for _, n := range steps {
			s := findStep(c, n)
			switch {
			case s == nil || s.Target == nil:
				row, class = append(row, missing), append(class, ClassMissing)
			case s.Status != result.StatusOK:
				row, class = append(row, s.Status), append(class, ClassFailed)
			default:
				tg := s.Target
				achieved := sp.cells(c.Name, s, func(s *result.Step) []string { return []string{slaAchieved(s)} })[0]
				text := fmt.Sprintf("%s of %s", achieved, numfmt.Num(tg.InsertsPerSec))
				if tg.InsertsPerSec > 0 {
					text += fmt.Sprintf(" (%s%%)", numfmt.Num(100*tg.AchievedInsertsPerSec/tg.InsertsPerSec))
				}
				cl := ""
				if !tg.SLAMet {
					text, cl = text+" missed", ClassBad
				}
				row, class = append(row, text), append(class, cl)
			}
		}
		t.Rows, t.Class = append(t.Rows, row), append(t.Class, class)
	}
	return t
}

// slaAchieved is a step's achieved background inserts/s (its repeats share the target, so the
// spread of the percentage is that of the rate).
func slaAchieved(s *result.Step) string {
	if s.Target == nil {
		return missing
	}
	return numfmt.Num(s.Target.AchievedInsertsPerSec)
}

// failures lists every step that did not finish, with its error.
func failures(r *result.Run) Table {
	t := Table{Title: "Steps that did not finish", Header: []string{"config", "step", "status", "error"}}
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			if s.Status != result.StatusOK {
				t.Rows = append(t.Rows, []string{c.Name, s.Name, s.Status, s.Error})
				t.Class = append(t.Class, []string{"", "", ClassFailed, ""})
			}
		}
	}
	return t
}

// probeTable is the min(transactionid) probe at each step's start, a column per step.
func probeTable(r *result.Run, sp spreads) Table {
	steps := stepsWith(r, func(s *result.Step) bool { return s.Probe != nil })
	t := Table{Title: "Probe: seconds of SELECT min(transactionid) at each step's start", Header: append([]string{"config"}, steps...), Metric: "probe"}
	if len(steps) == 0 {
		return t
	}
	for _, c := range r.Configs {
		row := []string{c.Name}
		for _, n := range steps {
			cell := missing
			if s := findStep(c, n); s != nil && s.Probe != nil {
				cell = sp.cells(c.Name, s, func(s *result.Step) []string { return []string{probeCell(s)} })[0]
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// probeCell is a step's probe seconds, missing without a probe.
func probeCell(s *result.Step) string {
	if s.Probe == nil {
		return missing
	}
	return numfmt.Seconds(s.Probe.MinTrxIDSeconds)
}

// fairnessTable compares the clients' durations in each step.
func fairnessTable(r *result.Run, sp spreads) Table {
	t := Table{Title: "Fairness: the clients' durations", Header: []string{"config", "step", "clients", "min", "max", "diff", "pct"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			if s := &c.Steps[i]; s.Fairness != nil && len(s.Ops) > 0 {
				t.Rows = append(t.Rows, append([]string{c.Name, s.Name, strconv.Itoa(s.Clients)}, sp.cells(c.Name, s, fairnessCells)...))
			}
		}
	}
	return t
}

// fairnessCells are a step's clients' least and greatest durations, their difference and its
// percentage.
func fairnessCells(s *result.Step) []string {
	f := s.Fairness
	if f == nil {
		return []string{missing, missing, missing, missing}
	}
	return []string{numfmt.Seconds(f.MinSeconds), numfmt.Seconds(f.MaxSeconds), numfmt.Seconds(f.DiffSeconds), numfmt.Num(f.Pct) + "%"}
}

// debtKeys are the engine counters that measure debt, in the order the debt tables show them:
// purge lag and dirty pages (InnoDB), dead tuples (PostgreSQL), compaction debt and stalls
// (LSM engines), WAL and freelist (SQLite), free and pinned pages (bbolt), pages in use (LMDB),
// dirty cache and the LSM work queue (WiredTiger).
var debtKeys = []string{
	"history_list_length", "dirty_pages", "checkpoint_age_bytes", "pending_reads", "pending_writes",
	"dead_tuples", "live_tuples", "autovacuum_runs", "vacuum_runs", "vacuums_running",
	"pending_compaction_bytes", "compaction_pending", "l0_files", "immutable_memtables", "memtable_bytes",
	"write_stalls", "write_stall_seconds", "write_stopped", "stall_stops", "stall_slowdowns", "stall_micros",
	"wal_bytes", "freelist_count", "freelist_pages", "pending_pages", "pages_in_use",
	"cache_dirty_bytes", "lsm_work_queue_max",
}

// debtTables show, per configuration, the engine's debt counters at each step's end.
func debtTables(r *result.Run, sp spreads) []Table {
	var out []Table
	for _, c := range r.Configs {
		var keys []string
		for _, k := range debtKeys {
			for _, s := range c.Steps {
				if _, ok := s.EngineStats[k]; ok {
					keys = append(keys, k)
					break
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		t := Table{Title: fmt.Sprintf("Engine debt at each step's end: %s (%s)", c.Name, c.Engine), Header: append([]string{"step"}, keys...)}
		for i := range c.Steps {
			s := &c.Steps[i]
			t.Rows = append(t.Rows, append([]string{s.Name}, sp.cells(c.Name, s, func(s *result.Step) []string {
				var row []string
				for _, k := range keys {
					row = append(row, statCell(s.EngineStats, k))
				}
				return row
			})...))
		}
		out = append(out, t)
	}
	return out
}

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

// stepOps returns the operations any configuration ran in the step, the headline op first.
func stepOps(r *result.Run, step string) []string {
	var out []string
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			for _, op := range opNames(*s) {
				if !slices.Contains(out, op) {
					out = append(out, op)
				}
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
