// Package report turns run results into what users read: the summary tables printed at the end
// of a run (summary.md), and the report of one or more runs (report.html with its tables as
// report.md), which compares configurations in coloured tables and charts. Each output comes
// from one model, so its forms never disagree. A metric that is missing is shown as "-", never
// as 0.
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// Table is one titled table of the summary or the report.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Class, when set, has the shape of Rows: each cell's colour class in the HTML page
	// (Class* constants), "" for none. The cell's text always says what the colour does.
	Class [][]string
	// Metric, when set, is what every column but the first shows, in a table whose columns
	// are steps or runs (the probe's seconds, the SLA): the metric whose direction they have;
	// "value" for a table of descriptions (runs, hosts, parameters, settings).
	Metric string
	// Src, when set, has the shape of Rows: where each cell's value was read (source.go); a
	// zero Source is none, and the page infers one from the table's layout (traceSources).
	Src [][]Source
}

// Summary is the whole summary of a run.
type Summary struct {
	Lines  []string // header lines: workload, run, status, notes
	Tables []Table
	Legend []string
}

// missing is what a cell shows when there is no value.
const missing = "-"

// Build makes the summary of r.
// A run with repeats (run --repeat K) shows each configuration once: the median of its
// repeats, each per-step figure with their spread (min-max).
func Build(r *result.Run) Summary {
	r, sp := collapseRepeats(r)
	var s Summary
	switch r.Workload.Name {
	case "linkbench":
		s = buildLinkBench(r, sp)
	case "iibench":
		s = buildIIBench(r, sp)
	default:
		s = buildInsert(r, sp)
	}
	s.Legend = append(s.Legend, repeatLegend(sp)...)
	s.Legend = append(s.Legend, quartileLegend)
	return s
}

// buildInsert makes the summary of r, an Insert Benchmark run whose repeats are folded.
func buildInsert(r *result.Run, sp spreads) Summary {
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
	s.Legend = append(s.Legend, capacityLegend(r)...)
	return s
}

