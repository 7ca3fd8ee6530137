package report

import (
	"fmt"
	"slices"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// ipc is the column of instructions per cycle, computed where both were counted.
const ipc = "IPC"

// counterTables are a step's counters per operation (run --counters): a row per configuration
// that counted it, each event divided by the step's operations, and the same relative to the
// base configuration's.
func counterTables(prs []*profiled, base, step string) []Table {
	var counted []*profiled
	var events []string
	for _, pr := range prs {
		c := pr.counters()
		if c == nil {
			continue
		}
		counted = append(counted, pr)
		for _, e := range c.Events {
			if !slices.Contains(events, e.Event) {
				events = append(events, e.Event)
			}
		}
	}
	if len(counted) == 0 {
		return nil
	}
	cols := slices.Clone(events)
	if slices.Contains(events, "instructions") && slices.Contains(events, "cycles") {
		cols = append(cols, ipc)
	}
	op := counted[0].perOp()
	abs := Table{Title: fmt.Sprintf("Counters per %s: %s", op, step), Header: append(append([]string{"config", "ops"}, cols...), "note"), Metric: "counter/op"}
	rel := Table{Title: fmt.Sprintf("Counters per %s: %s, relative to %s", op, step, base), Header: append([]string{"config"}, cols...), Metric: "counter/op"}
	var baseVals map[string]*float64
	for _, pr := range counted {
		if pr.label == base {
			baseVals = counterValues(pr.counters(), cols)
		}
	}
	for _, pr := range counted {
		c := pr.counters()
		vals := counterValues(c, cols)
		row := []string{pr.label, opsCell(c.Ops, pr.perOp())}
		relRow, relClass := []string{pr.label}, []string{""}
		for _, col := range cols {
			row = append(row, counterCell(c, col, vals[col]))
			dir := lowerBetter
			if col == ipc {
				dir = higherBetter
			}
			text, cl := missing, ClassMissing
			if v, b := vals[col], baseVals[col]; v != nil && b != nil {
				text, cl = relCell(*v, *b, true, true, dir)
			}
			relRow, relClass = append(relRow, text), append(relClass, cl)
		}
		row = append(row, counterNote(c))
		abs.Rows, abs.Src = append(abs.Rows, row), append(abs.Src, counterSrc(pr, step, append([]string{"name", "ops"}, append(cols, "note")...), nil))
		rel.Rows, rel.Class = append(rel.Rows, relRow), append(rel.Class, relClass)
		rel.Src = append(rel.Src, counterSrc(pr, step, append([]string{"name"}, cols...), &Source{Config: base, Step: step, Field: "counters"}))
	}
	if baseVals == nil {
		return []Table{abs}
	}
	return []Table{abs, rel}
}

// counterValues are c's events per operation by column, IPC included; nil where there is none.
func counterValues(c *result.Counters, cols []string) map[string]*float64 {
	vals := map[string]*float64{}
	for _, e := range c.Events {
		vals[e.Event] = c.Each(e)
	}
	if slices.Contains(cols, ipc) {
		if i, cy := vals["instructions"], vals["cycles"]; i != nil && cy != nil && *cy > 0 {
			v := *i / *cy
			vals[ipc] = &v
		}
	}
	return vals
}

// counterCell is an event's value per operation, or "-" with perf's reason for none.
func counterCell(c *result.Counters, col string, v *float64) string {
	if v != nil {
		for _, e := range c.Events {
			if e.Event == col && e.Unit == "msec" {
				return numfmt.Seconds(*v / 1e3)
			}
		}
		return numfmt.Num(*v)
	}
	for _, e := range c.Events {
		if e.Event == col && e.Reason != "" {
			return missing + " (" + e.Reason + ")"
		}
	}
	if c.Error != "" {
		return missing + " (not counted)"
	}
	return missing
}

// counterNote is what tool counted whose events, and why the counters are partial or missing.
func counterNote(c *result.Counters) string {
	note := fmt.Sprintf("%s of %s", orMissing(c.Tool), whose(c.Of))
	switch {
	case c.Error != "":
		note += ": " + c.Error
	case c.Ops <= 0:
		note += ": operations unknown, nothing divided"
	case c.Partial:
		note += ", partial: " + orMissing(c.Note)
	}
	return note
}

// counterSrc is the source of a counters row: each column's field of the step's counters.
func counterSrc(pr *profiled, step string, cols []string, of *Source) []Source {
	src := make([]Source, len(cols))
	for j, col := range cols {
		field := "counters." + col
		switch col {
		case "name":
			field = "name"
		case "ops":
			field = "counters.ops"
		case "note":
			field = "counters.error"
		case ipc:
			field = "counters.instructions / counters.cycles"
		}
		src[j] = Source{Config: pr.label, Step: step, Field: field, Of: of}
	}
	return src
}
