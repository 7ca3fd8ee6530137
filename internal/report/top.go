package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/stats"
)

// The top summary (topTable) is the first section of the report page and the first table of the
// printed summary and summary.md: a row per configuration that says, at a glance, how it compares with the
// base across its steps, where it does best and worst, which SLAs it missed, what failed,
// where the client was the bottleneck and what it costs in CPU per operation.

// topTitle is the top summary's title.
const topTitle = "At a glance"

// topHeader are the top summary's columns.
var topHeader = []string{"config", "vs base", "range", "best step", "worst step", "SLA missed", "failures", "client-bound", "CPU/op vs base"}

// topCol is a rate the top summary compares: a step's headline rate, or iiBench's queries
// beside its inserts (rateColumns), with the direction of its metric.
type topCol struct {
	step, op string
	dir      direction
	// name is how a cell names the column: the step, with its unit where the step has two
	// rates (iiBench's "run ips", "run qps").
	name string
}

// topColumns are the rates of r the top summary compares (stats.GlanceRates, which --repeat
// auto judges too): every step's headline rate but the warmup's and the capacity search's
// levels, in the order the steps ran.
func topColumns(r *result.Run) []topCol {
	var out []topCol
	for _, so := range stats.GlanceRates(r) {
		d, _ := metricDirection(opRateName(so.Step, so.Op))
		out = append(out, topCol{step: so.Step, op: so.Op, dir: d, name: so.Step})
	}
	for i, c := range out {
		if slices.ContainsFunc(out, func(o topCol) bool { return o.step == c.step && o.op != c.op }) {
			out[i].name = c.step + " " + opRateName(c.step, c.op)
		}
	}
	return out
}

// opPerSec reads op's rate of a finished step.
func opPerSec(op string) func(*result.Step) (float64, bool) {
	return func(s *result.Step) (float64, bool) {
		if s == nil || s.Status != result.StatusOK || s.Ops[op] == nil {
			return 0, false
		}
		return s.Ops[op].PerSec, true
	}
}

// cpuPerOp reads the CPU per operation of a finished step.
func cpuPerOp(s *result.Step) (float64, bool) {
	return okFigure(func(s *result.Step) *float64 {
		return eff(s, func(e *result.Efficiency) *float64 { return e.CPUpq })
	})(s)
}

// stepRatio is one step's figure of a configuration divided by the base's: the ratio of the
// medians v, and the configuration's and the base's spreads each divided by the base's median.
type stepRatio struct {
	step     string // the column's name (topCol.name)
	c, b     span   // c and b divided by b's median: b.v is 1
	src      Source
	field    string
	dir      direction
	oriented float64 // v turned so that above 1 is better
}

// ratios returns, for each column both config and base have a value of, the ratio of config's
// figure (get reads it from a step) to the base's.
func ratios(r *result.Run, sp spreads, config, base string, cols []topCol, get func(topCol) func(*result.Step) (float64, bool), field func(topCol) string) []stepRatio {
	c, b := findConfig(r, config), findConfig(r, base)
	if c == nil || b == nil {
		return nil
	}
	var out []stepRatio
	for _, col := range cols {
		g := get(col)
		cs, bs := findStep(*c, col.step), findStep(*b, col.step)
		cv, ok := sp.span(config, col.step, cs, g)
		bv, bok := sp.span(base, col.step, bs, g)
		if !ok || !bok || bv.v <= 0 {
			continue
		}
		sr := stepRatio{step: col.name, dir: col.dir, field: field(col),
			c: span{v: cv.v / bv.v, lo: cv.lo / bv.v, hi: cv.hi / bv.v, n: cv.n},
			b: span{v: 1, lo: bv.lo / bv.v, hi: bv.hi / bv.v, n: bv.n}}
		sr.src = Source{Config: config, Step: col.step, Field: sr.field, Of: &Source{Config: base, Step: col.step, Field: sr.field}}
		sr.oriented = sr.c.v
		if col.dir == lowerBetter && sr.c.v > 0 {
			sr.oriented = 1 / sr.c.v
		}
		out = append(out, sr)
	}
	return out
}

