package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// InsertLayout is the Insert Benchmark's layout: its steps' throughput, SLA, latency, scans,
// efficiency and engine debt; on the page a section for each step; nothing of its own in a
// ratio of two runs.
func InsertLayout() Layout { return insertLayout{} }

// insertLayout is the Insert Benchmark's Layout.
type insertLayout struct{}

// summary is the summary of r, an Insert Benchmark run whose repeats are folded.
func (insertLayout) summary(r *result.Run, sp spreads) Summary {
	s := Summary{Lines: header(r)}
	tables := []Table{throughput(r, sp), ratePercentileTable(r, sp), latency(r, sp), sla(r, sp), details(r, sp), phases(r, sp)}
	tables = append(tables, efficiency(r, sp)...)
	tables = append(tables, resourceTable(r, sp), cleanup(r, sp), memoryTable(r))
	tables = append(tables, capacityTables(r)...)
	s.Tables = nonEmpty(tables)
	s.Legend = []string{
		"ips: rows inserted (l.x: rows indexed; scan: rows read) per second; qps: queries per second.",
		"p50/p99/max: service time from each operation's actual start. rt: response time of the open-loop background writers, from the intended start (includes queueing).",
		"SLA: the background writer of a query step must achieve at least 95% of its target insert rate; a step that did not is marked.",
		"probe: seconds of SELECT min(transactionid) at the step's start (MVCC debt, purge lag). fairness: (max-min)/min of the clients' durations.",
		"verify: every row read through the primary key is the row its insert number and the seed give, none missing, extra or altered, and every secondary index holds exactly those rows' entries.",
		"Efficiency, per operation of the step (rows inserted, indexed or read; queries in the query steps); writes per row inserted, which in the query steps are the background writers' rows:",
		"  cpupq: host CPU microseconds; cspq: context switches; rpq, rkbpq: storage reads and KB read; wpi, wkbpi: storage writes and KB written (the data directory's device, as iostat shows it);",
		"  dbgb1: GB of the database's own files at the step's end; dbgb2: GB of the whole data directory; wamp: KB written to storage / logical KB inserted.",
		"  An embedded engine runs in the enginebench process, so its DBMS CPU and IO include the harness (the null engine shows the harness's share). \"-\": not measured (see the notes).",
		"cleanup: the engine's debt (flush, compaction, checkpoint, vacuum) before and after the step.",
	}
	s.Legend = append(append(append(s.Legend, resourceLegend...), clientLegend(r)...), memoryLegend(r)...)
	s.Legend = append(s.Legend, srvLegend(r)...)
	s.Legend = append(s.Legend, capacityLegend(r)...)
	return s
}

// brief is the Insert Benchmark's throughput table (each step's headline rate, a row per
// configuration) and a capacity search's best rates: not its levels, which the full summary
// lists.
func (insertLayout) brief(r *result.Run, sp spreads) []Table {
	return []Table{throughput(r, sp), capacityTables(r)[0]}
}

