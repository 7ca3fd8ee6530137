package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// ibStep is the name of iiBench's one step.
const ibStep = "run"

// Keys of result.Step.Usage, copied from internal/measure (usage.go: KeyCPU, KeyReads,
// KeyReadKB, KeyWrites, KeyWriteKB): report depends on result only, so it cannot import them.
// TestIIBenchUsageKeys checks that they still match.
const (
	usageCPU     = "cpu_s"    // host CPU seconds
	usageReads   = "reads"    // storage reads on the data directory's device
	usageReadKB  = "read_kb"  // KB read from it
	usageWrites  = "writes"   // storage writes on it
	usageWriteKB = "write_kb" // KB written to it
)

// IIBenchLayout is iiBench's layout: its published totals, the rates against rows inserted,
// the cost, the latency and the resources of each operation; nothing of its own in a ratio of
// two runs (its queries' rate is a step's second rate, which every ratio has).
func IIBenchLayout() Layout { return iiBenchLayout{} }

// iiBenchLayout is iiBench's Layout.
type iiBenchLayout struct{}

// summary is the summary of an iiBench run: the published layout (rows, time, inserts/s,
// queries/s and their ratio), the rates against rows inserted (where the knee shows when the
// data outgrows the cache), the cost, the latency of each operation, the resources per insert
// and per query, the steps and the efficiency.
func (iiBenchLayout) summary(r *result.Run, sp spreads) Summary {
	s := Summary{Lines: header(r)}
	if l := ibParamLine(r); l != "" {
		s.Lines = append(s.Lines, l)
	}
	tables := []Table{ibPublished(r, sp), ibRates(r, sp), ratePercentileTable(r, sp), ibCost(r, sp), ibLatency(r, sp), ibTarget(r, sp), ibPerOp(r, sp), details(r, sp)}
	tables = append(tables, efficiency(r, sp)...)
	tables = append(tables, resourceTable(r, sp), memoryTable(r))
	s.Tables = nonEmpty(tables)
	s.Legend = []string{
		"ips: rows inserted a second; qps: queries a second (each reads up to LIMIT rows from a random point of one index), both over the step's measured time (total time). ins/qry: ips / qps, \"-\" when no query ran.",
		"A failed or interrupted step shows its status instead of its rates.",
		"Rates against rows inserted: each row is a milestone of rows in the table, evenly spaced up to the most any configuration reached (at most 10); its rates are the units / the seconds of the periods (--report-seconds) that ended with more rows than the previous milestone and at most this many.",
		"  q p99: the worst period p99 of the queries among those periods. \"-\": the configuration had no period there, or its queries had not started yet (a 0 after they started is a stall).",
		"  With a single configuration of at most 10 periods, each period is a row: rows in the table at its end, its end and length in seconds since the start, and its rates and query p99.",
		"Cost: run cost = seconds / 3600 x $/hour; per billion inserts = 1e9 / ips / 3600 x $/hour (the cost of inserting a billion rows at the run's average rate). \"<$0.01\": less than a cent.",
		"Latency: service time from full histograms (p50 p90 p99 p99.9 max mean); insert: one batch (one transaction of --insert-batch rows), count in batches; query: one query. ops/s: rows inserted or queries a second; rows: rows the queries returned; errors: operations that failed.",
		"  rt p99, rt max: under --max-insert-rate, the response time of a batch, from when it was due (open loop) to its commit, so a batch that waited behind late ones shows its wait. Rate limit: the target rows a second, those achieved over the step's time, met when at least 95% of the target.",
		"Per insert and per query: the step's host CPU microseconds, storage reads and KB read, writes and KB written (the data directory's device, as iostat shows it) divided by rows inserted or by queries. The CPU is not split between inserts and queries: both columns divide the same total.",
		"verify: every row read through the primary key is a row an insert thread wrote, with its values, none missing or extra, and every secondary index holds exactly the entries of those rows.",
		"Efficiency: run, per row inserted: cpupq: host CPU microseconds; cspq: context switches; rpq, rkbpq: storage reads and KB read; wpi, wkbpi: storage writes and KB written;",
		"  dbgb1: GB of the database's own files at the step's end; dbgb2: GB of the whole data directory; wamp: KB written to storage / logical KB inserted.",
		"  An embedded engine runs in the enginebench process, so its DBMS CPU and IO include the harness (the null engine shows the harness's share). \"-\": not measured (see the notes).",
	}
	s.Legend = append(append(append(s.Legend, resourceLegend...), clientLegend(r)...), memoryLegend(r)...)
	s.Legend = append(s.Legend, srvLegend(r)...)
	return s
}