// geomean is the geometric mean of the ratios' spans, figure by figure (a zero ratio makes it
// zero), or ok false for none.
func geomean(rs []stepRatio) (c, b span, ok bool) {
	if len(rs) == 0 {
		return span{}, span{}, false
	}
	var lc, lclo, lchi, lblo, lbhi float64
	n, nb := math.MaxInt, math.MaxInt
	for _, r := range rs {
		lc, lclo, lchi = lc+math.Log(r.c.v), lclo+math.Log(r.c.lo), lchi+math.Log(r.c.hi)
		lblo, lbhi = lblo+math.Log(r.b.lo), lbhi+math.Log(r.b.hi)
		n, nb = min(n, r.c.n), min(nb, r.b.n)
	}
	k := float64(len(rs))
	c = span{v: math.Exp(lc / k), lo: math.Exp(lclo / k), hi: math.Exp(lchi / k), n: n}
	b = span{v: 1, lo: math.Exp(lblo / k), hi: math.Exp(lbhi / k), n: nb}
	return c, b, true
}

// ratioText is a ratio with the spread of its repeats when it has one: "1.07 (0.98-1.12)".
func ratioText(c span) string {
	text := fmt.Sprintf("%.2f", c.v)
	if lo, hi := fmt.Sprintf("%.2f", c.lo), fmt.Sprintf("%.2f", c.hi); c.n > 1 && lo != hi {
		text += " (" + lo + "-" + hi + ")"
	}
	return text
}

// topCell is one cell of the top summary with its colour class and source.
type topCell struct {
	text, class string
	src         Source
}

// dash is a cell without a value.
func dash(src Source) topCell { return topCell{text: missing, class: ClassMissing, src: src} }

// topTable is the top summary of r (its repeats folded, with spreads sp) against the base
// configuration.
func topTable(r *result.Run, base string, sp spreads) Table {
	t := Table{Title: topTitle, Header: slices.Clone(topHeader)}
	if base != "" && len(r.Configs) > 1 {
		t.Title += " (relative to " + base + ")"
	}
	cols := topColumns(r)
	for _, c := range r.Configs {
		cells := append([]topCell{{text: c.Name}}, compareCells(r, sp, c.Name, base, cols)...)
		cells = append(cells, slaCell(c), failuresCell(c, sp), clientBoundCell(r, c), cpuCell(r, sp, c.Name, base, cols))
		row, class, src := make([]string, len(cells)), make([]string, len(cells)), make([]Source, len(cells))
		for j, cell := range cells {
			row[j], class[j], src[j] = cell.text, cell.class, cell.src
		}
		src[0] = Source{Config: c.Name, Field: "name"}
		t.Rows, t.Class, t.Src = append(t.Rows, row), append(t.Class, class), append(t.Src, src)
	}
	return t
}

// rateField is the run.json field of a column's rate.
func rateField(col topCol) string { return "ops." + col.op + ".per_sec" }

// compareCells are the cells "vs base", "range", "best step" and "worst step" of config: the
// geometric mean over the steps of its rate relative to the base's, the least and the greatest
// of those ratios, and the steps that have them. The base says it is the base; one
// configuration has nothing to compare with.
func compareCells(r *result.Run, sp spreads, config, base string, cols []topCol) []topCell {
	all := Source{Config: config, Step: stepList(cols), Field: "ops.<primary_op>.per_sec"}
	switch {
	case len(r.Configs) < 2:
		return []topCell{{text: "only configuration", src: all}, dash(all), dash(all), dash(all)}
	case config == base:
		return []topCell{{text: "base", src: all}, dash(all), dash(all), dash(all)}
	}
	rs := ratios(r, sp, config, base, cols, func(c topCol) func(*result.Step) (float64, bool) { return opPerSec(c.op) }, rateField)
	bsrc := all
	bsrc.Of = &Source{Config: base, Step: all.Step, Field: all.Field}
	gc, gb, ok := geomean(orient(rs))
	if !ok {
		return []topCell{dash(bsrc), dash(bsrc), dash(bsrc), dash(bsrc)}
	}
	bsrc.Step = stepNames(rs) + " (geometric mean)"
	best := slices.MaxFunc(rs, func(a, b stepRatio) int { return cmpFloat(a.oriented, b.oriented) })
	worst := slices.MinFunc(rs, func(a, b stepRatio) int { return cmpFloat(a.oriented, b.oriented) })
	rng := bsrc
	rng.Step = stepNames(rs) + " (least and greatest)"
	return []topCell{
		{text: ratioText(gc), class: spanClass(gc, gb, higherBetter), src: bsrc},
		{text: fmt.Sprintf("%.2f-%.2f", worst.oriented, best.oriented), src: rng},
		stepCell(best), stepCell(worst),
	}
}

// orient returns rs with every ratio turned so that above 1 is better (a cost's inverted).
func orient(rs []stepRatio) []stepRatio {
	out := slices.Clone(rs)
	for i, r := range out {
		if r.dir == lowerBetter {
			out[i].c = span{v: 1 / r.c.v, lo: 1 / r.c.hi, hi: 1 / r.c.lo, n: r.c.n}
			out[i].b = span{v: 1, lo: 1 / r.b.hi, hi: 1 / r.b.lo, n: r.b.n}
		}
	}
	return out
}

