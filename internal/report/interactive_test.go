package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/report/chart"
)

// TestInteractiveChartData checks an interactive chart's element: its id and group, and its
// data as JSON with a missing value as null (a gap, never 0), numbers short but whole where
// large, each configuration's palette colour and, past ten, its dash pattern; and that the
// data cannot end its script element.
func TestInteractiveChartData(t *testing.T) {
	c := Chart{ID: "l_i1-insert-rate", Sync: "step-l_i1", Options: chart.Options{Title: "</script><b>x</b>", XLabel: "seconds", YLabel: "rows/s"},
		Series: []chart.Series{
			{Name: "a", Color: 0, X: []float64{1.0004, 2.0009, 3.001}, Y: []float64{1234.5678, math.NaN(), 959487.7}},
			{Name: "b", Color: 12, X: []float64{1, 2}, Y: []float64{0.000123456, 0}},
		}}
	if !interactive(c) {
		t.Fatal("a line chart of a Sync group is not interactive")
	}
	h, err := interactiveChart(c)
	if err != nil {
		t.Fatal(err)
	}
	s := string(h)
	if !strings.HasPrefix(s, `<div class="uchart" id="chart-l_i1-insert-rate" data-chart="l_i1-insert-rate" data-sync="step-l_i1"><script type="application/json">`) {
		t.Errorf("element %s", s)
	}
	if strings.Count(s, "</script>") != 1 {
		t.Errorf("the title ends the script element: %s", s)
	}
	start := strings.Index(s, ">{") + 1
	raw := s[start:strings.Index(s, "</script>")]
	for _, want := range []string{`"x":[1.0004,2.0009,3.001]`, `"y":[1234.6,null,959488]`, `"y":[0.00012346,0]`, `"color":"` + chart.Color(12) + `","dash":[6,3]`} {
		if !strings.Contains(raw, want) {
			t.Errorf("data %s: no %s", raw, want)
		}
	}
	var d lineData
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatalf("data %s: %v", raw, err)
	}
	if d.Title != c.Options.Title || len(d.Series) != 2 || d.Series[0].Dash != nil {
		t.Errorf("data %+v", d)
	}

	for name, c := range map[string]Chart{
		"no group":    {Series: c.Series},
		"no point":    {Sync: "g", Series: []chart.Series{{X: []float64{1}, Y: []float64{math.NaN()}}}},
		"bars":        {Sync: "g", Bars: &Bars{}},
		"log y scale": {Sync: "g", Series: c.Series, Options: chart.Options{LogY: true}},
	} {
		if interactive(c) {
			t.Errorf("%s: interactive, want SVG", name)
		}
	}
}

// TestInteractiveScripts checks that a page carries uPlot and charts.js once, and only when it
// has an interactive chart, and that no embedded file can end its element early.
func TestInteractiveScripts(t *testing.T) {
	for name, f := range map[string]string{"uPlot": uplotJS, "uPlot's style": uplotCSS, "charts.js": chartsJS, "charts.css": chartsCSS} {
		if f == "" || strings.Contains(strings.ToLower(f), "</script") || strings.Contains(strings.ToLower(f), "</style") {
			t.Errorf("%s: empty, or it ends its element", name)
		}
	}
	_, html := pageHTML(t, Input{Dir: "charts", Run: chartRun(2, 10, false)})
	if n := strings.Count(html.String(), "https://github.com/leeoniya/uPlot"); n != 1 {
		t.Errorf("uPlot in the page %d times, want once", n)
	}
	if n := strings.Count(html.String(), `class="uchart"`); n != 12 {
		t.Errorf("%d interactive charts, want 12 (rate, p99, max of insert and delete in two steps)", n)
	}
	_, html = pageHTML(t, loadFixture(t, "resources"))
	if strings.Contains(html.String(), "leeoniya/uPlot") != strings.Contains(html.String(), `class="uchart"`) {
		t.Error("uPlot carried without an interactive chart, or missing with one")
	}
	p, err := NewPage([]Input{{Dir: "charts", Run: chartRun(2, 10, false)}}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Sections {
		for j := range p.Sections[i].Blocks {
			for k := range p.Sections[i].Blocks[j].Charts {
				p.Sections[i].Blocks[j].Charts[k].Sync = "" // every chart in SVG
			}
		}
	}
	var b strings.Builder
	if err := WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "leeoniya/uPlot") || strings.Contains(b.String(), "<script") {
		t.Error("a page without interactive charts carries scripts")
	}
}