// nonEmpty returns the tables that have rows: a summary leaves the others out.
func nonEmpty(tables []Table) []Table {
	var out []Table
	for _, t := range tables {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// variantText is ", variant V, verified W" for a run that records its variant, else empty.
func variantText(w result.Workload) string {
	if w.Variant == "" {
		return ""
	}
	t := ", variant " + w.Variant
	if w.Verify != "" {
		t += ", verified " + strings.ReplaceAll(w.Verify, "-", " ")
	}
	return t
}

func header(r *result.Run) []string {
	lines := []string{fmt.Sprintf("enginebench %s: %s benchmark, scale %s%s, run %s, status %s",
		r.Tool.Version, r.Workload.Name, r.Workload.Scale, variantText(r.Workload), r.RunID, r.Status)}
	if r.Error != "" {
		lines = append(lines, "error: "+r.Error)
	}
	lines = append(lines, r.Notes...)
	return append(lines, configLines(r.Configs)...)
}

// configLines describe each configuration: engine, version, status, error, its memory cap
// (with a warning when processes were OOM-killed under it), its notes and its steps' notes
// (what the cleanup did).
func configLines(configs []result.Config) []string {
	var lines []string
	for _, c := range configs {
		v := c.Version
		if v == "" {
			v = "version unknown"
		}
		line := fmt.Sprintf("%s: %s %s, status %s", c.Name, c.Engine, v, c.Status)
		if c.Error != "" {
			line += ": " + c.Error
		}
		lines = append(lines, line)
		lines = append(lines, memoryLines(c)...)
		for _, n := range c.Notes {
			lines = append(lines, c.Name+": "+n)
		}
		for _, s := range c.Steps {
			for _, n := range s.Notes {
				lines = append(lines, c.Name+": "+s.Name+": "+n)
			}
		}
	}
	return lines
}

// latencyCells are an operation's p50, p90, p99, p99.9, max and mean, or missing when it ran
// no operation.
func latencyCells(op *result.Op) []string {
	if op.Count == 0 {
		return []string{missing, missing, missing, missing, missing, missing}
	}
	l := op.Latency
	return []string{numfmt.Duration(l.P50), numfmt.Duration(l.P90), numfmt.Duration(l.P99), numfmt.Duration(l.P999), numfmt.Duration(l.Max), numfmt.Duration(l.Mean)}
}

// responseCells are op's response time p50, p99 and max (an open-loop writer's, from when each
// operation was due), missing where it has none or did no operation.
func responseCells(op *result.Op) []string {
	if op.Response == nil || op.Count == 0 {
		return []string{missing, missing, missing}
	}
	rt := op.Response
	return []string{numfmt.Duration(rt.P50), numfmt.Duration(rt.P99), numfmt.Duration(rt.Max)}
}

// opLabel names an operation in a table, marking a background writer's.
func opLabel(name string, op *result.Op) string {
	if op.Background {
		return name + " (bg)"
	}
	return name
}

// rateSteps returns, in the order they ran, the names of steps that have a headline rate.
func rateSteps(r *result.Run) []string {
	return stepsWith(r, func(s *result.Step) bool { return s.Primary != "" })
}

// stepsWith returns, in the order they ran, the names of the steps for which has holds in at
// least one configuration.
func stepsWith(r *result.Run, has func(*result.Step) bool) []string {
	var names []string
	for _, c := range r.Configs {
		for i := range c.Steps {
			if s := &c.Steps[i]; has(s) && !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

func findStep(c result.Config, name string) *result.Step {
	for i := range c.Steps {
		if c.Steps[i].Name == name {
			return &c.Steps[i]
		}
	}
	return nil
}

// unit is what a step's headline rate counts.
func unit(step string) string {
	if strings.HasPrefix(step, "q") || strings.HasPrefix(step, "run.") || step == "warmup" {
		return "qps"
	}
	return "ips"
}

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

// rateCell is a step's headline rate with its marks (SLA missed, client-bound), or why there
// is none.
func rateCell(s *result.Step) string { return rateSpanCell(s, nil) }

// rateSpanCell is rateCell with the rate's spread over the configuration's repeats (sr; none
// when nil): "20.1k (19.5k-20.8k) (SLA missed)".
func rateSpanCell(s *result.Step, sr *spread) string {
	if s == nil {
		return missing
	}
	if s.Status != result.StatusOK {
		return s.Status
	}
	op := s.Ops[s.Primary]
	if op == nil {
		return missing
	}
	var marks []string
	if s.Target != nil && !s.Target.SLAMet {
		marks = append(marks, "SLA missed")
	}
	if s.ClientBound {
		marks = append(marks, clientBoundMark)
	}
	v := numfmt.Num(op.PerSec)
	if sr != nil {
		lo, lok := stepRate(sr.min)
		hi, hok := stepRate(sr.max)
		if lok && hok {
			v += spreadText(numfmt.Num(lo), numfmt.Num(hi), sr)
		}
	}
	if len(marks) > 0 {
		v += " (" + strings.Join(marks, ", ") + ")"
	}
	return v
}

// opNames returns a step's ops: the headline op first, then the others by name.
func opNames(s result.Step) []string {
	names := slices.Sorted(maps.Keys(s.Ops))
	if i := slices.Index(names, s.Primary); i > 0 {
		names = append([]string{s.Primary}, slices.Delete(names, i, i+1)...)
	}
	return names
}

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

// opCells are the cells cells makes of the named op of a step, all missing (n of them) where
// the step has no such op.
func opCells(name string, cells func(*result.Op) []string) func(*result.Step) []string {
	return func(s *result.Step) []string {
		if op := s.Ops[name]; op != nil {
			return cells(op)
		}
		return allMissing(cells(&result.Op{}))
	}
}

// allMissing returns cells, each set to missing.
func allMissing(cells []string) []string {
	for i := range cells {
		cells[i] = missing
	}
	return cells
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

func details(r *result.Run, sp spreads) Table {
	t := Table{Title: "Steps", Header: []string{"config", "step", "status", "time", "probe", "fairness", "verify", "retries"}}
	for _, c := range r.Configs {
		for i := range c.Steps {
			s := &c.Steps[i]
			status := s.Status // the error is in the header lines
			verify, retries := missing, missing
			if s.Verify != nil {
				verify = "ok"
				if !s.Verify.OK {
					verify = "FAILED"
				}
			}
			if len(s.Retries) > 0 {
				var parts []string
				for _, op := range slices.Sorted(maps.Keys(s.Retries)) {
					parts = append(parts, fmt.Sprintf("%s %d", op, s.Retries[op]))
				}
				retries = strings.Join(parts, ", ")
			}
			row := append([]string{c.Name, s.Name, status}, sp.cells(c.Name, s, detailCells)...)
			t.Rows = append(t.Rows, append(row, verify, retries))
		}
	}
	return t
}

// detailCells are the figures of a step in the Steps table: time, probe and fairness.
func detailCells(s *result.Step) []string {
	probe, fair := missing, missing
	if s.Probe != nil {
		probe = numfmt.Seconds(s.Probe.MinTrxIDSeconds)
	}
	if s.Fairness != nil && len(s.Ops) > 0 {
		fair = numfmt.Num(s.Fairness.Pct) + "%"
	}
	return []string{numfmt.Seconds(s.Seconds), probe, fair}
}

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

// effColumn is a column of the efficiency tables and its getter.
type effColumn struct {
	name string
	get  func(s *result.Step) *float64
}

// effColumns are the established efficiency columns after the rate, with their getters.
var effColumns = []effColumn{
	{"cpupq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.CPUpq }) }},
	{"cspq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.CSpq }) }},
	{"rpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Rpq }) }},
	{"rkbpq", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.RKBpq }) }},
	{"wpi", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Wpi }) }},
	{"wkbpi", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.WKBpi }) }},
	{"dbgb1", func(s *result.Step) *float64 { return size(s, func(z *result.Size) *float64 { return z.DBGB1 }) }},
	{"dbgb2", func(s *result.Step) *float64 { return size(s, func(z *result.Size) *float64 { return z.DBGB2 }) }},
	{"wamp", func(s *result.Step) *float64 { return eff(s, func(e *result.Efficiency) *float64 { return e.Wamp }) }},
}

