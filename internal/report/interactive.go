package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"

	"github.com/enginebench/enginebench/internal/report/chart"
)

// The interactive line charts are drawn in the browser by uPlot (vendored in uplot/, see its
// README), from each chart's data in the page as JSON; charts.js builds them and ties the
// charts of one Sync group together: one cursor, one zoom.
var (
	//go:embed uplot/uPlot.iife.min.js
	uplotJS string
	//go:embed uplot/uPlot.min.css
	uplotCSS string
	//go:embed charts.js
	chartsJS string
	//go:embed charts.css
	chartsCSS string
)

// interactiveScripts is what a page with interactive charts carries once, at its end: uPlot
// and its style, and charts.js with its style.
func interactiveScripts() template.HTML {
	// Our own files and a released library's: no "</script" or "</style" in them (checked by
	// TestInteractiveAssets).
	return template.HTML("<style>" + uplotCSS + "\n" + chartsCSS + "</style>\n<script>" + uplotJS + "</script>\n<script>" + chartsJS + "</script>\n")
}

// interactive reports whether c is drawn in the browser: a line chart of a Sync group with a
// point to draw (a chart without one is drawn as "no data" in SVG).
func interactive(c Chart) bool {
	if c.Sync == "" || c.Bars != nil || c.Levels != nil || c.Options.LogY {
		return false
	}
	for _, s := range c.Series {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				return true
			}
		}
	}
	return false
}

// lineData is an interactive chart's data, as charts.js reads it.
type lineData struct {
	Title  string       `json:"title"`
	XLabel string       `json:"xlabel"`
	YLabel string       `json:"ylabel"`
	Series []lineSeries `json:"series"`
}

// lineSeries is one configuration's line: its points, a null y where it has no value (a gap).
type lineSeries struct {
	Name  string    `json:"name"`
	Color string    `json:"color"`
	Dash  []float64 `json:"dash,omitempty"`
	X     numbers   `json:"x"`
	Y     values    `json:"y"`
}

// numbers marshal as a JSON array of numbers of 7 significant digits, or whole (x: seconds to
// the millisecond over a long step, rows in a table), NaN and infinities as null.
type numbers []float64

// values marshal as a JSON array of numbers of 5 significant digits, or whole (y: more than a
// chart or its legend shows), NaN and infinities as null.
type values []float64

// MarshalJSON writes the numbers compactly, a missing value as null.
func (ns numbers) MarshalJSON() ([]byte, error) { return jsonNumbers(ns, 7), nil }

// MarshalJSON writes the values compactly, a missing value as null.
func (vs values) MarshalJSON() ([]byte, error) { return jsonNumbers(vs, 5), nil }

// jsonNumbers is ns as a JSON array of numbers of the given significant digits, null for NaN
// and infinities.
func jsonNumbers(ns []float64, digits int) []byte {
	b := make([]byte, 0, 8*len(ns)+2)
	b = append(b, '[')
	for i, v := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		if math.Abs(v) >= math.Pow10(digits) {
			b = strconv.AppendFloat(b, v, 'f', 0, 64) // whole, not in exponent form
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', digits, 64)
	}
	return append(b, ']')
}

// interactiveChart is the element of an interactive chart: a box with the chart's id and Sync
// group that holds its data as JSON, which charts.js draws into.
func interactiveChart(c Chart) (template.HTML, error) {
	d := lineData{Title: c.Options.Title, XLabel: c.Options.XLabel, YLabel: c.Options.YLabel}
	for _, s := range c.Series {
		n := min(len(s.X), len(s.Y))
		d.Series = append(d.Series, lineSeries{Name: s.Name, Color: chart.Color(s.Color), Dash: chart.Dash(s.Color),
			X: numbers(s.X[:n]), Y: values(s.Y[:n])})
	}
	// json.Marshal escapes <, > and & in strings, so the data cannot end its script element.
	data, err := json.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("chart data: %w", err)
	}
	id := template.HTMLEscapeString(c.ID)
	return template.HTML(fmt.Sprintf(`<div class="uchart" id="chart-%s" data-chart="%s" data-sync="%s"><script type="application/json">%s</script><noscript>%s: this chart is drawn by JavaScript.</noscript></div>`,
		id, id, template.HTMLEscapeString(c.Sync), data, template.HTMLEscapeString(c.Options.Title))), nil
}
