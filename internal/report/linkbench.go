package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// maxLatencyIntervals is the number of intervals up to which the per-op latency table shows
// every one; beyond it, the first and the last.
const maxLatencyIntervals = 6

// LinkBenchLayout is LinkBench's layout: its published table (load, then the QPS and size of
// each request interval), the load, the latency of each operation; on the page the per-second
// request and load rates; in a ratio of two runs the request rate of the last interval and of
// all of them, and each operation's.
func LinkBenchLayout() Layout { return linkBenchLayout{} }

// linkBenchLayout is LinkBench's Layout.
type linkBenchLayout struct{}

// summary is the summary of a LinkBench run: the published layout (load time, rate
// and size, then QPS and size of each interval), the load, per-op latency, steps and
// efficiency.
func (linkBenchLayout) summary(r *result.Run, sp spreads) Summary {
	s := Summary{Lines: header(r)}
	tables := []Table{lbPublished(r, sp), lbLoad(r, sp), ratePercentileTable(r, sp), lbLatency(r, sp), details(r, sp)}
	tables = append(tables, efficiency(r, sp)...)
	tables = append(tables, resourceTable(r, sp), memoryTable(r))
	tables = append(tables, capacityTables(r)...)
	s.Tables = nonEmpty(tables)
	s.Legend = []string{
		"load: seconds of the load step (and of the index step when id1_type is built afterwards); links/s: links loaded a second; GB: dbgb1, the database's own files at the step's end.",
		"Load: links+counts/s and (link+count+node)/s: links and counts, and links, counts and nodes, loaded a second of the load step, as LinkBench's end-of-load line gives them.",
		"run.N: the request intervals, of equal length; qps: requests a second over every operation; GB: dbgb1 at the interval's end. The warmup is not counted.",
		"Latency: service time of each operation from full histograms (p50 p90 p99 p99.9 max mean); rt: response time from the intended start under --request-rate (includes queueing).",
		"rows: links returned by GET_LINKS_LIST and found by MULTIGET_LINK. errors: operations that failed after their retries (transient conflicts); retries are in the Steps table.",
		"verify: the tables hold the rows expected, and every link (through its primary key and id1_type), count and node of the checked id1s is what its key and version give, each count equal to its visible links.",
		"Efficiency, per operation of the step (links loaded; requests): cpupq: host CPU microseconds; cspq: context switches; rpq, rkbpq: storage reads and KB read; wpi, wkbpi: storage writes and KB written per operation;",
		"  dbgb1: GB of the database's own files at the step's end; dbgb2: GB of the whole data directory; wamp: KB written to storage / logical KB loaded (load only).",
		"  An embedded engine runs in the enginebench process, so its DBMS CPU and IO include the harness (the null engine shows the harness's share). \"-\": not measured (see the notes).",
	}
	s.Legend = append(append(append(s.Legend, resourceLegend...), clientLegend(r)...), memoryLegend(r)...)
	s.Legend = append(s.Legend, srvLegend(r)...)
	s.Legend = append(s.Legend, capacityLegend(r)...)
	return s
}

// brief is LinkBench's published table (the load's time, rate and size, the QPS and size of
// each request interval) and a capacity search's best rates: not its levels.
func (linkBenchLayout) brief(r *result.Run, sp spreads) []Table {
	return []Table{lbPublished(r, sp), capacityTables(r)[0]}
}