// sections are the Insert Benchmark's sections: the throughput summary (absolute and
// relative to the base), the SLA, the steps' status, probe, fairness and engine debt, then
// one section per step with its charts, efficiency, response-time distribution and percentiles.
func (insertLayout) sections(r *result.Run, p *Page) []Section {
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

// ratio adds nothing: the steps' rates, which every ratio has, are the whole comparison.
func (insertLayout) ratio(_, _ *result.Run) ratioAdds { return ratioAdds{} }

// throughput is the summary's table of each step's headline rate, a row per configuration.
func throughput(r *result.Run, sp spreads) Table {
	t := Table{Title: "Throughput", Header: []string{"config"}}
	steps := rateSteps(r)
	for _, n := range steps {
		t.Header = append(t.Header, n+" "+unit(n))
	}
	for _, c := range r.Configs {
		row := []string{c.Name}
		for _, n := range steps {
			row = append(row, rateSpanCell(findStep(c, n), sp.get(c.Name, n)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// latency is the summary's table of each operation's latency in each step.
func latency(r *result.Run, sp spreads) Table {
	t := Table{Title: "Latency", Header: []string{"config", "step", "op", "count", "p50", "p99", "max", "rt p99", "rt max", "p25", "p75"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			for _, name := range opNames(*s) {
				row := []string{c.Name, s.Name, opLabel(name, s.Ops[name])}
				t.Rows = append(t.Rows, append(row, sp.cells(c.Name, s, opCells(name, latencyRow))...))
			}
		}
	}
	return t
}

// latencyRow are the latency table's cells of op: count, p50, p99, max, rt p99, rt max, p25, p75.
func latencyRow(op *result.Op) []string {
	row := []string{fmt.Sprint(op.Count)}
	if op.Count == 0 {
		row = append(row, missing, missing, missing)
	} else {
		row = append(row, numfmt.Duration(op.Latency.P50), numfmt.Duration(op.Latency.P99), numfmt.Duration(op.Latency.Max))
	}
	row = append(row, responseCells(op)[1:]...) // rt p99, rt max
	return append(row, quartileCells(op)...)
}

// sla is the summary's table of the background writers' target and achieved rates.
func sla(r *result.Run, sp spreads) Table {
	t := Table{Title: "SLA of the background writers", Header: []string{"config", "step", "target ins/s", "achieved ins/s", "achieved del/s", "met"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			if s.Target == nil {
				continue
			}
			met := "yes"
			if !s.Target.SLAMet {
				met = "NO"
			}
			cells := sp.cells(c.Name, s, func(s *result.Step) []string {
				if s.Target == nil {
					return []string{missing, missing, missing}
				}
				return []string{numfmt.Num(s.Target.InsertsPerSec), numfmt.Num(s.Target.AchievedInsertsPerSec), numfmt.Num(s.Target.AchievedDeletesPerSec)}
			})
			t.Rows = append(t.Rows, append(append([]string{c.Name, s.Name}, cells...), met))
		}
	}
	return t
}

// phases is the Scans table: each index a scan step read, its time, rows and rate.
func phases(r *result.Run, sp spreads) Table {
	t := Table{Title: "Scans", Header: []string{"config", "step", "index", "time", "rows", "rows/s"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			for _, p := range s.Phases {
				cells := sp.cells(c.Name, s, func(s *result.Step) []string {
					i := slices.IndexFunc(s.Phases, func(q result.Phase) bool { return q.Name == p.Name })
					if i < 0 {
						return []string{missing, missing, missing}
					}
					q := s.Phases[i]
					return []string{numfmt.Seconds(q.Seconds), fmt.Sprint(q.Rows), numfmt.Num(q.PerSec)}
				})
				t.Rows = append(t.Rows, append([]string{c.Name, s.Name, p.Name}, cells...))
			}
		}
	}
	return t
}

// cleanup shows, for each configuration's cleanup step, its time and each engine counter
// before and after it.
func cleanup(r *result.Run, sp spreads) Table {
	t := Table{Title: "Cleanup: engine debt before and after", Header: []string{"config", "step", "status", "time", "counter", "before", "after"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			if s.EngineStatsBefore == nil {
				continue
			}
			keys := slices.Sorted(maps.Keys(s.EngineStatsBefore))
			for k := range s.EngineStats {
				if _, ok := s.EngineStatsBefore[k]; !ok {
					keys = append(keys, k)
				}
			}
			for i, k := range keys {
				figs := sp.cells(c.Name, s, func(s *result.Step) []string {
					return []string{numfmt.Seconds(s.Seconds), statCell(s.EngineStatsBefore, k), statCell(s.EngineStats, k)}
				})
				row := []string{c.Name, s.Name, s.Status, figs[0], k, figs[1], figs[2]}
				if i > 0 {
					row[2], row[3] = "", ""
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
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
