package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Student's t quantiles t(0.975, df) from published tables (NIST/SEMATECH e-Handbook of
// Statistical Methods, 1.3.6.7.2), not from the code under test.
var t975 = map[int]float64{1: 12.706205, 2: 4.302653}

// handInterval works out by hand the 95% interval of the geometric mean of the ratios of
// rounds, each round's sample the mean of its log ratios: exp(m ± t·s/√n).
func handInterval(rounds [][]float64) (est, lo, hi float64) {
	var logs []float64
	for _, r := range rounds {
		var l float64
		for _, x := range r {
			l += math.Log(x) / float64(len(r))
		}
		logs = append(logs, l)
	}
	n := float64(len(logs))
	var m, ss float64
	for _, l := range logs {
		m += l / n
	}
	for _, l := range logs {
		ss += (l - m) * (l - m)
	}
	h := t975[len(logs)-1] * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	return math.Exp(m), math.Exp(m - h), math.Exp(m + h)
}

// wantIntervalCell is the cell of an interval and its colour worked out by hand: blue when
// wholly above 1, gold when wholly below.
func wantIntervalCell(rounds [][]float64) (string, string) {
	est, lo, hi := handInterval(rounds)
	class := ""
	switch {
	case lo > 1:
		class = ClassBetter
	case hi < 1:
		class = ClassWorse
	}
	return fmt.Sprintf("%.2f (%.2f-%.2f)", est, lo, hi), class
}

// TestConfidenceOfRepeats checks the page of a run with repeats (repeatRun: b#3's qr100
// failed): each step's ratio of b to a with its interval, paired by round, and the
// at-a-glance geometric mean's over the two rounds in which both finished every step, each
// worked out here from the fixture's rates; and the words at the top of the page and of the
// terminal summary.
func TestConfidenceOfRepeats(t *testing.T) {
	p := newPage(t, Options{}, Input{Dir: "rep", Run: repeatRun()})
	title := confidenceTitle + " (relative to a)"
	steps := map[string][][]float64{
		"l.i0":  {{1070.0 / 1000}, {1200.0 / 1100}, {1130.0 / 1050}},
		"l.i1":  {{120.0 / 100}, {118.0 / 101}, {122.0 / 99}},
		"qr100": {{60.0 / 50}, {61.0 / 52}}, // b#3 failed it: two rounds
	}
	for step, rounds := range steps {
		text, class := cell(t, p, title, "b", step)
		if wt, wc := wantIntervalCell(rounds); text != wt || class != wc {
			t.Errorf("b %s: %q {%s}, want %q {%s}", step, text, class, wt, wc)
		}
	}
	glance := [][]float64{
		{1070.0 / 1000, 120.0 / 100, 60.0 / 50},
		{1200.0 / 1100, 118.0 / 101, 61.0 / 52},
	}
	text, class := cell(t, p, title, "b", "geometric mean")
	if wt, wc := wantIntervalCell(glance); text != wt || class != wc {
		t.Errorf("b geometric mean: %q {%s}, want %q {%s}", text, class, wt, wc)
	}
	est, lo, hi := handInterval(glance)
	verdict := "inside the noise"
	switch {
	case lo > 1:
		verdict = "better, outside the noise"
	case hi < 1:
		verdict = "worse, outside the noise"
	}
	words := fmt.Sprintf("b against a: %.2fx, %s (95%% interval %.2f–%.2f, 2 rounds)", est, verdict, lo, hi)
	var texts []string
	for _, b := range p.Sections[0].Blocks {
		if b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	if !slices.Contains(texts, words) {
		t.Errorf("the top of the page lacks %q:\n%s", words, strings.Join(texts, "\n"))
	}
	if got := glanceNoise(repeatRun()); !slices.Equal(got, []string{words}) {
		t.Errorf("the terminal summary's words %q, want %q", got, words)
	}
}

// TestConfidenceInsideTheNoise checks the words of a difference whose interval contains 1
// and of one outside it.
func TestConfidenceInsideTheNoise(t *testing.T) {
	r := repeatRun()
	for i := range r.Configs {
		for j := range r.Configs[i].Steps {
			s := &r.Configs[i].Steps[j]
			if r.Configs[i].Repeat.Config == "b" && s.Ops != nil {
				// b's rates a's times 1.02, 0.98, 1.03 in rounds 1, 2, 3: inside the noise.
				s.Ops["insert"].PerSec = []float64{1.02, 0.98, 1.03}[r.Configs[i].Repeat.Index-1] * r.Configs[i-1].Steps[j].Ops["insert"].PerSec
			}
		}
	}
	lines := glanceNoise(r)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "b against a: 1.00x, inside the noise (95% interval ") {
		t.Errorf("words %q, want b inside the noise", lines)
	}
	p := newPage(t, Options{}, Input{Dir: "rep", Run: r})
	if _, class := cell(t, p, confidenceTitle+" (relative to a)", "b", "geometric mean"); class != "" {
		t.Errorf("an interval that contains 1 is coloured %q", class)
	}
}

// TestConfidenceNeedsRepeatsOfOneRun checks that a run without repeats has no intervals and
// no words, and that a combined report pairs only configurations of one run.
func TestConfidenceNeedsRepeatsOfOneRun(t *testing.T) {
	p := newPage(t, Options{}, loadFixture(t, "insert"))
	for _, b := range p.Sections[0].Blocks {
		if b.Table != nil && strings.HasPrefix(b.Table.Title, confidenceTitle) || strings.Contains(b.Text, "inside the noise (") {
			t.Errorf("a run without repeats shows %q%v", b.Text, b.Table)
		}
	}
	if got := glanceNoise(loadFixture(t, "insert").Run); got != nil {
		t.Errorf("words without repeats: %q", got)
	}
	a, b := repeatRun(), repeatRun()
	b.RunID = "rep2"
	p = newPage(t, Options{}, Input{Dir: "x", Run: a}, Input{Dir: "y", Run: b})
	var rows []string
	for _, bl := range p.Sections[0].Blocks {
		if bl.Table != nil && strings.HasPrefix(bl.Table.Title, confidenceTitle) {
			for _, row := range bl.Table.Rows {
				rows = append(rows, row[0])
			}
		}
	}
	if !slices.Equal(rows, []string{"x/b"}) {
		t.Errorf("intervals of %v against x/a, want x/b's alone: y's rounds did not run beside x's", rows)
	}
}
