package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// TestSpanClassWithSpreads checks the colour rule of relative cells with repeats: a difference
// outside the 0.95-1.05 band is coloured only when the spreads of the two configurations'
// repeats do not overlap; without repeats (points) the band alone decides.
func TestSpanClassWithSpreads(t *testing.T) {
	base := span{v: 100, lo: 95, hi: 105, n: 3}
	cases := []struct {
		name   string
		c      span
		d      direction
		want   string
		reason string
	}{
		{"7% inside the spread", span{v: 107, lo: 98, hi: 112, n: 3}, higherBetter, "", "ranges overlap"},
		{"7% touching the spread", span{v: 107, lo: 105, hi: 110, n: 3}, higherBetter, "", "105 is both ranges' edge"},
		{"7% outside both", span{v: 107, lo: 106, hi: 110, n: 3}, higherBetter, ClassBetter, "apart and above the band"},
		{"7% outside both, a cost", span{v: 107, lo: 106, hi: 110, n: 3}, lowerBetter, ClassWorse, "a cost above is worse"},
		{"7% below, outside both", span{v: 93, lo: 90, hi: 94.9, n: 3}, higherBetter, ClassWorse, "apart and below the band"},
		{"apart but inside the band", span{v: 105, lo: 105.5, hi: 106, n: 3}, higherBetter, "", "1.05 is inside the band"},
		{"neutral", span{v: 200, lo: 190, hi: 210, n: 3}, neutral, "", "never coloured"},
	}
	for _, c := range cases {
		if got := spanClass(c.c, base, c.d); got != c.want {
			t.Errorf("%s: spanClass(%+v, %+v, %v) = %q, want %q (%s)", c.name, c.c, base, c.d, got, c.want, c.reason)
		}
	}
	for _, ratio := range []float64{0.9, 0.95, 1, 1.05, 1.07, 2} {
		for _, d := range []direction{higherBetter, lowerBetter, neutral} {
			if got, want := spanClass(point(ratio*100), point(100), d), relClass(ratio, d); got != want {
				t.Errorf("points %v %v: spanClass = %q, relClass = %q", ratio, d, got, want)
			}
		}
	}
}

// repeatRun is an Insert Benchmark run of configurations a and b, three repeats each in the
// order a#1 b#1 a#2 b#2 a#3 b#3, whose l.i0 rates differ by 7% within their spreads, whose
// l.i1 rates differ beyond them, and whose cpupq of l.i1 doubles; b#3's qr100 failed.
func repeatRun() *result.Run {
	rates := map[string][]float64{
		"a/l.i0": {1000, 1100, 1050}, "b/l.i0": {1070, 1200, 1130},
		"a/l.i1": {100, 101, 99}, "b/l.i1": {120, 118, 122},
		"a/qr100": {50, 52, 51}, "b/qr100": {60, 61, 0},
	}
	cpu := map[string][]float64{"a": {10, 11, 12}, "b": {20, 21, 23}}
	r := &result.Run{Tool: result.Tool{Version: "t"}, RunID: "rep", Status: result.StatusOK,
		Workload: result.Workload{Name: "insert", Scale: "tiny"}}
	for k := 1; k <= 3; k++ {
		for _, name := range []string{"a", "b"} {
			c := result.Config{Name: result.RepeatName(name, k), Engine: "sqlite", Status: result.StatusOK,
				Repeat: &result.Repeat{Config: name, Index: k, Count: 3, Order: len(r.Configs) + 1}}
			for _, step := range []string{"l.i0", "l.i1", "qr100"} {
				v := rates[name+"/"+step][k-1]
				s := result.Step{Name: step, Status: result.StatusOK, Seconds: 2, Primary: "insert",
					Ops: map[string]*result.Op{"insert": {Count: int64(10 * k), Units: int64(v * 2), PerSec: v}}}
				if step == "l.i1" {
					s.Efficiency = &result.Efficiency{CPUpq: &cpu[name][k-1]}
				}
				if v == 0 {
					s.Status, s.Error, s.Ops = result.StatusFailed, "boom", nil
				}
				c.Steps = append(c.Steps, s)
			}
			r.Configs = append(r.Configs, c)
		}
	}
	return r
}

// repeatFigures returns config's figure of step over its repeats in r whose step finished,
// read with get: the median, min and max, and how many repeats finished it of those that ran.
func repeatFigures(r *result.Run, config, step string, get func(*result.Step) (float64, bool)) (med, lo, hi float64, n, of int) {
	var xs []float64
	for _, c := range r.Configs {
		if c.Repeat == nil || c.Repeat.Config != config {
			continue
		}
		s := findStep(c, step)
		if s == nil {
			continue
		}
		of++
		if v, ok := get(s); ok {
			xs = append(xs, v)
		}
	}
	slices.Sort(xs)
	n = len(xs)
	if n%2 == 1 {
		med = xs[n/2]
	} else {
		med = (xs[n/2-1] + xs[n/2]) / 2
	}
	return med, xs[0], xs[n-1], n, of
}

