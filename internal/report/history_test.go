package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// nightly is one night's figures of configuration c in the step l.i1: the insert rate, its p99
// (us) and cpupq.
type nightly struct{ rate, p99, cpupq float64 }

// historyRuns builds n Insert Benchmark runs, a day apart, of configurations "a" and "b" (each
// one step l.i1 with its insert rate, p99 latency and cpupq as fig(config, night) gives them),
// returned newest first so that NewHistory must order them.
func historyRuns(n int, fig func(config string, night int) nightly) []Input {
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	var out []Input
	for i := range n {
		r := &result.Run{Tool: result.Tool{Version: "t"}, RunID: fmt.Sprintf("night%02d", i), StartedAt: t0.AddDate(0, 0, i),
			Status: result.StatusOK, Workload: result.Workload{Name: "insert", Scale: "tiny"},
			Host: result.Host{CPUModel: "cpu-x", CPUs: 2, Kernel: "6.1"}}
		for _, c := range []string{"a", "b"} {
			f := fig(c, i)
			s := result.Step{Name: "l.i1", Status: result.StatusOK, Seconds: 10, Primary: "insert",
				Ops: map[string]*result.Op{"insert": {Count: 100, Units: int64(f.rate * 10), PerSec: f.rate,
					Latency: result.Latency{P99: f.p99}}},
				Efficiency: &result.Efficiency{CPUpq: &f.cpupq}}
			r.Configs = append(r.Configs, result.Config{Name: c, Engine: "sqlite", Status: result.StatusOK, Steps: []result.Step{s}})
		}
		out = append([]Input{{Dir: fmt.Sprintf("results/night%02d", i), Run: r}}, out...)
	}
	return out
}

// noisy is v with a uniform relative noise of at most ±pct%.
func noisy(rng *rand.Rand, v, pct float64) float64 { return v * (1 + pct/100*(2*rng.Float64()-1)) }

// series finds the series of config and metric in step l.i1.
func series(t *testing.T, h *History, config, metric string) *HistorySeries {
	t.Helper()
	for _, hs := range h.Series {
		if hs.Config == config && hs.Step == "l.i1" && hs.Metric == metric {
			return hs
		}
	}
	t.Fatalf("no series %s l.i1 %s", config, metric)
	return nil
}

// flaggedAt returns the indexes of the points with verdict v.
func flaggedAt(hs *HistorySeries, v string) []int {
	var out []int
	for i, p := range hs.Points {
		if p.Verdict == v {
			out = append(out, i)
		}
	}
	return out
}

// stepChangeNight is the night stepChangeHistory's figures change.
const stepChangeNight = 14

