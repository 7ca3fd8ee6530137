package report

import (
	"math"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// ratioCol is a column of a ratio table: its header, and a configuration's rate in a run (ok
// false when the run lacks it or its step did not finish).
type ratioCol struct {
	header string
	rate   func(r *result.Run, config string) (float64, bool)
}

// ratioSection shows the second run's rates as a percentage of the first's, configuration by
// configuration (matched by name) and step by step: the published table of how much
// performance degrades, e.g., when the data outgrows memory. The workload's layout l adds its
// own columns and tables (LinkBench: its request intervals). A table says which memory cap
// each configuration had in each run.
//
// Runs with repeats (run --repeat K) compare the medians of their repeats, each cell coloured
// only when its spreads allow it (spanClass).
func ratioSection(a, b Input, l Layout) Section {
	labels := runLabels([]Input{a, b})
	ra, rb := newRatioRun(a.Run), newRatioRun(b.Run)
	a.Run, b.Run = ra.med, rb.med
	names := ratioConfigs(a.Run, b.Run)
	adds := l.ratio(a.Run, b.Run)
	cols := append(stepRatioCols(a.Run, b.Run), adds.cols...)
	title := labels[1] + " as % of " + labels[0]
	rates := ratioTable(title, names, ra, rb, cols)
	traceRatio(&rates, labels[0], labels[1])
	text := "Each rate of run " + labels[1] + " as a percentage of the same configuration's rate in run " + labels[0] +
		" (configurations matched by name; steps that only one run has are left out; \"-\": a run lacks the rate or the step did not finish). Blue: more than 5% better (above 105%: every column is a rate), gold: more than 5% worse (below 95%)."
	if len(ra.sp) > 0 || len(rb.sp) > 0 {
		text += " With repeats (run --repeat): the ratio of the medians of the repeats, then the second run's spread (its repeats' least and greatest as a percentage of the first run's median); a cell is coloured only outside 95-105% AND when the two runs' spreads do not overlap."
	}
	if adds.text != "" {
		text += " " + adds.text
	}
	blocks := []Block{{Text: text}, {Table: &rates}}
	for _, spec := range adds.tables {
		t := ratioTable(spec.title+": "+title, names, ra, rb, spec.cols)
		traceRatio(&t, labels[0], labels[1])
		blocks = append(blocks, Block{Table: &t})
	}
	caps := capsTable(labels, names, a.Run, b.Run)
	blocks = append(blocks, Block{Text: "The memory cap of each configuration in each run (docs/memory.md); \"no cap\": the run had none, so the page cache could hold the data."}, Block{Table: &caps})
	return Section{ID: "ratio", Title: "Ratio of two runs", Blocks: blocks}
}

// ratioConfigs are the configuration names of both runs, the first run's first.
func ratioConfigs(a, b *result.Run) []string {
	var names []string
	for _, r := range []*result.Run{a, b} {
		for _, c := range r.Configs {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

// ratioRun is a run of a ratio: its configurations as medians of their repeats, and as the
// least and the greatest of each figure over the repeats (all three the run itself when it
// has no repeats).
type ratioRun struct {
	med, lo, hi *result.Run
	sp          spreads
}

// newRatioRun folds r's repeats (collapseRepeats) into a ratioRun.
func newRatioRun(r *result.Run) ratioRun {
	med, sp := collapseRepeats(r)
	lo, hi := sp.bounds(med)
	return ratioRun{med: med, lo: lo, hi: hi, sp: sp}
}

// span is the rate col reads of config in the run, with its spread over the repeats.
func (rr ratioRun) span(col ratioCol, config string) (span, bool) {
	v, ok := col.rate(rr.med, config)
	if !ok {
		return span{}, false
	}
	lo, lok := col.rate(rr.lo, config)
	hi, hok := col.rate(rr.hi, config)
	if rr.sp[config] == nil || !lok || !hok {
		return point(v), true
	}
	return span{v: v, lo: math.Min(lo, v), hi: math.Max(hi, v), n: 2}, true
}

// ratioTable has a row per configuration name and a cell per column: b's rate as a percentage
// of a's (with repeats: of the medians, then b's spread as a percentage of a's median).
func ratioTable(title string, names []string, ra, rb ratioRun, cols []ratioCol) Table {
	t := Table{Title: title, Header: []string{"config"}}
	for _, c := range cols {
		t.Header = append(t.Header, c.header)
	}
	for _, name := range names {
		row, class := []string{name}, []string{""}
		for j, c := range cols {
			va, oka := ra.span(c, name)
			vb, okb := rb.span(c, name)
			cell, cl := missing, ClassMissing
			if oka && okb && va.v > 0 {
				cell, cl = numfmt.Num(100*vb.v/va.v)+"%", spanClass(vb, va, directionOf(t, j+1))
				if vb.n > 1 {
					cell += " (" + numfmt.Num(100*vb.lo/va.v) + "%-" + numfmt.Num(100*vb.hi/va.v) + "%)"
				}
			}
			row, class = append(row, cell), append(class, cl)
		}
		t.Rows, t.Class = append(t.Rows, row), append(t.Class, class)
	}
	return t
}

// stepOp is one rate of a step: the step and the op.
type stepOp struct{ step, op string }

// stepRatioCols are the rates of the steps both runs have: each step's headline rate, and
// iiBench's queries beside its inserts.
func stepRatioCols(a, b *result.Run) []ratioCol {
	inB := rateColumns(b)
	var cols []ratioCol
	for _, c := range rateColumns(a) {
		if !slices.Contains(inB, c) {
			continue
		}
		cols = append(cols, ratioCol{header: c.step + " " + opRateName(c.step, c.op),
			rate: func(r *result.Run, config string) (float64, bool) { return opRate(r, config, c.step, c.op) }})
	}
	return cols
}

// rateColumns are the rates a run has, in the order its steps ran: each step's headline rate
// and, where a step also has foreground queries (iiBench), their rate.
func rateColumns(r *result.Run) []stepOp {
	var cols []stepOp
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			if s.Primary == "" || s.Name == "warmup" {
				continue
			}
			ops := []string{s.Primary}
			if q := s.Ops["query"]; q != nil && !q.Background && s.Primary != "query" {
				ops = append(ops, "query") // iiBench: inserts and queries side by side
			}
			for _, op := range ops {
				if c := (stepOp{s.Name, op}); !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
	}
	return cols
}

// opRate is the rate of op in the named configuration's step when the step finished.
func opRate(r *result.Run, config, step, op string) (float64, bool) {
	c := findConfig(r, config)
	if c == nil {
		return 0, false
	}
	s := findStep(*c, step)
	if s == nil || s.Status != result.StatusOK || s.Ops[op] == nil {
		return 0, false
	}
	return s.Ops[op].PerSec, true
}

// findConfig returns the named configuration of r, or nil.
func findConfig(r *result.Run, name string) *result.Config {
	for i := range r.Configs {
		if r.Configs[i].Name == name {
			return &r.Configs[i]
		}
	}
	return nil
}

// opRateName is the short name of an op's rate in a step: ips, qps.
func opRateName(step, op string) string {
	if op == "query" || strings.ToUpper(op) == op {
		return "qps"
	}
	return unit(step)
}

// capsTable has a row per configuration name with its memory cap in each run.
func capsTable(labels, names []string, a, b *result.Run) Table {
	t := Table{Title: "Memory cap of each run", Header: []string{"config", labels[0], labels[1]}, Metric: "cap"}
	for _, name := range names {
		t.Rows = append(t.Rows, []string{name, capCell(findConfig(a, name)), capCell(findConfig(b, name))})
	}
	return t
}