// wantSpreadCell is a cell's text as the tables show a figure with repeats.
func wantSpreadCell(med, lo, hi float64, n, of int) string {
	if numfmt.Num(lo) == numfmt.Num(hi) && n == of {
		return numfmt.Num(med)
	}
	s := fmt.Sprintf("%s (%s-%s", numfmt.Num(med), numfmt.Num(lo), numfmt.Num(hi))
	if n < of {
		s += fmt.Sprintf(", %d of %d", n, of)
	}
	return s + ")"
}

// TestRepeatMediansAndSpreads checks that a run with repeats shows each configuration once,
// with the median and the spread of its repeats computed here from the run, in the summary,
// the page and report.md; and that its relative cells are coloured only outside both the band
// and the spreads.
func TestRepeatMediansAndSpreads(t *testing.T) {
	r := repeatRun()
	r.Configs[5].Status, r.Configs[5].Error = result.StatusFailed, "step qr100 failed"
	s := Build(r, testLayouts())
	for _, want := range []string{"a: repeats (median and spread): a#1 (run 1) ok, a#2 (run 3) ok, a#3 (run 5) ok",
		"b: sqlite version unknown, status failed: b#3: step qr100 failed"} {
		if !slices.Contains(s.Lines, want) {
			t.Errorf("summary header lacks %q: %q", want, s.Lines)
		}
	}
	if got := row(t, s, "Throughput", "a"); len(got) == 0 {
		t.Fatal("no row a in the summary's throughput")
	}
	for _, tb := range s.Tables {
		for _, rw := range tb.Rows {
			if strings.Contains(rw[0], "#") {
				t.Errorf("table %q has a row for the repeat %s: repeats are folded into their configuration", tb.Title, rw[0])
			}
		}
	}
	p, err := NewPage([]Input{{Dir: "rep", Run: r}}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Configs, ","); got != "a,b" {
		t.Errorf("page configurations %s, want a,b", got)
	}
	for _, name := range []string{"a", "b"} {
		for j, step := range []string{"l.i0", "l.i1", "qr100"} {
			want := wantSpreadCell(repeatFigures(r, name, step, stepRate))
			if got := row(t, s, "Throughput", name)[j+1]; got != want {
				t.Errorf("summary: %s %s = %q, want %q", name, step, got, want)
			}
			if got, _ := cell(t, p, "Throughput", name, step+" "+unit(step)); got != want {
				t.Errorf("page: %s %s = %q, want %q", name, step, got, want)
			}
		}
		cpu := okFigure(func(s *result.Step) *float64 { return s.Efficiency.CPUpq })
		want := wantSpreadCell(repeatFigures(r, name, "l.i1", cpu))
		if got := row(t, s, "Efficiency: l.i1", name)[2]; got != want {
			t.Errorf("summary: %s l.i1 cpupq = %q, want %q", name, got, want)
		}
	}
	// l.i0: b is 7.6% above a, but the repeats' spreads overlap: not coloured.
	am, _, _, _, _ := repeatFigures(r, "a", "l.i0", stepRate)
	bm, blo, bhi, _, _ := repeatFigures(r, "b", "l.i0", stepRate)
	text, class := cell(t, p, "Throughput relative to a", "b", "l.i0 ips")
	if want := fmt.Sprintf("%.2f (%.2f-%.2f)", bm/am, blo/am, bhi/am); text != want || class != "" {
		t.Errorf("l.i0 relative: %q {%s}, want %q without colour: the difference is within the spreads", text, class, want)
	}
	if bm/am < 1.05 {
		t.Fatalf("fixture: b/a in l.i0 is %.3f, meant to be outside the band", bm/am)
	}
	// l.i1: b is 20% above a and every repeat of b above every repeat of a: better.
	if _, class := cell(t, p, "Throughput relative to a", "b", "l.i1 ips"); class != ClassBetter {
		t.Errorf("l.i1 relative: class %q, want %q", class, ClassBetter)
	}
	if _, class := cell(t, p, "l.i1: efficiency relative to a", "b", "cpupq"); class != ClassWorse {
		t.Errorf("l.i1 cpupq relative: class %q, want %q: b's repeats all spend more CPU", class, ClassWorse)
	}
	md := MarkdownPage(p)
	for _, want := range []string{"Repeats (run --repeat K)", "do not overlap"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestCombineEvenRepeats checks the median of an even number of repeats: the mean of the two
// middle values, counts rounded to whole numbers, and a figure only some repeats measured
// taken over those that did.
func TestCombineEvenRepeats(t *testing.T) {
	w1, w2 := 3.0, 4.0
	a := &result.Step{Name: "l.i0", Status: result.StatusOK, Primary: "insert",
		Ops:        map[string]*result.Op{"insert": {Count: 10, PerSec: 100}},
		Efficiency: &result.Efficiency{Wpi: &w1}}
	b := &result.Step{Name: "l.i0", Status: result.StatusOK, Primary: "insert", ClientBound: true,
		Ops:        map[string]*result.Op{"insert": {Count: 13, PerSec: 103}},
		Efficiency: &result.Efficiency{Wpi: &w2, CPUpq: &w1}}
	m := combineSteps([]*result.Step{a, b}, median)
	op := m.Ops["insert"]
	if op.PerSec != 101.5 || op.Count != 12 {
		t.Errorf("median of 100, 103 = %v (want 101.5); of counts 10, 13 = %d (want 12)", op.PerSec, op.Count)
	}
	if m.Efficiency.Wpi == nil || *m.Efficiency.Wpi != 3.5 || m.Efficiency.CPUpq == nil || *m.Efficiency.CPUpq != w1 {
		t.Errorf("efficiency %+v: want wpi 3.5 and cpupq %v (only b measured it)", m.Efficiency, w1)
	}
	if !m.ClientBound {
		t.Error("a step client-bound in one repeat must stay marked")
	}
	lo, hi := combineSteps([]*result.Step{a, b}, slices.Min), combineSteps([]*result.Step{a, b}, slices.Max)
	if lo.Ops["insert"].PerSec != 100 || hi.Ops["insert"].PerSec != 103 {
		t.Errorf("min, max = %v, %v; want 100, 103", lo.Ops["insert"].PerSec, hi.Ops["insert"].PerSec)
	}
}

// TestRatioWithRepeats checks --ratio over two runs with repeats: the medians' ratio, the
// spread of the second run, and no colour when the runs' spreads overlap.
func TestRatioWithRepeats(t *testing.T) {
	a, b := repeatRun(), repeatRun()
	b.RunID = "rep2"
	for i := range b.Configs {
		if b.Configs[i].Repeat.Config == "a" {
			for j := range b.Configs[i].Steps {
				if s := &b.Configs[i].Steps[j]; s.Name == "l.i0" {
					s.Ops["insert"].PerSec *= 1.07 // 1070, 1177, 1123.5 against 1000, 1100, 1050
				}
			}
		}
	}
	p, err := NewPage([]Input{{Dir: "x", Run: a}, {Dir: "y", Run: b}}, Options{Ratio: true, Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	text, class := cell(t, p, "y as % of x", "a", "l.i0 ips")
	if !strings.HasPrefix(text, "107% (") || class != "" {
		t.Errorf("a l.i0: %q {%s}, want 107%% with its spread and no colour (the spreads overlap)", text, class)
	}
	if _, class := cell(t, p, "Throughput relative to x/a", "y/b", "l.i1 ips"); class != ClassBetter {
		t.Errorf("y/b l.i1 relative to x/a: class %q, want better", class)
	}
}

// TestMatrixRunsWithRepeats joins two runs of one run spec's configurations (--config-index),
// each with its configuration's three repeats: the page has each configuration once, by name,
// with the medians and spreads of its own run's repeats.
func TestMatrixRunsWithRepeats(t *testing.T) {
	all := repeatRun()
	var runs []Input
	for i, name := range []string{"a", "b"} {
		r := *all
		r.Configs = nil
		for _, c := range all.Configs {
			if c.Repeat.Config == name {
				r.Configs = append(r.Configs, c)
			}
		}
		r.Matrix = &result.Matrix{Index: i, Count: 2, Config: name, Spec: "s.yaml", SpecSHA256: "abc"}
		runs = append(runs, Input{Dir: "results/" + name, Run: &r})
	}
	p, err := NewPage(runs, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Configs, ","); got != "a,b" {
		t.Fatalf("configurations %s, want a,b", got)
	}
	for _, name := range []string{"a", "b"} {
		want := wantSpreadCell(repeatFigures(all, name, "l.i1", stepRate))
		if got, _ := cell(t, p, "Throughput", name, "l.i1 ips"); got != want {
			t.Errorf("%s l.i1 = %q, want %q", name, got, want)
		}
	}
	if _, class := cell(t, p, "Throughput relative to a", "b", "l.i1 ips"); class != ClassBetter {
		t.Errorf("b l.i1 relative: class %q, want better", class)
	}
}

// spreadCase is a cell of a table that shows a per-step figure: the table's title, the key of
// its row (its first cells), its column, and how the figure is read from a step and printed.
type spreadCase struct {
	table string
	key   []string
	col   string
	step  string
	get   func(*result.Step) (float64, bool)
	print func(float64) string
	// derived: the cell derives its figure from several fields, so only its spread is checked
	// (the median of the ratios is not the ratio of the medians).
	derived bool
}

// wantSpread is what a cell of config's figure shows, computed from in's repeats: the median
// of the repeats that finished the step and have the figure, then " (min-max)", with ", n of K"
// when not every repeat that ran the step has it, and nothing when all print the same. spread
// is the part from " (" on. A configuration that ran once shows its figure alone.
func wantSpread(t *testing.T, in *result.Run, config string, c spreadCase) (cell, spread string) {
	t.Helper()
	var xs []float64
	of := 0
	for _, rc := range in.Configs {
		if rc.Name == config && rc.Repeat == nil {
			v, ok := c.get(findStep(rc, c.step))
			if !ok {
				t.Fatalf("%s: %s has no figure in %s", c.table, config, c.step)
			}
			return c.print(v), ""
		}
		if rc.Repeat == nil || rc.Repeat.Config != config {
			continue
		}
		s := findStep(rc, c.step)
		if s == nil {
			continue
		}
		of++
		if v, ok := c.get(s); ok && s.Status == result.StatusOK {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		t.Fatalf("%s: no repeat of %s has the figure in %s", c.table, config, c.step)
	}
	slices.Sort(xs)
	n := len(xs)
	med := xs[n/2]
	if n%2 == 0 {
		med = (xs[n/2-1] + xs[n/2]) / 2
	}
	lo, hi := c.print(xs[0]), c.print(xs[n-1])
	if lo == hi && n == of {
		return c.print(med), ""
	}
	spread = " (" + lo + "-" + hi
	if n < of {
		spread += fmt.Sprintf(", %d of %d", n, of)
	}
	spread += ")"
	return c.print(med) + spread, spread
}

// tableCells returns the cells in column col of the rows whose first cells are key, in every
// table titled title.
func tableCells(tables []Table, title string, key []string, col string) []string {
	var out []string
	for _, tb := range tables {
		j := slices.Index(tb.Header, col)
		if tb.Title != title || j < 0 {
			continue
		}
		for _, r := range tb.Rows {
			if len(r) > j && slices.Equal(r[:len(key)], key) {
				out = append(out, r[j])
			}
		}
	}
	return out
}

// summaryAndPageTables are the tables of in's summary (as summary.md and the terminal show it)
// and of its report page (as report.html and report.md show it).
func summaryAndPageTables(t *testing.T, in Input) []Table {
	t.Helper()
	tables := Build(in.Run, testLayouts()).Tables
	tables = append(tables, glanceTables(in.Run)...)
	p := newPage(t, Options{}, in)
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			if b.Table != nil {
				tables = append(tables, *b.Table)
			}
		}
	}
	return tables
}

// checkSpreads checks each case's cell of each configuration (the key's first cell is the
// configuration, replaced by each of configs; a key that starts with "" names none).
func checkSpreads(t *testing.T, in Input, configs []string, cases []spreadCase) {
	t.Helper()
	tables := summaryAndPageTables(t, in)
	for _, c := range cases {
		for _, config := range configs {
			key := slices.Clone(c.key)
			if len(key) > 0 && key[0] == "" {
				key[0] = config
			}
			got := tableCells(tables, strings.ReplaceAll(c.table, "CONFIG", config), key, c.col)
			if len(got) == 0 {
				t.Errorf("%s: no cell %v / %s", c.table, key, c.col)
				continue
			}
			want, spread := wantSpread(t, in.Run, config, c)
			for _, g := range got {
				switch {
				case c.derived && !strings.HasSuffix(g, spread):
					t.Errorf("%s %v %s: %q, want the spread %q", c.table, key, c.col, g, spread)
				case c.derived && spread == "" && strings.Contains(g, "("):
					t.Errorf("%s %v %s: %q, want no spread", c.table, key, c.col, g)
				case !c.derived && g != want:
					t.Errorf("%s %v %s: %q, want %q", c.table, key, c.col, g, want)
				}
			}
		}
	}
}

// okOp reads a figure of op in a finished step.
func okOp(op string, get func(*result.Op) float64) func(*result.Step) (float64, bool) {
	return func(s *result.Step) (float64, bool) {
		if s == nil || s.Status != result.StatusOK || s.Ops[op] == nil || s.Ops[op].Count == 0 {
			return 0, false
		}
		return get(s.Ops[op]), true
	}
}

// okStep reads a figure of a finished step, ok false where get returns nil.
func okStep(get func(*result.Step) *float64) func(*result.Step) (float64, bool) {
	return okFigure(get)
}

// ptr is a pointer to v.
func ptr(v float64) *float64 { return &v }

// soloConfig is a copy of c that ran once, named name.
func soloConfig(t *testing.T, c result.Config, name string) result.Config {
	t.Helper()
	out := copyConfig(t, c)
	out.Name, out.Repeat = name, nil
	return out
}

// copyConfig is a deep copy of c.
func copyConfig(t *testing.T, c result.Config) result.Config {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out result.Config
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpreadsInEveryTable checks, on the repeat fixture (sqlite and pebble, three repeats
// each, with a background writer's target and latency quartiles derived from its figures,
// pebble#3's l.i1 failed, and sqlite#1 again as "solo", a configuration that ran once), that
// every kind of table that shows a per-step figure shows, in the summary and the page, the
// median of the repeats with their spread computed here from the repeats, "2 of 3" where one
// repeat did not finish the step, and no spread for the configuration that ran once.
func TestSpreadsInEveryTable(t *testing.T) {
	in := loadFixture(t, "repeat")
	r := in.Run
	for i := range r.Configs {
		c := &r.Configs[i]
		for j := range c.Steps {
			s := &c.Steps[j]
			for _, op := range s.Ops {
				op.Latency.P25, op.Latency.P75 = ptr(0.8*op.Latency.P50), ptr((op.Latency.P50+op.Latency.P90)/2)
			}
			switch s.Name {
			case "l.i1": // a background writer's target, and the debt before the step, from its figures
				s.Target = &result.Target{InsertsPerSec: 1000, AchievedInsertsPerSec: s.Ops["insert"].PerSec / 100, SLAMet: true}
				s.EngineStatsBefore = map[string]float64{"wal_bytes": s.EngineStats["wal_bytes"] / 2}
			case "l.x": // a scan of the index the step built
				s.Phases = []result.Phase{{Name: "ix", Seconds: s.Seconds, Rows: 3000, PerSec: s.Ops["index"].PerSec}}
			}
		}
		if c.Name == "pebble#3" {
			s := findStep(*c, "l.i1")
			s.Status, s.Error = result.StatusFailed, "boom"
		}
	}
	r.Configs = append(r.Configs, soloConfig(t, r.Configs[0], "solo"))
	secs := func(s *result.Step) (float64, bool) { return s.Seconds, s != nil && s.Status == result.StatusOK }
	lat := func(get func(result.Latency) float64) func(*result.Step) (float64, bool) {
		return okOp("insert", func(op *result.Op) float64 { return get(op.Latency) })
	}
	p50 := lat(func(l result.Latency) float64 { return l.P50 })
	cases := []spreadCase{
		{table: "Latency", key: []string{"", "l.i1", "insert"}, col: "p50", step: "l.i1", get: p50, print: numfmt.Duration},
		{table: "Latency", key: []string{"", "l.i0", "insert"}, col: "p25", step: "l.i0", get: lat(func(l result.Latency) float64 { return *l.P25 }), print: numfmt.Duration},
		{table: "l.i1: latency percentiles", key: []string{"", "insert"}, col: "p99", step: "l.i1", get: lat(func(l result.Latency) float64 { return l.P99 }), print: numfmt.Duration},
		{table: "l.i1: latency percentiles", key: []string{"", "insert"}, col: "p75", step: "l.i1", get: lat(func(l result.Latency) float64 { return *l.P75 }), print: numfmt.Duration},
		{table: "l.i0: latency percentiles", key: []string{"", "insert"}, col: "mean", step: "l.i0", get: lat(func(l result.Latency) float64 { return l.Mean }), print: numfmt.Duration},
		{table: "l.i1: response-time distribution (% of operations)", key: []string{"", "insert"}, col: "<=256us", step: "l.i1",
			get: lat(func(l result.Latency) float64 { return l.Buckets[0] }), print: pct},
		{table: "l.i1: response-time distribution (% of operations)", key: []string{"", "insert"}, col: "<=1ms", step: "l.i1", derived: true,
			get: lat(func(l result.Latency) float64 { return l.Buckets[1] - l.Buckets[0] }), print: pct},
		{table: "SLA of the background writers", key: []string{"", "l.i1"}, col: "achieved ins/s", step: "l.i1",
			get: okStep(func(s *result.Step) *float64 { return &s.Target.AchievedInsertsPerSec }), print: numfmt.Num},
		{table: "Steps", key: []string{"", "l.i0"}, col: "time", step: "l.i0", get: secs, print: numfmt.Seconds},
		{table: "Steps", key: []string{"", "l.i1"}, col: "time", step: "l.i1", get: secs, print: numfmt.Seconds},
		{table: "Steps", key: []string{"", "l.i1"}, col: "probe", step: "l.i1", get: okStep(func(s *result.Step) *float64 { return &s.Probe.MinTrxIDSeconds }), print: numfmt.Seconds},
		{table: "Probe: seconds of SELECT min(transactionid) at each step's start", key: []string{""}, col: "l.i1", step: "l.i1",
			get: okStep(func(s *result.Step) *float64 { return &s.Probe.MinTrxIDSeconds }), print: numfmt.Seconds},
		{table: "Fairness: the clients' durations", key: []string{"", "l.x"}, col: "max", step: "l.x", get: okStep(func(s *result.Step) *float64 { return &s.Fairness.MaxSeconds }), print: numfmt.Seconds},
		{table: "Resources per second", key: []string{"", "l.i0"}, col: "csps", step: "l.i0", get: okStep(func(s *result.Step) *float64 { return s.Resources.CSps }), print: numfmt.Num},
		{table: "l.i1: resources per second", key: []string{""}, col: "csps", step: "l.i1", get: okStep(func(s *result.Step) *float64 { return s.Resources.CSps }), print: numfmt.Num},
		{table: "l.x: resources per second", key: []string{""}, col: "cpups", step: "l.x", get: okStep(func(s *result.Step) *float64 { return s.Resources.CPUps }), print: numfmt.Num},
		{table: "Throughput: p50 and p99 of the per-second rate", key: []string{"", "l.i1"}, col: "rate", step: "l.i1", get: stepRate, print: numfmt.Num},
		{table: "Efficiency: l.i0", key: []string{""}, col: "wkbpi", step: "l.i0", get: okStep(func(s *result.Step) *float64 { return s.Efficiency.WKBpi }), print: numfmt.Num},
		{table: "Scans", key: []string{"", "l.x", "ix"}, col: "time", step: "l.x", get: okStep(func(s *result.Step) *float64 { return &s.Phases[0].Seconds }), print: numfmt.Seconds},
		{table: "Scans", key: []string{"", "l.x", "ix"}, col: "rows/s", step: "l.x", get: okStep(func(s *result.Step) *float64 { return &s.Phases[0].PerSec }), print: numfmt.Num},
		{table: "Cleanup: engine debt before and after", key: []string{"", "l.i1", "ok"}, col: "before", step: "l.i1",
			get: okStep(func(s *result.Step) *float64 { v := s.EngineStatsBefore["wal_bytes"]; return &v }), print: numfmt.Num},
		{table: "Cleanup: engine debt before and after", key: []string{"", "l.i1", "ok"}, col: "time", step: "l.i1", get: secs, print: numfmt.Seconds},
		{table: "Engine debt at each step's end: CONFIG (sqlite)", key: []string{"l.i1"}, col: "wal_bytes", step: "l.i1",
			get: okStep(func(s *result.Step) *float64 { v := s.EngineStats["wal_bytes"]; return &v }), print: numfmt.Num},
	}
	checkSpreads(t, in, []string{"sqlite", "solo"}, cases)
	var pebble []spreadCase
	for _, c := range cases {
		if !strings.Contains(c.table, "CONFIG") {
			pebble = append(pebble, c)
		}
	}
	checkSpreads(t, in, []string{"pebble"}, pebble)
	tables := summaryAndPageTables(t, in)
	if got := tableCells(tables, "Steps", []string{"pebble", "l.i1"}, "time"); len(got) == 0 || !strings.HasSuffix(got[0], ", 2 of 3)") {
		t.Errorf("pebble l.i1 time %q: one of the three repeats did not finish the step, want \", 2 of 3)\"", got)
	}
	for _, tb := range tables {
		for _, rw := range tb.Rows {
			for j, c := range rw {
				if (rw[0] == "solo" || j > 0 && tb.Header[j] == "solo") && strings.Contains(c, "-") && strings.Contains(c, " (") && !strings.Contains(tb.Title, "relative") && tb.Title != topTitle+" (relative to sqlite)" {
					t.Errorf("%s: solo ran once but its cell %s is %q", tb.Title, tb.Header[j], c)
				}
			}
		}
	}
	got := tableCells(tables, "SLA: background inserts/s achieved of the target", []string{"sqlite"}, "l.i1")
	sla := cases[slices.IndexFunc(cases, func(c spreadCase) bool { return c.table == "SLA of the background writers" })]
	want, _ := wantSpread(t, r, "sqlite", sla)
	if len(got) != 1 || !strings.HasPrefix(got[0], want+" of 1000 (") {
		t.Errorf("SLA page cell %q, want it to start with %q", got, want+" of 1000 (")
	}
	for _, c := range tableCells(tables, "Steps", []string{"sqlite", "l.i1"}, "verify") {
		if c != "ok" {
			t.Errorf("verify %q: a cell that is not a figure has no spread", c)
		}
	}
}

// repeatsOf returns in with its configurations replaced by three repeats of "x" (its first
// configuration, its second, and its first with every time, rate, latency, size and usage
// scaled by 1.25) and its second configuration again as "solo", which ran once.
func repeatsOf(t *testing.T, in Input) Input {
	t.Helper()
	r := *in.Run
	a, b := r.Configs[0], r.Configs[1]
	scaled := copyConfig(t, a)
	for j := range scaled.Steps {
		s := &scaled.Steps[j]
		s.Seconds *= 1.25
		for _, op := range s.Ops {
			l := &op.Latency
			op.PerSec, l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean = op.PerSec*1.25, l.P50*1.25, l.P90*1.25, l.P99*1.25, l.P999*1.25, l.Max*1.25, l.Mean*1.25
		}
		if s.Size != nil && s.Size.DBGB1 != nil {
			s.Size.DBGB1 = ptr(*s.Size.DBGB1 * 1.25)
		}
		for k, v := range s.Usage {
			s.Usage[k] = v * 1.25
		}
	}
	r.Configs = nil
	for k, c := range []result.Config{a, b, scaled} {
		c = copyConfig(t, c)
		c.Name, c.Engine = result.RepeatName("x", k+1), a.Engine
		c.Repeat = &result.Repeat{Config: "x", Index: k + 1, Count: 3, Order: k + 1}
		r.Configs = append(r.Configs, c)
	}
	r.Configs = append(r.Configs, soloConfig(t, b, "solo"))
	return Input{Dir: in.Dir, Run: &r}
}

// TestSpreadsInLinkBenchAndIIBench checks LinkBench's and iiBench's tables with repeats: a
// repeated configuration's figures with the median and spread of its repeats computed here,
// none for a configuration that ran once.
func TestSpreadsInLinkBenchAndIIBench(t *testing.T) {
	dbgb1 := okStep(func(s *result.Step) *float64 { return s.Size.DBGB1 })
	secs := func(s *result.Step) (float64, bool) { return s.Seconds, s != nil && s.Status == result.StatusOK }
	perSec := func(op string) func(*result.Step) (float64, bool) {
		return okOp(op, func(o *result.Op) float64 { return o.PerSec })
	}
	p99 := func(op string) func(*result.Step) (float64, bool) {
		return okOp(op, func(o *result.Op) float64 { return o.Latency.P99 })
	}
	lb := repeatsOf(t, loadFixture(t, "linkbench"))
	checkSpreads(t, lb, []string{"x", "solo"}, []spreadCase{
		{table: "LinkBench", key: []string{""}, col: "links/s", step: "load", get: perSec("link"), print: numfmt.Num},
		{table: "LinkBench", key: []string{""}, col: "load s", step: "load", get: secs, print: numfmt.Num},
		{table: "LinkBench", key: []string{""}, col: "run.2 qps", step: "run.2", get: stepRate, print: numfmt.Num},
		{table: "LinkBench", key: []string{""}, col: "run.1 GB", step: "run.1", get: dbgb1, print: numfmt.Num},
		{table: "Load", key: []string{"", "load"}, col: "time", step: "load", get: secs, print: numfmt.Seconds},
		{table: "Load", key: []string{"", "load"}, col: "links+counts/s", step: "load", derived: true, print: numfmt.Num,
			get: func(s *result.Step) (float64, bool) {
				return float64(s.Ops["link"].Units+s.Ops["count"].Units) / s.Seconds, s.Status == result.StatusOK
			}},
		{table: "Latency per operation", key: []string{"", "run.1", "GET_NODE"}, col: "p99", step: "run.1", get: p99("GET_NODE"), print: numfmt.Duration},
		{table: "Efficiency: run.2", key: []string{""}, col: "cpupq", step: "run.2", get: okStep(func(s *result.Step) *float64 { return s.Efficiency.CPUpq }), print: numfmt.Num},
	})
	ibIn := loadFixture(t, "iibench")
	for i := range ibIn.Run.Configs {
		s := &ibIn.Run.Configs[i].Steps[0] // a rate limit and a price, from the step's figures
		s.Target = &result.Target{InsertsPerSec: 1e5, AchievedInsertsPerSec: s.Ops["insert"].PerSec, SLAMet: true}
		s.Cost = &result.Cost{PerHour: 1000, Run: s.Seconds / 3.6}
	}
	ib := repeatsOf(t, ibIn)
	for i := range ib.Run.Configs { // the scaled repeat's cost follows its time
		s := &ib.Run.Configs[i].Steps[0]
		s.Cost.Run = s.Seconds / 3.6
	}
	checkSpreads(t, ib, []string{"x", "solo"}, []spreadCase{
		{table: "iiBench", key: []string{""}, col: "inserts/s", step: ibStep, get: perSec("insert"), print: numfmt.Num},
		{table: "iiBench", key: []string{""}, col: "queries/s", step: ibStep, get: perSec("query"), print: numfmt.Num},
		{table: "iiBench", key: []string{""}, col: "total time", step: ibStep, get: secs, print: numfmt.Seconds},
		{table: "iiBench", key: []string{""}, col: "ins/qry", step: ibStep, derived: true, print: numfmt.Num,
			get: func(s *result.Step) (float64, bool) { return s.Ops["insert"].PerSec / s.Ops["query"].PerSec, true }},
		{table: "Latency per operation", key: []string{"", "insert"}, col: "p99", step: ibStep, get: p99("insert"), print: numfmt.Duration},
		{table: "Latency per operation", key: []string{"", "query"}, col: "ops/s", step: ibStep, get: perSec("query"), print: numfmt.Num},
		{table: "Per insert and per query", key: []string{""}, col: "CPU us/insert", step: ibStep, derived: true, print: numfmt.Num,
			get: func(s *result.Step) (float64, bool) {
				return s.Usage[usageCPU] * 1e6 / float64(s.Ops["insert"].Units), true
			}},
		{table: "Rate limit", key: []string{""}, col: "achieved ins/s", step: ibStep, get: okStep(func(s *result.Step) *float64 { return &s.Target.AchievedInsertsPerSec }), print: numfmt.Num},
		{table: "Cost", key: []string{""}, col: "run cost", step: ibStep, get: okStep(func(s *result.Step) *float64 { return &s.Cost.Run }), print: dollars},
		{table: "Cost", key: []string{""}, col: "run time", step: ibStep, get: secs, print: numfmt.Seconds},
		{table: "Efficiency: run", key: []string{""}, col: "cpupq", step: ibStep, get: okStep(func(s *result.Step) *float64 { return s.Efficiency.CPUpq }), print: numfmt.Num},
	})
	checkRateMarkSpread(t, ib)
}

// checkRateMarkSpread checks the first row of iiBench's rates against rows inserted: x's ips
// there is followed by the least and the greatest of its repeats' inserts/s over their periods
// that ended with at most the row's rows, computed here.
func checkRateMarkSpread(t *testing.T, in Input) {
	t.Helper()
	var tb *Table
	for _, x := range summaryAndPageTables(t, in) {
		if x.Title == "Rates against rows inserted" {
			tb = &x
			break
		}
	}
	if tb == nil || len(tb.Rows) == 0 {
		t.Fatal("no rates against rows inserted")
	}
	mark, err := strconv.ParseInt(tb.Rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var rates []float64
	for _, c := range in.Run.Configs {
		if c.Repeat == nil {
			continue
		}
		var units int64
		var secs float64
		for _, p := range findStep(c, ibStep).Periods {
			if p.Rows <= mark {
				units, secs = units+p.Ops["insert"].Units, secs+p.Seconds
			}
		}
		if secs > 0 {
			rates = append(rates, float64(units)/secs)
		}
	}
	want := " (" + numfmt.Num(slices.Min(rates)) + "-" + numfmt.Num(slices.Max(rates))
	if len(rates) < 3 {
		want += fmt.Sprintf(", %d of 3", len(rates))
	}
	want += ")"
	if got := tb.Rows[0][slices.Index(tb.Header, "x ips")]; !strings.HasSuffix(got, want) {
		t.Errorf("rates against rows inserted, %d rows, x ips: %q, want the spread %q", mark, got, want)
	}
	if got := tb.Rows[0][slices.Index(tb.Header, "solo ips")]; strings.Contains(got, "(") {
		t.Errorf("rates against rows inserted, solo ips: %q, want no spread: it ran once", got)
	}
}