// sections are LinkBench's sections: the published layout (load time, rate and size;
// QPS and size of each interval), the load, the per-second request rate and load rate, the
// per-op latency, the steps and the efficiency.
func (linkBenchLayout) sections(r *result.Run, p *Page) []Section {
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

// ratio adds LinkBench's request rate in each run's last request interval and over all of
// them, and a table of each operation over all of them, as its seed compares a cached run of 6
// intervals with an IO-bound run of 24.
func (linkBenchLayout) ratio(a, b *result.Run) ratioAdds {
	return ratioAdds{
		cols:   lbIntervalCols(),
		text:   "last interval: each run's last request interval (e.g. run.6 of a cached run of 6 against run.24 of an IO-bound run of 24); all intervals: the request rate over every request interval together.",
		tables: []ratioSpec{{title: "Operations over all request intervals", cols: lbOpRatioCols(a, b)}},
	}
}

// intervalNames returns the request intervals (run.N) that ran, in order.
func intervalNames(r *result.Run) []string {
	var names []string
	for _, n := range rateSteps(r) {
		if strings.HasPrefix(n, "run.") {
			names = append(names, n)
		}
	}
	return names
}

// dbgb is the step's dbgb1 as a cell.
func dbgb(s *result.Step) string {
	if s == nil || s.Status != result.StatusOK {
		return missing
	}
	return optNum(size(s, func(z *result.Size) *float64 { return z.DBGB1 }))
}

// lbPublished is the published LinkBench table: a row per configuration with the load's
// seconds, rate and size, then QPS and size of every interval.
func lbPublished(r *result.Run, sp spreads) Table {
	t := Table{Title: "LinkBench", Header: []string{"config", "load s", "links/s", "load GB"}}
	ivs := intervalNames(r)
	for _, n := range ivs {
		t.Header = append(t.Header, n+" qps", n+" GB")
	}
	for _, c := range r.Configs {
		load, ix := findStep(c, "load"), findStep(c, "index")
		size := load
		if ix != nil {
			size = ix
		}
		row := []string{c.Name, lbLoadSeconds(c.Name, load, ix, sp), rateSpanCell(load, sp.get(c.Name, "load")), stepSpreadCell(c.Name, size, sp, dbgb)}
		for _, n := range ivs {
			s := findStep(c, n)
			row = append(row, rateSpanCell(s, sp.get(c.Name, n)), stepSpreadCell(c.Name, s, sp, dbgb))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// stepSpreadCell is cell(s) of config's step s (nil: none), with its spread over the
// configuration's repeats (spreadCells).
func stepSpreadCell(config string, s *result.Step, sp spreads, cell func(*result.Step) string) string {
	if s == nil {
		return cell(nil)
	}
	return spreadCell(cell, s, sp.get(config, s.Name))
}

// lbLoadSeconds is the seconds of the load step and of the index step after it (ix, nil when
// none), with their spread over the configuration's repeats: each repeat's load and index
// seconds added, when every repeat finished both.
func lbLoadSeconds(config string, load, ix *result.Step, sp spreads) string {
	secs := func(load, ix *result.Step) string {
		if load == nil || load.Status != result.StatusOK {
			return missing
		}
		total := load.Seconds
		if ix != nil && ix.Status == result.StatusOK {
			total += ix.Seconds
		}
		return numfmt.Num(total)
	}
	med := secs(load, ix)
	lr, ir := sp.get(config, "load"), sp.get(config, "index")
	if lr == nil || ix != nil && (ir == nil || len(ir.reps) != len(lr.reps) || ir.n < ir.of || lr.n < lr.of) {
		return med
	}
	reps := make([]string, len(lr.reps))
	for i, l := range lr.reps {
		var x *result.Step
		if ix != nil {
			x = ir.reps[i]
		}
		reps[i] = secs(l, x)
	}
	return med + figureSpread(med, reps, lr.of)
}

// lbLoad details each configuration's load: links, counts and nodes, their rates, and the
// index step when there is one.
func lbLoad(r *result.Run, sp spreads) Table {
	t := Table{Title: "Load", Header: []string{"config", "step", "status", "time", "links", "links/s", "links+counts/s",
		"(link+count+node)/s", "nodes", "links/node", "GB"}}
	for _, c := range r.Configs {
		for _, name := range []string{"load", "index"} {
			s := findStep(c, name)
			if s == nil {
				continue
			}
			row := []string{c.Name, name, s.Status}
			t.Rows = append(t.Rows, append(row, sp.cells(c.Name, s, lbLoadCells)...))
		}
	}
	return t
}

// lbLoadCells are the figures of a load or index step in the Load table: its time, links,
// links/s, links+counts/s, (link+count+node)/s, nodes, links/node and GB.
func lbLoadCells(s *result.Step) []string {
	row := []string{numfmt.Seconds(s.Seconds)}
	links, counts, nodes := s.Ops["link"], s.Ops["count"], s.Ops["node"]
	if s.Name == "index" {
		links = s.Ops["index"]
	}
	if links == nil || s.Status != result.StatusOK {
		row = append(row, missing, missing, missing, missing, missing, missing)
	} else {
		both, all := missing, missing
		if counts != nil && s.Seconds > 0 {
			both = numfmt.Num(float64(links.Units+counts.Units) / s.Seconds)
			if nodes != nil {
				all = numfmt.Num(float64(links.Units+counts.Units+nodes.Units) / s.Seconds)
			}
		}
		nodeCell, per := missing, missing
		if nodes != nil {
			nodeCell = fmt.Sprint(nodes.Units)
			if nodes.Units > 0 {
				per = numfmt.Num(float64(links.Units) / float64(nodes.Units))
			}
		}
		row = append(row, fmt.Sprint(links.Units), numfmt.Num(links.PerSec), both, all, nodeCell, per)
	}
	return append(row, dbgb(s))
}

// lbLatency is the per-op latency of the request intervals: every interval up to
// maxLatencyIntervals, else the first and the last.
func lbLatency(r *result.Run, sp spreads) Table {
	t := Table{Title: "Latency per operation", Header: []string{"config", "step", "op", "count", "ops/s",
		"p50", "p90", "p99", "p99.9", "max", "mean", "rt p99", "errors", "rows", "p25", "p75"}}
	for _, c := range r.Configs {
		for _, n := range latencyIntervals(r) {
			s := findStep(c, n)
			if s == nil {
				continue
			}
			for _, name := range opNames(*s) {
				row := []string{c.Name, n, name}
				t.Rows = append(t.Rows, append(row, sp.cells(c.Name, s, opCells(name, func(op *result.Op) []string {
					row := append([]string{fmt.Sprint(op.Count), numfmt.Num(op.PerSec)}, latencyCells(op)...)
					rows := missing
					if name == "GET_LINKS_LIST" || name == "MULTIGET_LINK" {
						rows = fmt.Sprint(op.Found)
					}
					row = append(row, responseCells(op)[1], fmt.Sprint(op.Errors), rows) // rt p99
					return append(row, quartileCells(op)...)
				}))...))
			}
		}
	}
	return t
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

// latencyIntervals are the request intervals (run.N) of LinkBench's latency table and box
// view: every one up to maxLatencyIntervals, else the first and the last.
func latencyIntervals(r *result.Run) []string {
	ivs := intervalNames(r)
	if len(ivs) > maxLatencyIntervals {
		ivs = []string{ivs[0], ivs[len(ivs)-1]}
	}
	return ivs
}

// lbRequests is the op of a LinkBench request interval that counts every request.
const lbRequests = "requests"

// lbIntervalCols are LinkBench's request rate in each run's last request interval and over
// all its request intervals.
func lbIntervalCols() []ratioCol {
	return []ratioCol{
		{header: "last interval qps", rate: func(r *result.Run, config string) (float64, bool) {
			ivs := configIntervals(r, config)
			if len(ivs) == 0 {
				return 0, false
			}
			last := ivs[len(ivs)-1]
			return opRate(r, config, last.Name, lbRequests)
		}},
		{header: "all intervals qps", rate: func(r *result.Run, config string) (float64, bool) {
			return intervalsRate(configIntervals(r, config), lbRequests)
		}},
	}
}

// lbOpRatioCols are the rates of each LinkBench operation (ADD_LINK, GET_NODE, ...) either run
// has, over all the request intervals.
func lbOpRatioCols(a, b *result.Run) []ratioCol {
	var ops []string
	for _, r := range []*result.Run{a, b} {
		for _, c := range r.Configs {
			for _, s := range configIntervals(r, c.Name) {
				for op := range maps.Keys(s.Ops) {
					if op != lbRequests && !slices.Contains(ops, op) {
						ops = append(ops, op)
					}
				}
			}
		}
	}
	slices.Sort(ops)
	var cols []ratioCol
	for _, op := range ops {
		cols = append(cols, ratioCol{header: op + " ops/s", rate: func(r *result.Run, config string) (float64, bool) {
			return intervalsRate(configIntervals(r, config), op)
		}})
	}
	return cols
}

// configIntervals are the request intervals (run.N) of the named configuration, in the order
// they ran.
func configIntervals(r *result.Run, config string) []*result.Step {
	c := findConfig(r, config)
	if c == nil {
		return nil
	}
	var out []*result.Step
	for i := range c.Steps {
		if strings.HasPrefix(c.Steps[i].Name, "run.") {
			out = append(out, &c.Steps[i])
		}
	}
	return out
}

// intervalsRate is op's rate over all the intervals together: each interval's rate weighted by
// its seconds. An interval without the op did none; ok is false when an interval did not
// finish, or none has the op.
func intervalsRate(ivs []*result.Step, op string) (float64, bool) {
	var units, secs float64
	found := false
	for _, s := range ivs {
		if s.Status != result.StatusOK {
			return 0, false
		}
		if o := s.Ops[op]; o != nil {
			units += o.PerSec * s.Seconds
			found = true
		}
		secs += s.Seconds
	}
	if !found || secs <= 0 {
		return 0, false
	}
	return units / secs, true
}