func eff(s *result.Step, f func(*result.Efficiency) *float64) *float64 {
	if s.Efficiency == nil {
		return nil
	}
	return f(s.Efficiency)
}

func size(s *result.Step, f func(*result.Size) *float64) *float64 {
	if s.Size == nil {
		return nil
	}
	return f(s.Size)
}

// efficiency returns one table per step with a headline rate: a row per configuration with
// the rate and the established efficiency columns.
func efficiency(r *result.Run, sp spreads) []Table {
	var out []Table
	for _, n := range rateSteps(r) {
		if n == "warmup" {
			continue // not counted
		}
		out = append(out, effTable(r, n, sp))
	}
	return out
}

// effTable is the efficiency table of one step.
func effTable(r *result.Run, step string, sp spreads) Table {
	var header []string
	for _, c := range effColumns {
		header = append(header, c.name)
	}
	return stepTable(r, step, "Efficiency: "+step, header, func(s *result.Step) []string {
		var cells []string
		for _, col := range effColumns {
			cells = append(cells, optNum(col.get(s)))
		}
		return cells
	}, sp)
}

// stepTable is a table of one step with a row per configuration that ran it: the
// configuration, the step's rate, then cells(s) under header; with the spread of each cell
// over a configuration's repeats when sp has them.
func stepTable(r *result.Run, step, title string, header []string, cells func(*result.Step) []string, sp spreads) Table {
	t := Table{Title: title, Header: append([]string{"config", unit(step)}, header...)}
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			sr := sp.get(c.Name, step)
			t.Rows = append(t.Rows, append([]string{c.Name, rateSpanCell(s, sr)}, spreadCells(cells, s, sr)...))
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

func statCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return missing
	}
	return numfmt.Num(v)
}

// optNum formats v, or shows it missing.
func optNum(v *float64) string {
	if v == nil {
		return missing
	}
	return numfmt.Num(*v)
}

// Markdown returns the summary as markdown.
func Markdown(r *result.Run) string {
	s := Build(r)
	s.Tables = append(glanceTables(r), s.Tables...)
	var b strings.Builder
	b.WriteString("# " + s.Lines[0] + "\n\n")
	for _, l := range s.Lines[1:] {
		b.WriteString("- " + markdownLine(l) + "\n")
	}
	for _, t := range s.Tables {
		b.WriteString("\n## " + t.Title + "\n\n")
		writeMarkdownTable(&b, t)
	}
	b.WriteString("\n## Legend\n\n")
	for _, l := range s.Legend {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// markdownLine is a header line in markdown: a warning in bold.
func markdownLine(l string) string {
	if rest, ok := strings.CutPrefix(l, warningPrefix); ok {
		return "**" + strings.TrimSpace(warningPrefix) + "** " + rest
	}
	return l
}

// writeMarkdownTable writes t as a GitHub table through go-pretty: the header as it is (not
// upper case), a pipe in a cell escaped and a line break as <br/>, so a cell stays one cell.
func writeMarkdownTable(b *strings.Builder, t Table) {
	tw := table.NewWriter()
	style := table.StyleDefault
	style.Format.Header = text.FormatDefault
	tw.SetStyle(style)
	tw.AppendHeader(toRow(t.Header))
	for _, row := range t.Rows {
		tw.AppendRow(toRow(row))
	}
	b.WriteString(tw.RenderMarkdown() + "\n")
}

// WriteText writes the summary as terminal tables.
func WriteText(w io.Writer, r *result.Run) error {
	s := Build(r)
	s.Tables = append(glanceTables(r), s.Tables...)
	var b strings.Builder
	for _, l := range s.Lines {
		b.WriteString(l + "\n")
	}
	for _, t := range s.Tables {
		tw := table.NewWriter()
		tw.SetStyle(table.StyleLight)
		tw.SetTitle(t.Title)
		tw.AppendHeader(toRow(t.Header))
		for _, row := range t.Rows {
			tw.AppendRow(toRow(row))
		}
		b.WriteString("\n" + tw.Render() + "\n")
	}
	b.WriteString("\n")
	for _, l := range s.Legend {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func toRow(cells []string) table.Row {
	row := make(table.Row, len(cells))
	for i, c := range cells {
		row[i] = c
	}
	return row
}