// brief is iiBench's published table: rows, time, inserts/s, queries/s and their ratio.
func (iiBenchLayout) brief(r *result.Run, sp spreads) []Table {
	return []Table{ibPublished(r, sp)}
}

// sections are iiBench's sections: the published totals, inserts/s and queries/s
// against rows inserted (chart and table), the cost, latency, resources per operation, the
// per-second insert rate and latency, the steps and the efficiency.
func (iiBenchLayout) sections(r *result.Run, p *Page) []Section {
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

// ratio adds nothing: iiBench's queries beside its inserts are in every ratio (rateColumns).
func (iiBenchLayout) ratio(_, _ *result.Run) ratioAdds { return ratioAdds{} }

// ibPerOpCells are a step's resources per row inserted and per query, from its raw totals:
// CPU us per insert and per query, reads and KB read per query, writes and KB written per insert.
func ibPerOpCells(s *result.Step) []string {
	units := func(op string) int64 {
		if o := s.Ops[op]; o != nil {
			return o.Units
		}
		return 0
	}
	ins, qry := units("insert"), units("query")
	per := func(key string, scale float64, n int64) string {
		v, ok := s.Usage[key]
		if !ok || n <= 0 {
			return missing
		}
		return numfmt.Num(v * scale / float64(n))
	}
	return []string{per(usageCPU, 1e6, ins), per(usageCPU, 1e6, qry),
		per(usageReads, 1, qry), per(usageReadKB, 1, qry),
		per(usageWrites, 1, ins), per(usageWriteKB, 1, ins)}
}

// ibParam returns a numeric workload parameter, which is an int from the workload and a
// float64 when the run was read back from run.json.
func ibParam(r *result.Run, key string) (float64, bool) {
	switch v := r.Workload.Params[key].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	}
	return 0, false
}

// ibParamLine is a header line with the run's size and threads.
func ibParamLine(r *result.Run) string {
	var parts []string
	if v, ok := ibParam(r, "max_rows"); ok {
		parts = append(parts, "max rows "+strconv.FormatFloat(v, 'f', 0, 64))
	}
	if v, ok := ibParam(r, "seconds"); ok {
		if v > 0 {
			parts = append(parts, "time limit "+numfmt.Seconds(v))
		} else {
			parts = append(parts, "no time limit")
		}
	}
	for _, p := range []struct{ key, label string }{
		{"insert_threads", "insert threads"}, {"query_threads", "query threads"},
		{"secondary_indexes", "secondary indexes"}} {
		if v, ok := ibParam(r, p.key); ok {
			parts = append(parts, fmt.Sprintf("%s %s", p.label, numfmt.Num(v)))
		}
	}
	if v, ok := ibParam(r, "report_seconds"); ok && v > 0 {
		parts = append(parts, "report every "+numfmt.Seconds(v))
	}
	if v, ok := ibParam(r, "cost_per_hour"); ok && v > 0 {
		parts = append(parts, "machine "+dollars(v)+"/hour")
	}
	if len(parts) == 0 {
		return ""
	}
	return "iiBench: " + strings.Join(parts, ", ")
}

// ibPublished is the published iiBench table: a row per configuration with rows inserted,
// run time, inserts/s, queries/s and their ratio.
func ibPublished(r *result.Run, sp spreads) Table {
	t := Table{Title: "iiBench", Header: []string{"config", "engine", "rows", "total time", "inserts/s", "queries/s", "ins/qry"}}
	for _, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil {
			// Failed before the step (at open): say so rather than leave the rates blank.
			cell := missing
			if c.Status != result.StatusOK && c.Status != "" {
				cell = c.Status
			}
			t.Rows = append(t.Rows, []string{c.Name, c.Engine, missing, missing, cell, cell, cell})
			continue
		}
		sr := sp.get(c.Name, s.Name)
		figs := spreadCells(ibPublishedCells, s, sr)
		row := append([]string{c.Name, c.Engine}, figs[:2]...)
		t.Rows = append(t.Rows, append(append(row, rateSpanCell(s, sr)), figs[2:]...))
	}
	return t
}

// ibPublishedCells are the figures of iiBench's step in its published table: rows, total time,
// queries/s and ins/qry (the step's status instead of the rates when it did not finish).
func ibPublishedCells(s *result.Step) []string {
	rows, secs := missing, missing
	if ins := s.Ops["insert"]; ins != nil {
		rows = fmt.Sprint(ins.Units)
	}
	if s.Seconds > 0 {
		secs = numfmt.Seconds(s.Seconds)
	}
	if s.Status != result.StatusOK {
		return []string{rows, secs, s.Status, s.Status}
	}
	qps, ratio := missing, missing
	if q := s.Ops["query"]; q != nil && q.Count > 0 {
		qps = numfmt.Num(q.PerSec)
		if ins := s.Ops["insert"]; ins != nil && q.PerSec > 0 {
			ratio = numfmt.Num(ins.PerSec / q.PerSec)
		}
	}
	return []string{rows, secs, qps, ratio}
}

