package report

import (
	"fmt"
	"slices"
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
	s := Build(r)
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
	p, err := NewPage([]Input{{Dir: "rep", Run: r}}, Options{})
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
	p, err := NewPage([]Input{{Dir: "x", Run: a}, {Dir: "y", Run: b}}, Options{Ratio: true})
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
	p, err := NewPage(runs, Options{})
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
