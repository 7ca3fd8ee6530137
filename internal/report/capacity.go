package report

import (
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// Titles of the capacity search's tables.
const (
	capacityTitle       = "Capacity: best sustainable rate"
	capacityLevelsTitle = "Capacity levels"
)

// capacityTables are the capacity search's tables (run --capacity): the best sustainable
// rate of each configuration with the levels it tried, and every level with its verdict. Both
// have no rows (and are left out) when no configuration searched.
func capacityTables(r *result.Run) []Table {
	best := Table{Title: capacityTitle, Header: []string{"config", "best rate", "unit", "levels", "levels tried"}}
	levels := Table{Title: capacityLevelsTitle, Header: []string{"config", "step", "target", "achieved", "rt p99", "p99 limit", "debt", "verdict", "reason"}}
	for _, c := range r.Configs {
		cp := c.Capacity
		if cp == nil {
			continue
		}
		b := missing
		if cp.BestRate != nil {
			b = numfmt.Num(*cp.BestRate)
		}
		var tried []string
		for _, l := range cp.Levels {
			tried = append(tried, numfmt.Num(l.Rate)+" "+l.Verdict)
			levels.Rows = append(levels.Rows, levelRow(c.Name, l))
			levels.Class = append(levels.Class, verdictClasses(l.Verdict, len(levels.Header)))
		}
		best.Rows = append(best.Rows, []string{c.Name, b, cp.Units, fmt.Sprint(len(cp.Levels)), strings.Join(tried, ", ")})
	}
	return []Table{best, levels}
}

// levelRow is a level's row of the levels table.
func levelRow(config string, l result.CapacityLevel) []string {
	return []string{config, l.Step, numfmt.Num(l.Rate), numfmt.Num(l.Achieved), optDuration(l.P99Us),
		optDuration(l.P99LimitUs), debtCell(l), l.Verdict, orMissing(l.Reason)}
}

// verdictClasses colours a level's verdict cell: a failed level's bad.
func verdictClasses(verdict string, n int) []string {
	cls := make([]string, n)
	if verdict == result.VerdictFail {
		cls[n-2] = ClassBad
	}
	return cls
}

// optDuration formats microseconds, or shows them missing.
func optDuration(us *float64) string {
	if us == nil {
		return missing
	}
	return numfmt.Duration(*us)
}

// debtCell lists a level's debt counters (name=value), "name=-" for one the engine does not
// report, "-" when none was judged.
func debtCell(l result.CapacityLevel) string {
	var parts []string
	for _, k := range sortedKeys(l.Debt) {
		parts = append(parts, k+"="+numfmt.Num(l.Debt[k]))
	}
	for _, k := range l.DebtUnmeasured {
		parts = append(parts, k+"="+missing)
	}
	if len(parts) == 0 {
		return missing
	}
	return strings.Join(parts, " ")
}

// capacitySection is the report's section of the capacity search: its tables and a chart of
// the achieved rate against the target of each level, passes and failures marked; nil when no
// configuration searched.
func capacitySection(r *result.Run) *Section {
	tables := nonEmpty(capacityTables(r))
	if len(tables) == 0 {
		return nil
	}
	sec := &Section{ID: "capacity", Title: "Capacity"}
	var series []chart.LevelSeries
	units := ""
	for ci, c := range r.Configs {
		if c.Capacity == nil {
			continue
		}
		units = c.Capacity.Units
		s := chart.LevelSeries{Name: c.Name, Color: ci}
		for _, l := range c.Capacity.Levels {
			s.Levels = append(s.Levels, chart.Level{Target: l.Rate, Achieved: l.Achieved, Pass: l.Verdict == result.VerdictPass})
		}
		series = append(series, s)
	}
	sec.Blocks = append(sec.Blocks, Block{Table: &tables[0]}, Block{Charts: []Chart{{ID: "capacity-levels", Levels: series,
		Options: chart.Options{Title: "capacity levels: achieved against target (" + units + ")", XLabel: "target", YLabel: "achieved", Legend: true}}}})
	for i := 1; i < len(tables); i++ {
		sec.Blocks = append(sec.Blocks, Block{Table: &tables[i]})
	}
	return sec
}

// capacityLegend explains the capacity tables, for a run that has them.
func capacityLegend(r *result.Run) []string {
	if len(nonEmpty(capacityTables(r))) == 0 {
		return nil
	}
	return []string{
		"Capacity (run --capacity): levels cap.1, cap.2, ... at an open-loop target rate per client that ramps, then bisects between the last passing and the first failing rate; best rate: the highest level that passed (\"-\": none did).",
		"  A level fails when it achieved less than 90% of its target, when the response-time p99 of its paced operations is above the limit, or when an engine debt counter is above its limit at the level's end (name=-: the engine does not report it, not judged).",
	}
}

// collapseCapacity is the capacity search of a configuration's repeats: the median of their
// best rates (of those that have one; absent when none has), and every repeat's levels in turn,
// each step named after its repeat ("#2 cap.3"); nil when no repeat searched.
func collapseCapacity(reps []result.Config) *result.Capacity {
	var c *result.Capacity
	var best []float64
	for _, rc := range reps {
		if rc.Capacity == nil {
			continue
		}
		if c == nil {
			c = &result.Capacity{Units: rc.Capacity.Units}
		}
		if rc.Capacity.BestRate != nil {
			best = append(best, *rc.Capacity.BestRate)
		}
		for _, l := range rc.Capacity.Levels {
			if rc.Repeat != nil {
				l.Step = fmt.Sprintf("#%d %s", rc.Repeat.Index, l.Step)
			}
			c.Levels = append(c.Levels, l)
		}
	}
	if len(best) > 0 {
		m := median(best)
		c.BestRate = &m
	}
	return c
}

// stepUnit is the unit of step s's headline rate: unit of its name, but qps for a capacity
// level of LinkBench, whose headline is its requests.
func stepUnit(s *result.Step) string {
	if s.Primary == "requests" {
		return "qps"
	}
	return unit(s.Name)
}