// dollars formats an amount of dollars with cents; a positive amount under half a cent is
// "<$0.01", never a $0.00 that looks free.
func dollars(v float64) string {
	if v > 0 && v < 0.005 {
		return "<$0.01"
	}
	return fmt.Sprintf("$%.2f", v)
}

// ibCost is the cost of each configuration's run at the given machine price.
func ibCost(r *result.Run, sp spreads) Table {
	t := Table{Title: "Cost", Header: []string{"config", "$/hour", "run time", "run cost", "$ per billion inserts"}}
	for _, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil || s.Cost == nil {
			continue
		}
		t.Rows = append(t.Rows, append([]string{c.Name, dollars(s.Cost.PerHour)}, sp.cells(c.Name, s, ibCostCells)...))
	}
	return t
}

// ibCostCells are a step's run time, run cost and cost per billion inserts.
func ibCostCells(s *result.Step) []string {
	if s.Cost == nil {
		return []string{numfmt.Seconds(s.Seconds), missing, missing}
	}
	per := missing
	if s.Cost.PerBillionInserts != nil {
		per = dollars(*s.Cost.PerBillionInserts)
	}
	return []string{numfmt.Seconds(s.Seconds), dollars(s.Cost.Run), per}
}

// ibLatency is the latency of each operation of each configuration's run.
func ibLatency(r *result.Run, sp spreads) Table {
	t := Table{Title: "Latency per operation", Header: []string{"config", "op", "count", "ops/s",
		"p50", "p90", "p99", "p99.9", "max", "mean", "errors", "rows", "rt p99", "rt max", "p25", "p75"}}
	for _, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil {
			continue
		}
		for _, name := range opNames(*s) {
			cells := sp.cells(c.Name, s, func(s *result.Step) []string {
				op := s.Ops[name]
				if op == nil {
					return allMissing(ibLatencyCells(s, name, &result.Op{}))
				}
				return ibLatencyCells(s, name, op)
			})
			t.Rows = append(t.Rows, append([]string{c.Name, name}, cells...))
		}
	}
	return t
}

// ibLatencyCells are the latency table's cells of the named op of iiBench's step s.
func ibLatencyCells(s *result.Step, name string, op *result.Op) []string {
	rate := numfmt.Num(op.PerSec)
	if s.Status != result.StatusOK {
		rate = s.Status
	} else if op.Count == 0 {
		rate = missing // as in the iiBench table: no queries is no rate
	}
	row := []string{fmt.Sprint(op.Count), rate}
	row = append(row, latencyCells(op)...)
	rows := missing
	if name == "query" && op.Count > 0 {
		rows = fmt.Sprint(op.Found)
	}
	row = append(row, fmt.Sprint(op.Errors), rows)
	row = append(row, responseCells(op)[1:]...) // rt p99, rt max
	return append(row, quartileCells(op)...)
}

// ibTarget is the rate limit of each configuration's inserts and whether it was met; no rows
// without --max-insert-rate.
func ibTarget(r *result.Run, sp spreads) Table {
	t := Table{Title: "Rate limit", Header: []string{"config", "target ins/s", "achieved ins/s", "met"}}
	for _, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil || s.Target == nil {
			continue
		}
		met := "yes"
		if !s.Target.SLAMet {
			met = "NO"
		}
		achieved := sp.cells(c.Name, s, func(s *result.Step) []string { return []string{slaAchieved(s)} })[0]
		t.Rows = append(t.Rows, []string{c.Name, numfmt.Num(s.Target.InsertsPerSec), achieved, met})
	}
	return t
}

// ibPerOp is the step's resources per row inserted and per query, from its raw totals. It has
// no rows when nothing was measured.
func ibPerOp(r *result.Run, sp spreads) Table {
	t := Table{Title: "Per insert and per query", Header: []string{"config", "CPU us/insert", "CPU us/query",
		"reads/query", "KB read/query", "writes/insert", "KB written/insert"}}
	measured := false
	for _, c := range r.Configs {
		s := findStep(c, ibStep)
		if s == nil {
			continue
		}
		cells := ibPerOpCells(s)
		measured = measured || slices.ContainsFunc(cells, func(c string) bool { return c != missing })
		t.Rows = append(t.Rows, append([]string{c.Name}, sp.cells(c.Name, s, ibPerOpCells)...))
	}
	if !measured {
		t.Rows = nil
	}
	return t
}