// stepChangeHistory is the history of 18 nightly runs of configurations a and b whose figures
// vary by ±2% (seeded) until night 14, when a's rate drops 20% and its cpupq rises 30% (both
// regressions) and b's rate rises 20% (an improvement).
func stepChangeHistory(t *testing.T) *History {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	h, err := NewHistory(historyRuns(18, func(c string, i int) nightly {
		rate, cpu := 10000.0, 50.0
		if i >= stepChangeNight {
			switch c {
			case "a":
				rate, cpu = 8000, 65
			case "b":
				rate = 12000
			}
		}
		return nightly{noisy(rng, rate, 2), noisy(rng, 900, 2), noisy(rng, cpu, 2)}
	}), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHistoryFlagsAStepChange: nightly figures with ±2% noise; at night 14 a's rate drops 20%
// and its cpupq rises 30% (both regressions), b's rate rises 20% (an improvement) while its
// cpupq stays. Each change is flagged first at night 14, in its direction, and the nights
// after it that stay at the new level say since which night; nothing before it is flagged.
func TestHistoryFlagsAStepChange(t *testing.T) {
	const change = stepChangeNight
	h := stepChangeHistory(t)
	for i, hr := range h.runs {
		if want := fmt.Sprintf("night%02d", i); hr.label != want {
			t.Fatalf("run %d is %s, want %s: runs are ordered by their start", i, hr.label, want)
		}
	}
	for _, c := range []struct {
		config, metric, verdict string
	}{
		{"a", "insert per_sec", VerdictRegression},
		{"a", "cpupq", VerdictRegression},
		{"b", "insert per_sec", VerdictImprovement},
	} {
		hs := series(t, h, c.config, c.metric)
		at := flaggedAt(hs, c.verdict)
		if len(at) == 0 || at[0] != change {
			t.Errorf("%s %s: %s at %v, want first at night %d", c.config, c.metric, c.verdict, at, change)
			continue
		}
		for _, i := range at {
			if p := hs.Points[i]; p.Since != change {
				t.Errorf("%s %s night %d: since %d, want %d", c.config, c.metric, i, p.Since, change)
			}
		}
		other := VerdictImprovement
		if c.verdict == VerdictImprovement {
			other = VerdictRegression
		}
		if o := flaggedAt(hs, other); len(o) > 0 {
			t.Errorf("%s %s: %s at %v, want none", c.config, c.metric, other, o)
		}
		p := hs.Points[change]
		if p.N != DefaultHistoryWindow || math.Abs(p.Z) < DefaultHistoryZ {
			t.Errorf("%s %s night %d: window %d, z %.1f", c.config, c.metric, change, p.N, p.Z)
		}
	}
	for _, m := range []string{"insert p99", "cpupq"} {
		if hs := series(t, h, "b", m); hs.flagged() {
			t.Errorf("b %s is flagged though it did not change: %+v", m, hs.Points)
		}
	}
	if got := len(h.Regressions()); got != 2 {
		t.Errorf("%d regressions in the newest run, want 2 (a's rate and cpupq)", got)
	}
	term := strings.Join(h.Terminal(), "\n")
	for _, want := range []string{"REGRESSION: a l.i1 insert per_sec:", "REGRESSION: a l.i1 cpupq:", "improvement: b l.i1 insert per_sec:",
		"since run 15 night14", "2 regressions, 1 improvements"} {
		if !strings.Contains(term, want) {
			t.Errorf("terminal lacks %q:\n%s", want, term)
		}
	}
	checkHistoryPage(t, h, "15 night14", "regression")
}

// checkHistoryPage renders h's page and checks the History section, its flagged table (a row
// of run with verdict), report.md and the charts with their marks.
func checkHistoryPage(t *testing.T, h *History, run, verdict string) {
	t.Helper()
	p := h.Page()
	var flagged *Table
	for _, b := range p.Sections[0].Blocks {
		if b.Table != nil && b.Table.Title == "Regressions and improvements" {
			flagged = b.Table
		}
	}
	if flagged == nil {
		t.Fatal("no table of regressions and improvements")
	}
	found := false
	for i, row := range flagged.Rows {
		if row[0] == run && row[len(row)-1] == verdict {
			found = true
			if cls := flagged.Class[i][len(row)-1]; (verdict == VerdictRegression) != (cls == ClassBad) {
				t.Errorf("row %v: class %q", row, cls)
			}
		}
	}
	if !found {
		t.Errorf("no row of run %s with verdict %s: %v", run, verdict, flagged.Rows)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	// The marks: red dots (palette 2, which neither configuration has) on the charts.
	for _, want := range []string{`<section id="history">`, `id="chart-history-a-l_i1-insert_per_sec"`, "regression", "#E15759"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if md := MarkdownPage(p); !strings.Contains(md, "## History") || !strings.Contains(md, "| "+run) {
		t.Errorf("report.md lacks the History section or run %s", run)
	}
}

// TestHistoryNoiseIsNotFlagged: figures that only vary within their noise (±3%, uniform,
// seeded, as a quiet machine's nightly runs) are never flagged and have no change point,
// although many nights differ from the median by 3% or more.
func TestHistoryNoiseIsNotFlagged(t *testing.T) {
	for seed := range uint64(5) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h, err := NewHistory(historyRuns(40, func(string, int) nightly {
			return nightly{noisy(rng, 10000, 3), noisy(rng, 900, 3), noisy(rng, 50, 3)}
		}), HistoryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		big := 0
		for _, hs := range h.Series {
			for i, p := range hs.Points {
				if p.Verdict != "" {
					t.Errorf("seed %d: %s %s night %d flagged %s: %s vs median %s, z %.1f", seed, hs.Config, hs.Metric, i, p.Verdict,
						fmt.Sprint(p.Value), fmt.Sprint(p.Baseline), p.Z)
				}
				if p.Judged && math.Abs(p.Change) >= 0.03 {
					big++
				}
			}
			if len(hs.Changes) > 0 {
				t.Errorf("seed %d: %s %s has change points in noise alone: %+v", seed, hs.Config, hs.Metric, hs.Changes)
			}
		}
		if big == 0 {
			t.Errorf("seed %d: no night differs by 3%% from its median: the noise is not noise", seed)
		}
	}
}

// TestHistoryNotEnough: three runs are not enough to judge the newest; every series says so,
// and the terminal says it per configuration and step.
func TestHistoryNotEnough(t *testing.T) {
	h, err := NewHistory(historyRuns(3, func(c string, i int) nightly { return nightly{1000 * float64(i+1), 900, 50} }), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, hs := range h.Series {
		if got, want := hs.NotEnough(h.opts), "not enough history: 3 runs, need 6 (5 before the newest)"; got != want {
			t.Errorf("%s %s: %q, want %q", hs.Config, hs.Metric, got, want)
		}
		if hs.flagged() {
			t.Errorf("%s %s flagged with 3 runs", hs.Config, hs.Metric)
		}
	}
	term := strings.Join(h.Terminal(), "\n")
	for _, want := range []string{"a l.i1 (3 metrics): not enough history: 3 runs, need 6", "b l.i1 (3 metrics): not enough history"} {
		if !strings.Contains(term, want) {
			t.Errorf("terminal lacks %q:\n%s", want, term)
		}
	}
}

// TestHistoryUnlikeHostExcluded: a run from a host unlike the newest run's (another CPU) is
// left out of every series, with a warning naming it; the series of the others still flag.
func TestHistoryUnlikeHostExcluded(t *testing.T) {
	runs := historyRuns(8, func(c string, i int) nightly {
		if i == 3 {
			return nightly{5000, 900, 50} // the other machine is slower: not a regression
		}
		return nightly{10000 + float64(i%2), 900, 50}
	})
	odd := runs[len(runs)-1-3].Run
	odd.Host.CPUModel = "cpu-y"
	h, err := NewHistory(runs, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Excluded) != 1 || !strings.Contains(h.Excluded[0], "run night03 ran on a host unlike the newest run night07's: CPU model cpu-y vs cpu-x") {
		t.Fatalf("excluded: %q", h.Excluded)
	}
	hs := series(t, h, "a", "insert per_sec")
	if len(hs.Points) != 7 || hs.flagged() {
		t.Errorf("a's rate: %d points, flagged %v; want 7 without night03", len(hs.Points), hs.flagged())
	}
	if !strings.Contains(strings.Join(h.Terminal(), "\n"), "WARNING: run night03") {
		t.Error("the terminal does not warn of night03")
	}
	if !strings.Contains(MarkdownPage(h.Page()), "night03 ran on a host unlike") {
		t.Error("report.md does not warn of night03")
	}
}

// TestHistoryBadInput: no runs, and runs of different workloads, are refused.
func TestHistoryBadInput(t *testing.T) {
	if _, err := NewHistory(nil, HistoryOptions{}); err == nil {
		t.Error("no runs accepted")
	}
	runs := historyRuns(2, func(string, int) nightly { return nightly{1, 1, 1} })
	runs[1].Run.Workload.Name = "iibench"
	if _, err := NewHistory(runs, HistoryOptions{}); err == nil || !strings.Contains(err.Error(), "different workloads") {
		t.Errorf("mixed workloads: %v", err)
	}
}

// TestJudgeEdges: a point is judged against the measured points before it (a gap is skipped,
// not a zero), a series that never varied flags a 5% change through the noise floor but not a
// 4% one, and a zero baseline is not judged.
func TestJudgeEdges(t *testing.T) {
	nan := math.NaN()
	flat := []float64{100, 100, nan, 100, 100, 100, 100, 100, 100, 100, 100, 110}
	pts := judge(flat, higherBetter, HistoryOptions{})
	if p := pts[11]; !p.Judged || p.N != 10 || p.Verdict != VerdictImprovement || math.Abs(p.Z-10) > 1e-9 {
		t.Errorf("flat then +10%%: %+v", p)
	}
	// With 5 earlier values the bound is t(4) x 1.1 = 7.2: a z of 5 is not enough.
	if p := judge([]float64{100, 100, 100, 100, 100, 105}, higherBetter, HistoryOptions{})[5]; p.Verdict != "" || math.Abs(p.Z-5) > 1e-9 {
		t.Errorf("+5%% after 5 runs: %+v", p)
	}
	if pts[2].OK {
		t.Error("a gap is a point")
	}
	if p := judge(slices.Repeat([]float64{100}, 30), lowerBetter, HistoryOptions{})[29]; p.Verdict != "" {
		t.Errorf("flat flagged: %+v", p)
	}
	if p := judge([]float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 104}, lowerBetter, HistoryOptions{})[10]; p.Verdict != "" {
		t.Errorf("+4%% flagged: %+v", p)
	}
	if p := judge([]float64{100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 110}, lowerBetter, HistoryOptions{})[10]; p.Verdict != VerdictRegression {
		t.Errorf("a cost +10%%: %+v", p)
	}
	// A series that swings ±8% every run: a change of 8% from the median is within its noise.
	swing := []float64{92, 108, 92, 108, 92, 108, 92, 108, 92, 108, 92, 108}
	for i, p := range judge(swing, higherBetter, HistoryOptions{}) {
		if p.Verdict != "" || (p.Judged && math.Abs(p.Change) < DefaultHistoryMinChange) {
			t.Errorf("swing %d: %+v, want judged by z alone and not flagged", i, p)
		}
	}
	if p := judge([]float64{0, 0, 0, 0, 0, 3}, lowerBetter, HistoryOptions{})[5]; p.Verdict != "" || !p.comparedWithZero {
		t.Errorf("zero baseline: %+v", p)
	}
}

// TestStepMetricsHaveDirections: every figure a history series takes from a step has a
// direction (none neutral), and the headline rate comes first.
func TestStepMetricsHaveDirections(t *testing.T) {
	v := 1.0
	s := &result.Step{Name: "qr100", Status: result.StatusOK, Primary: "query",
		Ops: map[string]*result.Op{"query": {Count: 5, PerSec: 10}, "insert": {Count: 5, PerSec: 10, Response: &result.Latency{P99: 3}},
			"delete": {}},
		Efficiency: &result.Efficiency{CPUpq: &v, CSpq: &v, Rpq: &v, RKBpq: &v, Wpi: &v, WKBpi: &v, Wamp: &v, MaxRSSMB: &v},
		Size:       &result.Size{DBGB1: &v, DBGB2: &v}}
	ms := stepMetrics(s)
	if ms[0].name != "query per_sec" {
		t.Errorf("first metric %s, want query per_sec", ms[0].name)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.name)
		if m.dir == neutral {
			t.Errorf("%s is neutral", m.name)
		}
	}
	for _, want := range []string{"insert rt p99", "cpupq", "wkbpi", "maxrss_mb", "dbgb2"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("metrics %v lack %s", names, want)
		}
	}
	if strings.Contains(strings.Join(names, ","), "delete") {
		t.Errorf("an op that never ran has metrics: %v", names)
	}
}

// TestHistorySources: every figure of the history's tables names where it came from: a value
// its run's run.json, configuration, step and field; a baseline median and its count the
// runs it was taken over; a change and a z the value divided by that baseline. A cell without
// a figure has no source.
func TestHistorySources(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	h, err := NewHistory(historyRuns(18, func(c string, i int) nightly {
		rate := 10000.0
		if i >= 14 && c == "a" {
			rate = 8000
		}
		return nightly{noisy(rng, rate, 2), noisy(rng, 900, 2), noisy(rng, 50, 2)}
	}), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flagged, newest := h.flaggedTable(), h.newestTable()
	want := map[string]string{
		"value":    "results/night14/run.json: config a, step l.i1, ops.insert.per_sec",
		"baseline": "run.json of the 10 runs results/night04 to results/night13: config a, step l.i1, ops.insert.per_sec (their median)",
	}
	want["change"] = want["value"] + " divided by " + want["baseline"]
	found := false
	for i, row := range flagged.Rows {
		if row[0] != "15 night14" || row[3] != "insert per_sec" {
			continue
		}
		found = true
		for col, w := range map[int]string{4: want["value"], 5: want["baseline"], 6: want["baseline"], 7: want["change"], 8: want["change"]} {
			if got := flagged.Src[i][col].String(); got != w {
				t.Errorf("flagged %s: source %q, want %q", flagged.Header[col], got, w)
			}
		}
	}
	if !found {
		t.Fatalf("no flagged row of a's insert rate at night14: %v", flagged.Rows)
	}
	for _, tb := range []*Table{flagged, newest, h.changeTable()} {
		if len(tb.Src) != len(tb.Rows) {
			t.Fatalf("%s: %d rows of sources for %d rows", tb.Title, len(tb.Src), len(tb.Rows))
		}
		for i, row := range tb.Rows {
			for j, cell := range row {
				src := ""
				if j < len(tb.Src[i]) {
					src = tb.Src[i][j].String()
				}
				isFigure := j >= 3 && cell != missing && strings.ContainsAny(cell[:1], "+-0123456789") && tb.Header[j] != "verdict"
				if isFigure != (src != "") || (src != "" && !strings.Contains(src, "run.json")) {
					t.Errorf("%s row %v, %s %q: source %q", tb.Title, row[:4], tb.Header[j], cell, src)
				}
			}
		}
	}
}

// TestHistoryChangePoints: in the history of stepChangeHistory, e-divisive finds one change
// point in each series that changed, at night 14, with the verdict of its direction and the
// means of the levels either side (within their ±2% noise); none in the series that did not
// change. Both of a's are regressions among the newest runs; the terminal names them, the
// page lists them and marks them on the charts.
func TestHistoryChangePoints(t *testing.T) {
	h := stepChangeHistory(t)
	for _, c := range []struct {
		config, metric, verdict string
		before, after           float64
	}{
		{"a", "insert per_sec", VerdictRegression, 10000, 8000},
		{"a", "cpupq", VerdictRegression, 50, 65},
		{"b", "insert per_sec", VerdictImprovement, 10000, 12000},
	} {
		hs := series(t, h, c.config, c.metric)
		if len(hs.Changes) != 1 {
			t.Errorf("%s %s: change points %+v, want one at night %d", c.config, c.metric, hs.Changes, stepChangeNight)
			continue
		}
		ch := hs.Changes[0]
		if ch.Run != stepChangeNight || ch.Verdict != c.verdict || ch.From != 0 || ch.To != len(hs.Points) || ch.P > DefaultChangeSigLevel {
			t.Errorf("%s %s: %+v, want a %s at night %d over all the runs", c.config, c.metric, ch, c.verdict, stepChangeNight)
		}
		if math.Abs(ch.Before-c.before) > 0.02*c.before || math.Abs(ch.After-c.after) > 0.02*c.after {
			t.Errorf("%s %s: means %g before, %g after, want %g and %g within 2%%", c.config, c.metric, ch.Before, ch.After, c.before, c.after)
		}
	}
	for _, m := range []string{"insert p99", "cpupq"} {
		if hs := series(t, h, "b", m); len(hs.Changes) > 0 {
			t.Errorf("b %s has change points though it did not change: %+v", m, hs.Changes)
		}
	}
	var regs []string
	for _, hs := range h.ChangeRegressions() {
		regs = append(regs, hs.Config+" "+hs.Metric)
	}
	if want := []string{"a insert per_sec", "a cpupq"}; !slices.Equal(regs, want) {
		t.Errorf("change-point regressions %v, want %v", regs, want)
	}
	term := strings.Join(h.Terminal(), "\n")
	for _, want := range []string{"CHANGE POINT, REGRESSION: a l.i1 insert per_sec: from run 15 night14", "change point, improvement: b l.i1 insert per_sec: from run 15 night14",
		"change points: 2 regressions, 1 improvements, 2 regressions among the newest 10 runs"} {
		if !strings.Contains(term, want) {
			t.Errorf("terminal lacks %q:\n%s", want, term)
		}
	}
	checkChangePage(t, h, "15 night14")
}

// checkChangePage renders h's page and checks its table of change points (a row of run for
// each change point, its verdict painted) and the charts' change-point rules with their labels.
func checkChangePage(t *testing.T, h *History, run string) {
	t.Helper()
	p := h.Page()
	var table *Table
	for _, b := range p.Sections[0].Blocks {
		if b.Table != nil && b.Table.Title == "Change points" {
			table = b.Table
		}
	}
	if table == nil {
		t.Fatal("no table of change points")
	}
	n := 0
	for _, hs := range h.Series {
		n += len(hs.Changes)
	}
	if len(table.Rows) != n {
		t.Errorf("%d rows of change points, %d change points", len(table.Rows), n)
	}
	for i, row := range table.Rows {
		if row[0] != run {
			t.Errorf("change point row %v, want run %s", row, run)
		}
		if cls := table.Class[i][len(row)-1]; (row[len(row)-1] == VerdictRegression) != (cls == ClassBad) {
			t.Errorf("row %v: class %q", row, cls)
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"change point, regression", "change point, improvement", "level mean", "run " + run + ": "} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if md := MarkdownPage(p); !strings.Contains(md, "Change points") || !strings.Contains(md, "e-divisive") {
		t.Error("report.md lacks the change points")
	}
}

// TestHistoryChangeRecovered: a's rate drops 20% at night 10 and comes back at night 20 of
// 30: two change points, a regression then an improvement; the newest change point is the
// improvement, so no change-point regression is among the newest runs. In a history of 22
// nights without the recovery, the regression at night 10 is older than the newest 10 runs:
// not judged.
func TestHistoryChangeRecovered(t *testing.T) {
	figs := func(back int) func(string, int) nightly {
		rng := rand.New(rand.NewPCG(5, 6))
		return func(c string, i int) nightly {
			rate := 10000.0
			if c == "a" && i >= 10 && i < back {
				rate = 8000
			}
			return nightly{noisy(rng, rate, 2), noisy(rng, 900, 2), noisy(rng, 50, 2)}
		}
	}
	h, err := NewHistory(historyRuns(30, figs(20)), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := series(t, h, "a", "insert per_sec")
	var got []string
	for _, c := range hs.Changes {
		got = append(got, fmt.Sprintf("%d %s", c.Run, c.Verdict))
	}
	if want := []string{"10 regression", "20 improvement"}; !slices.Equal(got, want) {
		t.Fatalf("change points %v, want %v", got, want)
	}
	if c0, c1 := hs.Changes[0], hs.Changes[1]; c0.To != 20 || c1.From != 10 || c0.After != c1.Before {
		t.Errorf("the level between the change points: %+v, %+v", c0, c1)
	}
	if regs := h.ChangeRegressions(); len(regs) != 0 {
		t.Errorf("change-point regressions after a recovery: %v", regs)
	}
	// The chart draws each of the three levels once: 10000, 8000, 10000.
	var levels []float64
	for _, cs := range h.chart(hs, 0).Series {
		if cs.Level {
			for i, y := range cs.Y {
				if !math.IsNaN(y) && (i == 0 || math.IsNaN(cs.Y[i-1])) {
					levels = append(levels, math.Round(y/1000)*1000)
				}
			}
		}
	}
	if want := []float64{10000, 8000, 10000}; !slices.Equal(levels, want) {
		t.Errorf("the chart's levels %v, want %v", levels, want)
	}
	if h, err = NewHistory(historyRuns(22, figs(99)), HistoryOptions{}); err != nil {
		t.Fatal(err)
	}
	if hs := series(t, h, "a", "insert per_sec"); len(hs.Changes) != 1 || hs.Changes[0].Run != 10 || hs.Changes[0].Verdict != VerdictRegression {
		t.Fatalf("change points %+v, want a regression at night 10", hs.Changes)
	}
	if regs := h.ChangeRegressions(); len(regs) != 0 {
		t.Errorf("a regression 12 runs old is judged: %v", regs)
	}
}
