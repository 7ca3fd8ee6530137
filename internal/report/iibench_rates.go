package report

import (
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

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

// iiBench's rates against rows inserted: the table of the summary and the page, and the page's
// charts of each report period.

// maxRateMarks is the most row milestones the rates table has; it is also the most periods a
// single configuration may have to be shown period by period.
const maxRateMarks = 10

// ibSeries is one configuration's periods.
type ibSeries struct {
	name    string
	periods []result.Period
}

func ibAllSeries(r *result.Run) []ibSeries {
	var out []ibSeries
	for _, c := range r.Configs {
		if s := findStep(c, ibStep); s != nil && len(s.Periods) > 0 {
			out = append(out, ibSeries{c.Name, s.Periods})
		}
	}
	return out
}

// ibRates is the rates against rows inserted. Rule: the rows of the table are row milestones,
// up to maxRateMarks marks evenly spaced by a readable step (1, 2, 2.5 or 5 times a power of
// ten) up to the most rows any configuration's periods reached; a mark covers the periods
// whose rows at their end are in (previous mark, mark] (the first mark also takes periods
// ending with 0 rows). Each configuration with periods has three columns: ips and qps over
// those periods (units summed / seconds summed) and the worst period query p99. Marks where
// no configuration has a period are left out. One rule for every run, so that several
// configurations line up; the only exception is a single configuration with at most
// maxRateMarks periods, which shows each period as a row (rows, end, length, ips, qps, q p99).
//
// Queries count from the first period by whose end some query had run (cumulative queries >
// 0); before that the qps is "-", not 0. After it, a period without queries is a stall and
// counts as 0 queries.
func ibRates(r *result.Run, sp spreads) Table {
	t := Table{Title: "Rates against rows inserted"}
	series := ibAllSeries(r)
	if len(series) == 0 {
		return t
	}
	if len(series) == 1 && len(series[0].periods) <= maxRateMarks {
		return ibPeriodRates(t, series[0], sp.get(series[0].name, ibStep))
	}
	var top int64
	for _, s := range series {
		for _, p := range s.periods {
			top = max(top, p.Rows)
		}
	}
	if top <= 0 {
		return t // no row counts to place the periods by
	}
	return ibMarkRates(t, series, sp, niceStep(top, maxRateMarks), top)
}

// ibPeriodRates is ibRates of one configuration (s, with its repeats' spread sr) whose
// periods are few: a row per period.
func ibPeriodRates(t Table, s ibSeries, sr *spread) Table {
	t.Header = []string{"rows", "end", "length", "ips", "qps", "q p99"}
	for i := range s.periods {
		cells := func(ps []result.Period) []string {
			if i >= len(ps) {
				return nil
			}
			ips, qps, p99 := ibRateCells(ps[i : i+1])
			return []string{fmt.Sprint(ps[i].Rows), numfmt.Seconds(ps[i].End), numfmt.Seconds(ps[i].Seconds), ips, qps, p99}
		}
		row := cells(s.periods)
		if sr != nil {
			var reps [][]string
			for _, rs := range sr.reps {
				reps = append(reps, cells(rs.Periods))
			}
			row = withSpreads(row, reps, sr.of)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ibMarkRates is ibRates by row milestones: marks of step rows up to top.
func ibMarkRates(t Table, series []ibSeries, sp spreads, step, top int64) Table {
	marks := int((top + step - 1) / step)
	t.Header = []string{"rows"}
	// byMark[i][m] holds config i's periods of mark m; repMarks[i][k][m] its repeat k's.
	byMark := make([][][]result.Period, len(series))
	repMarks := make([][][][]result.Period, len(series))
	for i, s := range series {
		t.Header = append(t.Header, s.name+" ips", s.name+" qps", s.name+" q p99")
		byMark[i] = periodMarks(s.periods, step, marks)
		if sr := sp.get(s.name, ibStep); sr != nil {
			for _, rs := range sr.reps {
				repMarks[i] = append(repMarks[i], periodMarks(rs.Periods, step, marks))
			}
		}
	}
	for m := range marks {
		row := []string{fmt.Sprint(int64(m+1) * step)}
		seen := false
		for i := range series {
			ps := byMark[i][m]
			if len(ps) == 0 {
				row = append(row, missing, missing, missing)
				continue
			}
			seen = true
			ips, qps, p99 := ibRateCells(ps)
			cells := []string{ips, qps, p99}
			if sr := sp.get(series[i].name, ibStep); sr != nil {
				var reps [][]string
				for _, rm := range repMarks[i] {
					ips, qps, p99 := ibRateCells(rm[m])
					reps = append(reps, []string{ips, qps, p99})
				}
				cells = withSpreads(cells, reps, sr.of)
			}
			row = append(row, cells...)
		}
		if seen {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// periodMarks places periods by the marks of step rows (ibRates): a period beyond the last
// mark is left out.
func periodMarks(periods []result.Period, step int64, marks int) [][]result.Period {
	out := make([][]result.Period, marks)
	for _, p := range periods {
		if m := max(int((p.Rows+step-1)/step)-1, 0); m < marks {
			out[m] = append(out[m], p)
		}
	}
	return out
}

// ibRateCells returns the insert rate, query rate and worst query p99 over periods.
func ibRateCells(ps []result.Period) (ips, qps, p99 string) {
	var secs, qsecs float64
	var rows, queries int64
	var worst float64
	hasIns, started, measured := false, false, false
	for _, p := range ps {
		secs += p.Seconds
		if op, ok := p.Ops["insert"]; ok {
			hasIns = true
			rows += op.Units
		}
		q, ok := p.Ops["query"]
		if !ok || q.CumUnits == 0 && q.Units == 0 {
			continue // queries had not started by this period's end
		}
		started = true
		qsecs += p.Seconds
		queries += q.Units
		if q.Count > 0 {
			measured = true
			worst = max(worst, q.Latency.P99)
		}
	}
	ips, qps, p99 = missing, missing, missing
	if hasIns && secs > 0 {
		ips = numfmt.Num(float64(rows) / secs)
	}
	if started && qsecs > 0 {
		qps = numfmt.Num(float64(queries) / qsecs)
	}
	if measured {
		p99 = numfmt.Duration(worst)
	}
	return ips, qps, p99
}

// niceStep returns the smallest of 1, 2, 2.5 and 5 times a power of ten (whole numbers only)
// that covers top in at most n steps.
func niceStep(top int64, n int) int64 {
	raw := (top + int64(n) - 1) / int64(n)
	for p := int64(1); ; p *= 10 {
		for _, f := range []float64{1, 2, 2.5, 5} {
			v := f * float64(p)
			if v != math.Trunc(v) {
				continue
			}
			if int64(v) >= raw {
				return int64(v)
			}
		}
	}
}