// stepCell names a step and its ratio to the base, coloured in the metric's direction.
func stepCell(r stepRatio) topCell {
	return topCell{text: r.step + " " + ratioText(r.c), class: spanClass(r.c, r.b, r.dir), src: r.src}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stepList names the steps of cols, each once, in order.
func stepList(cols []topCol) string {
	var names []string
	for _, c := range cols {
		if !slices.Contains(names, c.step) {
			names = append(names, c.step)
		}
	}
	return strings.Join(names, ", ")
}

// stepNames names the steps of rs, each once, in order.
func stepNames(rs []stepRatio) string {
	var names []string
	for _, r := range rs {
		if !slices.Contains(names, r.step) {
			names = append(names, r.step)
		}
	}
	return strings.Join(names, ", ")
}

// slaCell counts and names the steps of c whose SLA was missed, out of those that had one: "2
// of 6: qp500, qp1000", "0 of 6"; "-" when no step had a target.
func slaCell(c result.Config) topCell {
	var with, missed []string
	for _, s := range c.Steps {
		if s.Target == nil {
			continue
		}
		with = append(with, s.Name)
		if !s.Target.SLAMet {
			missed = append(missed, s.Name)
		}
	}
	src := Source{Config: c.Name, Step: strings.Join(with, ", "), Field: "target.sla_met"}
	if len(with) == 0 {
		src.Step, src.Field = "every step", "target (none)"
		return dash(src)
	}
	text := fmt.Sprintf("%d of %d", len(missed), len(with))
	if len(missed) == 0 {
		return topCell{text: text, src: src}
	}
	return topCell{text: text + ": " + strings.Join(missed, ", "), class: ClassBad, src: src}
}

// failuresCell lists what failed in c: its steps that did not finish (a stall said as such;
// with repeats, how many repeats did not finish a step the others did), a verification that
// failed, the operations that failed after their retries, the processes
// the OOM killer killed, and the configuration's own failure when no step shows it; "none".
func failuresCell(c result.Config, sp spreads) topCell {
	var parts []string
	var errs int64
	for _, s := range c.Steps {
		switch {
		case s.Status != result.StatusOK && strings.Contains(s.Error, " stalled: "):
			parts = append(parts, s.Name+" stalled")
		case s.Status != result.StatusOK:
			parts = append(parts, s.Name+" "+s.Status)
		case s.Verify != nil && !s.Verify.OK:
			parts = append(parts, s.Name+" verify failed")
		case sp.get(c.Name, s.Name) != nil && sp.get(c.Name, s.Name).n < sp.get(c.Name, s.Name).of:
			sr := sp.get(c.Name, s.Name)
			parts = append(parts, fmt.Sprintf("%s not finished by %d of %d repeats", s.Name, sr.of-sr.n, sr.of))
		}
		for _, op := range s.Ops {
			errs += op.Errors
		}
	}
	if len(parts) == 0 && c.Status != result.StatusOK && c.Status != "" {
		parts = append(parts, "config "+c.Status)
	}
	if errs > 0 {
		parts = append(parts, strconv.FormatInt(errs, 10)+" errors")
	}
	if c.Memory != nil && c.Memory.OOMKills > 0 {
		parts = append(parts, fmt.Sprintf("%d OOM kills", c.Memory.OOMKills))
	}
	src := Source{Config: c.Name, Step: "every step", Field: "status, error, verify.ok, ops.*.errors, memory.oom_kills"}
	if len(parts) == 0 {
		return topCell{text: "none", src: src}
	}
	return topCell{text: strings.Join(parts, ", "), class: ClassFailed, src: src}
}

// clientBoundCell counts and names the steps of c in which the client was the bottleneck
// (client_bound); "-" in a run made before the check existed, where none is marked.
func clientBoundCell(r *result.Run, c result.Config) topCell {
	var bound, ran []string
	for _, s := range c.Steps {
		ran = append(ran, s.Name)
		if s.ClientBound {
			bound = append(bound, s.Name)
		}
	}
	src := Source{Config: c.Name, Step: strings.Join(ran, ", "), Field: "client_bound"}
	switch {
	case len(bound) > 0:
		return topCell{text: fmt.Sprintf("%d: %s", len(bound), strings.Join(bound, ", ")), class: ClassBad, src: src}
	case r.ClientCPULimitPct > 0:
		return topCell{text: "none", src: src}
	}
	return dash(src)
}

// cpuCell is c's CPU per operation relative to the base's: the geometric mean over the steps
// both measured of cpupq divided by the base's (lower is better); "base" for the base, "-"
// when not measured or with one configuration.
func cpuCell(r *result.Run, sp spreads, config, base string, cols []topCol) topCell {
	src := Source{Config: config, Step: stepList(cols), Field: "efficiency.cpupq"}
	if len(r.Configs) < 2 {
		return dash(src)
	}
	if config == base {
		return topCell{text: "base", src: src}
	}
	var steps []topCol
	for _, c := range cols {
		if !slices.ContainsFunc(steps, func(o topCol) bool { return o.step == c.step }) {
			steps = append(steps, topCol{step: c.step, dir: lowerBetter, name: c.step})
		}
	}
	rs := ratios(r, sp, config, base, steps, func(topCol) func(*result.Step) (float64, bool) { return cpuPerOp },
		func(topCol) string { return "efficiency.cpupq" })
	src.Of = &Source{Config: base, Step: src.Step, Field: src.Field}
	gc, gb, ok := geomean(rs)
	if !ok {
		return dash(src)
	}
	src.Step, src.Of.Step = stepNames(rs)+" (geometric mean)", stepNames(rs)
	return topCell{text: ratioText(gc), class: spanClass(gc, gb, lowerBetter), src: src}
}

// topSection is the page's first section: the top summary with a line on how to read it.
func topSection(r *result.Run, p *Page) Section {
	t := topTable(r, p.Base, p.spreads)
	text := "One line per configuration against the base: vs base is the geometric mean over the steps of its rate divided by the base's (above 1 better), " +
		"range and best and worst step the least and the greatest of those ratios, CPU/op vs base the same for CPU per operation (below 1 better). Hover a cell for the file and field it came from; the legend says more."
	if len(r.Configs) < 2 {
		text = "One configuration: there is nothing to compare it with, so its relative cells are \"-\" (a best and a worst step by absolute rate would compare ips with qps). " +
			"It shows the SLA misses, failures and client-bound steps. Hover a cell for the file and field it came from."
	}
	words, intervals := confidenceBlocks(r, p.Base, p.spreads)
	blocks := append(append([]Block{{Text: text}}, words...), Block{Table: &t})
	blocks = append(blocks, intervals...)
	return Section{ID: "top", Title: topTitle, Blocks: blocks}
}

// topLegend explains the top summary.
var topLegend = []string{
	"At a glance: one line per configuration. vs base: the geometric mean, over the steps both finished, of the configuration's headline rate (ips, qps, requests/s; iiBench's inserts/s and queries/s) divided by the base's, above 1 better, coloured as the relative tables (with repeats: the ratio of the medians, then its spread; coloured only when the spreads do not overlap). " +
		"range: the least and the greatest of those ratios; best and worst step: the steps that have them. SLA missed: the steps whose background writer (Insert Benchmark) or rate limit (iiBench) achieved less than 95% of its target, of those that had one (\"-\": none had one). " +
		"failures: steps that did not finish (stalled: nothing completed within the stall limit), failed verifications, operations that failed after their retries, processes the OOM killer killed. client-bound: the steps in which the client was the bottleneck (\"-\": a run made before the check). " +
		"CPU/op vs base: the geometric mean of CPU per operation (cpupq) divided by the base's, lower is better. The base's line says base; with one configuration there is nothing to compare.",
	"Sources: every cell of the HTML page's tables that comes from a run has a title (hover it) and a data-src attribute: the run directory's file (run.json), the configuration (its repeats' names for a median), the step and the field it was read from, and for a relative cell the base's value it is divided by.",
}

// glanceTables is the top summary of the terminal summary, against the first configuration,
// each relative cell judged in words; none for a run without configurations.
func glanceTables(r *result.Run) []Table {
	r, sp := collapseRepeats(r)
	if len(r.Configs) == 0 {
		return nil
	}
	return []Table{judged(topTable(r, r.Configs[0].Name, sp))}
}

// Header lines: a page whose header has more than maxLines lines shows the first keptLines and
// every warning, and folds the others, so that the top summary stays near the top of the page
// with many configurations.
const (
	maxLines  = 12
	keptLines = 6
)

// foldLines splits the header lines into those shown and those folded.
func foldLines(lines []string) (shown, folded []string) {
	if len(lines) <= maxLines {
		return lines, nil
	}
	for i, l := range lines {
		if i < keptLines || strings.HasPrefix(l, warningPrefix) {
			shown = append(shown, l)
		} else {
			folded = append(folded, l)
		}
	}
	return shown, folded
}
