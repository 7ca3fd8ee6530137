package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// dumpBox renders a box chart's rows for the golden files: "name/colour: p25 p50 p75 p99 max"
// in ms, "-" where a value is missing.
func dumpBox(rows []chart.BoxRow) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, 0, 5)
		for _, v := range []float64{r.P25, r.P50, r.P75, r.P99, r.Max} {
			if math.IsNaN(v) {
				vals = append(vals, missing)
			} else {
				vals = append(vals, numfmt.Num(v))
			}
		}
		out[i] = r.Name + "/" + strconv.Itoa(r.Color) + ": " + strings.Join(vals, " ")
	}
	return strings.Join(out, "; ")
}

// boxColours are the colours a box chart must show: those of the rows with a value it can draw.
func boxColours(rows []chart.BoxRow) []int {
	var out []int
	for _, r := range rows {
		for _, v := range []float64{r.P25, r.P50, r.P75, r.P99, r.Max} {
			if !math.IsNaN(v) && v > 0 {
				out = append(out, r.Color)
				break
			}
		}
	}
	return out
}

// boxSteps are the steps of a run whose latency the page shows as boxes, and the section they
// are in ("" for each step's own section).
func boxSteps(r *result.Run) ([]string, string) {
	switch r.Workload.Name {
	case "linkbench":
		return latencyIntervals(r), "latency"
	case "iibench":
		return []string{ibStep}, "latency"
	}
	var steps []string
	for _, n := range rateSteps(r) {
		if n != "warmup" {
			steps = append(steps, n)
		}
	}
	return steps, ""
}

// TestBoxView checks, for each fixture, that the page has a box chart of every operation of
// every step it reports latency for, in that step's section, and one of the response time
// where a configuration measured it: a row per configuration in its colour, holding the op's
// percentiles in ms, "-" (NaN) where the configuration did not run it or its run did not
// measure the quartiles.
func TestBoxView(t *testing.T) {
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			in := loadFixture(t, name)
			p, err := NewPage([]Input{in}, Options{Layouts: testLayouts()})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := collapseRepeats(in.Run)
			got := map[string]Chart{}
			where := map[string]string{}
			for _, s := range p.Sections {
				for _, b := range s.Blocks {
					for _, c := range b.Charts {
						if c.Box != nil {
							got[c.ID], where[c.ID] = c, s.ID
						}
					}
				}
			}
			steps, section := boxSteps(r)
			want, boxes, noBoxes := 0, 0, 0
			for _, step := range steps {
				sec := section
				if sec == "" {
					sec = chartID("step", step)
				}
				for _, op := range stepOps(r, step) {
					for _, rt := range []bool{false, true} {
						id := chartID(step, op, "box")
						if rt {
							id = chartID(step, op, "rt", "box")
						}
						c, ok := got[id]
						if rt && !hasResponseLatency(r, step, op) {
							if ok {
								t.Errorf("%s: a response-time box chart where no configuration measured one", id)
							}
							continue
						}
						want++
						if !ok || where[id] != sec {
							t.Errorf("no box chart %s in section %s (%v in %q)", id, sec, ok, where[id])
							continue
						}
						b, nb := checkBoxRows(t, r, p, c, step, op, rt)
						boxes, noBoxes = boxes+b, noBoxes+nb
					}
				}
			}
			if want == 0 || len(got) != want {
				t.Errorf("%d box charts, want %d", len(got), want)
			}
			// The insert fixture has quartiles for two configurations and none for the third
			// (a run before them); the others predate them.
			if wantBoxes := name == "insert"; (boxes > 0) != wantBoxes || noBoxes == 0 {
				t.Errorf("%d rows with a box and %d without", boxes, noBoxes)
			}
		})
	}
}

// checkBoxRows checks the rows of a box chart against the run and returns how many have a box
// and how many have values but no box.
func checkBoxRows(t *testing.T, r *result.Run, p *Page, c Chart, step, op string, rt bool) (boxes, noBoxes int) {
	t.Helper()
	if len(c.Box) != len(p.Configs) {
		t.Fatalf("%s: %d rows for %d configurations", c.ID, len(c.Box), len(p.Configs))
	}
	for i, row := range c.Box {
		if row.Name != p.Configs[i] || row.Color != i {
			t.Errorf("%s: row %d is %s in colour %d, want %s in %d", c.ID, i, row.Name, row.Color, p.Configs[i], i)
		}
		l := opLatency(findStep(r.Configs[i], step), op, rt)
		vals := []float64{row.P25, row.P50, row.P75, row.P99, row.Max}
		if l == nil {
			for _, v := range vals {
				if !math.IsNaN(v) {
					t.Errorf("%s: %s did not run %s, its row has %v", c.ID, row.Name, op, vals)
					break
				}
			}
			continue
		}
		ms := func(us *float64) float64 {
			if us == nil {
				return math.NaN()
			}
			return *us / 1e3
		}
		for k, w := range []float64{ms(l.P25), l.P50 / 1e3, ms(l.P75), l.P99 / 1e3, l.Max / 1e3} {
			if vals[k] != w && !(math.IsNaN(w) && math.IsNaN(vals[k])) {
				t.Errorf("%s: %s: row %v, want %v at %d", c.ID, row.Name, vals, w, k)
			}
		}
		if l.P25 != nil {
			boxes++
			if !(row.P25 <= row.P50 && row.P50 <= row.P75 && row.P75 <= row.P99 && row.P99 <= row.Max) {
				t.Errorf("%s: %s: %v out of order", c.ID, row.Name, vals)
			}
		} else {
			noBoxes++
		}
	}
	return boxes, noBoxes
}

// The latency tables list p25 and p75: the measured quartile, or "-" for a run made before
// them, never a zero.
func TestQuartileColumns(t *testing.T) {
	in := loadFixture(t, "insert")
	p, err := NewPage([]Input{in}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range in.Run.Configs {
		op := findStep(c, "l.i1").Ops["insert"] // the headline op: each configuration's first row
		for col, q := range map[string]*float64{"p25": op.Latency.P25, "p75": op.Latency.P75} {
			text, _ := cell(t, p, "l.i1: latency percentiles", c.Name, col)
			want := missing
			if q != nil {
				want = numfmt.Duration(*q)
			}
			if text != want || (c.Name == "sqlite-full") != (text == missing) {
				t.Errorf("%s %s: %q, want %q (sqlite-full's run has no quartiles)", c.Name, col, text, want)
			}
		}
	}
	s := Build(in.Run, testLayouts())
	for _, tb := range s.Tables {
		if tb.Title == "Latency" {
			if h := tb.Header; h[len(h)-2] != "p25" || h[len(h)-1] != "p75" {
				t.Errorf("summary latency header %v", h)
			}
			return
		}
	}
	t.Error("the summary has no Latency table")
}
