package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/report/chart"
)

// Colours of the history charts' marks (palette indexes): red for a regression, green for an
// improvement, as the verdicts in the tables.
const (
	regressionColour  = 2
	improvementColour = 4
)

// Page returns the history's report: a header line per run, the warnings of the runs left
// out, and the section History (docs/report.md).
func (h *History) Page() *Page {
	p := &Page{Title: fmt.Sprintf("enginebench: %s benchmark history, %d runs", h.Workload, len(h.runs))}
	for i, hr := range h.runs {
		line := fmt.Sprintf("run %d %s: ", i+1, hr.label)
		if hr.Run.RunID != hr.label {
			line += hr.Run.RunID + ", "
		}
		line += fmt.Sprintf("started %s, enginebench %s", hr.Run.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"), hr.Run.Tool.Version)
		if hr.Run.Tool.Commit != "" {
			line += " (" + hr.Run.Tool.Commit + ")"
		}
		p.Lines = append(p.Lines, line+", status "+hr.Run.Status)
	}
	p.Lines = append(p.Lines, h.Excluded...)
	p.Lines = append(p.Lines, h.summaryLine())
	for _, hr := range h.runs {
		for _, c := range hr.run.Configs {
			if !slices.Contains(p.Configs, c.Name) {
				p.Configs = append(p.Configs, c.Name)
			}
		}
	}
	p.Sections = []Section{h.section(p.Configs)}
	p.Legend = []string{
		h.methodText(),
		h.changeMethodText(),
		"Verdict: red, regression (the value moved in the metric's worse direction: a rate down, a cost, latency or size up); green, improvement. A flagged run after the first run of its change says \"since run N\".",
		"\"-\": not measured in that run (the configuration or the step did not run or finish), never a zero.",
	}
	scrub(p)
	return p
}

// summaryLine counts the series, the flagged newest points and the series without enough
// history.
func (h *History) summaryLine() string {
	var reg, imp, short int
	for _, hs := range h.Series {
		switch {
		case hs.NotEnough(h.opts) != "":
			short++
		case hs.Newest().Verdict == VerdictRegression:
			reg++
		case hs.Newest().Verdict == VerdictImprovement:
			imp++
		}
	}
	creg, cimp := h.changeCounts()
	return fmt.Sprintf("%d series (configuration x step x metric); in the newest run: %d regressions, %d improvements, %d series without enough history; "+
		"change points: %d regressions, %d improvements, %d regressions among the newest %d runs",
		len(h.Series), reg, imp, short, creg, cimp, len(h.ChangeRegressions()), h.opts.Window)
}

// methodText says how the runs are judged, with the options in force.
func (h *History) methodText() string {
	o := h.opts
	return fmt.Sprintf("Method: each run's value v is compared with the runs before it that measured it (at least %d, else \"not enough history\"): "+
		"m is the median of the up to %d before it; the noise s is 1.4826 x the median absolute difference of successive earlier values / sqrt(2), at least %s%% of m; "+
		"z = (v - m) / s. Flagged when |z| reaches the Student-t bound of |z| >= %s for a noise estimated from that many runs, and v differs from m by at least %s%%.",
		o.MinRuns, o.Window, numfmt.Num(noiseFloor*100), numfmt.Num(o.Z), numfmt.Num(o.MinChange*100))
}

// section is the History section: the flagged runs, the series without enough history, the
// newest run's verdict of every series, and the charts.
func (h *History) section(configs []string) Section {
	s := Section{ID: "history", Title: "History"}
	s.Blocks = append(s.Blocks, Block{Text: h.methodText()})
	if flagged := h.flaggedTable(); len(flagged.Rows) > 0 {
		s.Blocks = append(s.Blocks, Block{Table: flagged})
	} else {
		s.Blocks = append(s.Blocks, Block{Text: noneFlagged})
	}
	s.Blocks = append(s.Blocks, Block{Text: h.changeMethodText()})
	if ct := h.changeTable(); len(ct.Rows) > 0 {
		s.Blocks = append(s.Blocks, Block{Table: ct})
	} else {
		s.Blocks = append(s.Blocks, Block{Text: noChanges})
	}
	if short := h.shortTable(); len(short.Rows) > 0 {
		s.Blocks = append(s.Blocks, Block{Table: short})
	}
	s.Blocks = append(s.Blocks, Block{Table: h.newestTable()})
	var charts []Chart
	for _, hs := range h.Series {
		if hs.flagged() || hs.headline() || len(hs.Changes) > 0 {
			charts = append(charts, h.chart(hs, colourOf(configs, hs.Config)))
		}
	}
	for len(charts) > 0 {
		n := min(len(charts), 3)
		s.Blocks, charts = append(s.Blocks, Block{Charts: charts[:n]}), charts[n:]
	}
	return s
}

// noneFlagged stands for the table of regressions and improvements when no run is flagged.
const noneFlagged = "Regressions and improvements: none flagged in any run."

// noChanges stands for the table of change points when no series has one.
const noChanges = "Change points: none found in any series."

// colourOf is the palette index of a configuration: its place among configs.
func colourOf(configs []string, name string) int {
	for i, c := range configs {
		if c == name {
			return i
		}
	}
	return 0
}

// flagged reports whether any run of the series is flagged.
func (hs *HistorySeries) flagged() bool {
	for _, p := range hs.Points {
		if p.Verdict != "" {
			return true
		}
	}
	return false
}

// headline reports whether the series is a step's headline rate (its primary operation's):
// it always has a chart.
func (hs *HistorySeries) headline() bool { return hs.primary }

// flaggedTable lists every flagged run of every series.
func (h *History) flaggedTable() *Table {
	t := &Table{Title: "Regressions and improvements", Metric: "value",
		Header: []string{"run", "config", "step", "metric", "value", "baseline median", "runs", "change", "z", "verdict"}}
	for _, hs := range h.Series {
		for i, p := range hs.Points {
			if p.Verdict == "" {
				continue
			}
			verdict := p.Verdict
			if p.Since != i {
				verdict += ", since run " + strconv.Itoa(p.Since+1)
			}
			t.Rows = append(t.Rows, []string{h.runName(i), hs.Config, hs.Step, hs.Metric, numfmt.Num(p.Value), numfmt.Num(p.Baseline),
				strconv.Itoa(p.N), percent(p.Change), fmt.Sprintf("%.1f", p.Z), verdict})
			t.Class = append(t.Class, historyVerdictClasses(len(t.Header), p.Verdict))
			t.Src = append(t.Src, h.pointSources(hs, i, 4))
		}
	}
	return t
}

// runName is run i of the history: its number and label.
func (h *History) runName(i int) string { return strconv.Itoa(i+1) + " " + h.runs[i].label }

// historyVerdictClasses are the classes of a row of n cells whose last is a verdict.
func historyVerdictClasses(n int, verdict string) []string {
	cls := make([]string, n)
	switch verdict {
	case VerdictRegression:
		cls[n-1] = ClassBad
	case VerdictImprovement:
		cls[n-1] = ClassGood
	}
	return cls
}

// percent is a relative change as a signed percentage.
func percent(c float64) string { return fmt.Sprintf("%+.1f%%", c*100) }

// shortTable lists the configurations and steps whose newest run has not enough history, with
// how many of their metrics.
func (h *History) shortTable() *Table {
	t := &Table{Title: "Not enough history", Metric: "value", Header: []string{"config", "step", "metrics", "runs", "need"}}
	for _, g := range h.shortGroups() {
		t.Rows = append(t.Rows, []string{g.config, g.step, strconv.Itoa(g.metrics), strconv.Itoa(g.runs), strconv.Itoa(h.opts.MinRuns + 1)})
	}
	return t
}

// shortGroup is the series of one configuration's step that have not enough history.
type shortGroup struct {
	config, step  string
	metrics, runs int
	text          string
}

// shortGroups groups the series without enough history by configuration and step.
func (h *History) shortGroups() []shortGroup {
	var out []shortGroup
	for _, hs := range h.Series {
		text := hs.NotEnough(h.opts)
		if text == "" {
			continue
		}
		if k := len(out) - 1; k >= 0 && out[k].config == hs.Config && out[k].step == hs.Step && out[k].text == text {
			out[k].metrics++
			continue
		}
		out = append(out, shortGroup{config: hs.Config, step: hs.Step, metrics: 1, runs: hs.measured(), text: text})
	}
	return out
}

// newestTable is every series' newest value and its verdict.
func (h *History) newestTable() *Table {
	t := &Table{Title: "The newest run against its history", Metric: "value",
		Header: []string{"config", "step", "metric", "value", "baseline median", "runs", "change", "z", "verdict"}}
	for _, hs := range h.Series {
		p := hs.Newest()
		row := []string{hs.Config, hs.Step, hs.Metric, missing, missing, missing, missing, missing, missing}
		switch {
		case !p.OK:
			row[8] = "not measured"
		case !p.Judged:
			row[3], row[8] = numfmt.Num(p.Value), "not enough history"
		case p.comparedWithZero:
			row[3], row[4], row[5], row[8] = numfmt.Num(p.Value), "0", strconv.Itoa(p.N), "baseline 0: not judged"
		default:
			row = []string{hs.Config, hs.Step, hs.Metric, numfmt.Num(p.Value), numfmt.Num(p.Baseline), strconv.Itoa(p.N),
				percent(p.Change), fmt.Sprintf("%.1f", p.Z), orDefault(p.Verdict, "ok")}
		}
		t.Rows = append(t.Rows, row)
		t.Class = append(t.Class, historyVerdictClasses(len(row), p.Verdict))
		t.Src = append(t.Src, h.pointSources(hs, len(hs.Points)-1, 3))
	}
	return t
}

// pointSources are the sources of a table row that shows point i of hs from column at: its
// value (run i's run.json), baseline median and runs (the run.json of the runs before it that
// the baseline took), change and z (the value divided by the baseline). A cell the point has
// no figure for has none; so have the row's other cells.
func (h *History) pointSources(hs *HistorySeries, i, at int) []Source {
	src := make([]Source, at+5)
	p := hs.Points[i]
	if !p.OK {
		return src
	}
	value := Source{Config: hs.Config, Step: hs.Step, Field: hs.field, dir: h.runs[i].Dir}
	src[at] = value
	if !p.Judged {
		return src
	}
	var over []string // the directories of the p.N measured runs before i, oldest first
	for j := i - 1; j >= 0 && len(over) < p.N; j-- {
		if hs.Points[j].OK {
			over = append([]string{h.runs[j].Dir}, over...)
		}
	}
	base := Source{Config: hs.Config, Step: hs.Step, Field: hs.field + " (their median)", over: over}
	src[at+1], src[at+2] = base, base
	if !p.comparedWithZero {
		rel := value
		rel.Of = &base
		src[at+3], src[at+4] = rel, rel
	}
	return src
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// chart is a series' values over the runs (x: the run's number, oldest first), with its
// regressions and improvements marked, and its change points: a dashed vertical line at the
// run that introduced each, labelled with the run and the means either side, and the means of
// the levels between them as thin dashed lines.
func (h *History) chart(hs *HistorySeries, colour int) Chart {
	n := len(hs.Points)
	x := make([]float64, n)
	y, reg, imp := nanSlice(n), nanSlice(n), nanSlice(n)
	for i, p := range hs.Points {
		x[i] = float64(i + 1)
		if !p.OK {
			continue
		}
		y[i] = p.Value
		switch p.Verdict {
		case VerdictRegression:
			reg[i] = p.Value
		case VerdictImprovement:
			imp[i] = p.Value
		}
	}
	series := []chart.Series{{Name: hs.Config, Color: colour, X: x, Y: y}}
	if hasValue(reg) {
		series = append(series, chart.Series{Name: VerdictRegression, Color: regressionColour, X: x, Y: reg, Marks: true})
	}
	if hasValue(imp) {
		series = append(series, chart.Series{Name: VerdictImprovement, Color: improvementColour, X: x, Y: imp, Marks: true})
	}
	series = append(series, h.changeSeries(hs, colour)...)
	return Chart{ID: chartID("history", hs.Config, hs.Step, hs.Metric), Series: series,
		Options: chart.Options{Title: hs.Config + " " + hs.Step + ": " + hs.Metric, XLabel: "run (oldest first)", YLabel: hs.Metric, Legend: true, WholeX: true}}
}

// changeSeries are the chart series of hs's change points: the means of its levels (in the
// configuration's colour), and a rule for the regressions and one for the improvements.
func (h *History) changeSeries(hs *HistorySeries, colour int) []chart.Series {
	if len(hs.Changes) == 0 {
		return nil
	}
	level := chart.Series{Name: "level mean", Color: colour, Level: true}
	for _, c := range hs.Changes {
		if n := len(level.X); n == 0 || level.X[n-2] != float64(c.Run) { // the level before c, unless it was drawn (each ends x, NaN)
			level.X = append(level.X, float64(c.From+1), float64(c.Run), math.NaN())
			level.Y = append(level.Y, c.Before, c.Before, math.NaN())
		}
		level.X = append(level.X, float64(c.Run+1), float64(c.To), math.NaN())
		level.Y = append(level.Y, c.After, c.After, math.NaN())
	}
	out := []chart.Series{level}
	for _, v := range []struct {
		verdict string
		colour  int
	}{{VerdictRegression, regressionColour}, {VerdictImprovement, improvementColour}} {
		rule := chart.Series{Name: "change point, " + v.verdict, Color: v.colour, Rule: true}
		for _, c := range hs.Changes {
			if c.Verdict == v.verdict {
				rule.X, rule.Y = append(rule.X, float64(c.Run+1)), append(rule.Y, c.After)
				rule.Labels = append(rule.Labels, h.changeLabel(c))
			}
		}
		if len(rule.X) > 0 {
			out = append(out, rule)
		}
	}
	return out
}

// hasValue reports whether vs holds any value that is not NaN.
func hasValue(vs []float64) bool {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// Terminal returns the lines `enginebench report --history` prints: the runs left out, the
// series without enough history (grouped by configuration and step), every regression and
// improvement of the newest run, every series' newest change point when it is among the
// newest runs (HistoryOptions.Window), and a count.
func (h *History) Terminal() []string {
	lines := append([]string{}, h.Excluded...)
	for _, g := range h.shortGroups() {
		lines = append(lines, fmt.Sprintf("%s %s (%d metrics): %s", g.config, g.step, g.metrics, g.text))
	}
	for _, hs := range h.Series {
		p := hs.Newest()
		if p.Verdict == "" {
			continue
		}
		word := "REGRESSION"
		if p.Verdict == VerdictImprovement {
			word = "improvement"
		}
		since := ""
		if last := len(hs.Points) - 1; p.Since != last {
			since = ", since run " + h.runName(p.Since)
		}
		lines = append(lines, fmt.Sprintf("%s: %s %s %s: %s in run %s vs baseline median %s of %d runs (%s, z %.1f%s)",
			word, hs.Config, hs.Step, hs.Metric, numfmt.Num(p.Value), h.runName(len(hs.Points)-1), numfmt.Num(p.Baseline), p.N, percent(p.Change), p.Z, since))
	}
	for _, hs := range h.Series {
		if c := hs.recentChange(h.opts.Window); c != nil {
			lines = append(lines, h.changeTerminal(hs, c))
		}
	}
	return append(lines, "history: "+h.summaryLine())
}
