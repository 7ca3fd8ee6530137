package report

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files of the report tests")

// loadFixture reads a run directory of testdata.
func loadFixture(t *testing.T, name string) Input {
	t.Helper()
	dir := filepath.Join("testdata", name)
	r, err := result.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Dir: dir, Run: r}
}

// dump renders the page's model as text: every table with each cell's colour class in braces,
// and every chart with its kind and the points of each series. It is what the golden files hold.
func dump(p *Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\nconfigs: %s\nbase: %s\n", p.Title, strings.Join(p.Configs, ", "), p.Base)
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "\n# %s (%s)\n", s.Title, s.ID)
		for _, bl := range s.Blocks {
			if bl.Text != "" {
				fmt.Fprintf(&b, "text: %s\n", bl.Text)
			}
			if t := bl.Table; t != nil {
				fmt.Fprintf(&b, "\n## %s\n%s\n", t.Title, strings.Join(t.Header, " | "))
				for i, row := range t.Rows {
					cells := make([]string, len(row))
					for j, c := range row {
						cells[j] = c
						if i < len(t.Class) && t.Class[i][j] != "" {
							cells[j] += "{" + t.Class[i][j] + "}"
						}
					}
					b.WriteString(strings.Join(cells, " | ") + "\n")
				}
			}
			for _, c := range bl.Charts {
				if c.Bars != nil {
					vals := make([]string, len(c.Bars.Values))
					for i, v := range c.Bars.Values {
						vals[i] = fmt.Sprintf("%s=%s/%d", c.Bars.Labels[i], numfmt.Num(v), c.Bars.Colors[i])
					}
					fmt.Fprintf(&b, "chart %s: bars %q: %s\n", c.ID, c.Options.Title, strings.Join(vals, " "))
					continue
				}
				if c.Box != nil {
					fmt.Fprintf(&b, "chart %s: box %q: %s\n", c.ID, c.Options.Title, dumpBox(c.Box))
					continue
				}
				var ss []string
				for _, s := range c.Series {
					gaps := 0
					for _, y := range s.Y {
						if math.IsNaN(y) {
							gaps++
						}
					}
					ss = append(ss, fmt.Sprintf("%s/%d: %d points, %d gaps", s.Name, s.Color, len(s.X), gaps))
				}
				fmt.Fprintf(&b, "chart %s: lines %q: %s\n", c.ID, c.Options.Title, strings.Join(ss, "; "))
			}
		}
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got %q\nwant %q\n(run go test -run Golden -update and review the diff)", path, i+1, g, w)
			}
		}
	}
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			p, err := NewPage([]Input{loadFixture(t, name)}, Options{Layouts: testLayouts()})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".golden.txt", dump(p))
			golden(t, name+".golden.md", MarkdownPage(p))
		})
	}
}

// cell returns the text and class of the cell of table title in the row whose first cell is
// key, in the column headed col.
func cell(t *testing.T, p *Page, title, key, col string) (string, string) {
	t.Helper()
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			tb := b.Table
			if tb == nil || tb.Title != title {
				continue
			}
			j := -1
			for k, h := range tb.Header {
				if h == col {
					j = k
				}
			}
			if j < 0 {
				t.Fatalf("table %q has no column %q: %v", title, col, tb.Header)
			}
			for i, row := range tb.Rows {
				if row[0] == key {
					class := ""
					if i < len(tb.Class) {
						class = tb.Class[i][j]
					}
					return row[j], class
				}
			}
			t.Fatalf("table %q has no row %q", title, key)
		}
	}
	t.Fatalf("no table %q", title)
	return "", ""
}

// TestInsertShowsWhatIsWrong checks the fixture's edits on their own, beside the golden file:
// a missed SLA, a failed step, a step never run and a metric never measured are each shown as
// such, never as a number.
func TestInsertShowsWhatIsWrong(t *testing.T) {
	p, err := NewPage([]Input{loadFixture(t, "insert")}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ table, row, col, text, class string }{
		{"Throughput", "sqlite-full", "qp1000 qps", " (SLA missed)", ClassMissed},
		{"Throughput", "pebble", "l.i2 ips", "failed", ClassFailed},
		{"Throughput", "pebble", "qr100 qps", "-", ClassMissing},
		{"Throughput relative to sqlite-normal", "pebble", "l.i2 ips", "failed", ClassFailed},
		{"Throughput relative to sqlite-normal", "sqlite-normal", "l.i0 ips", "1.00", ""},
		{"SLA: background inserts/s achieved of the target", "sqlite-full", "qp1000", "1603 of 2000 (80.2%) missed", ClassBad},
		{"SLA: background inserts/s achieved of the target", "pebble", "qp1000", "-", ClassMissing},
		{"Efficiency: l.i1", "sqlite-normal", "wkbpi", "-", ""},
		{"l.i1: efficiency relative to sqlite-normal", "pebble", "wkbpi", "-", ClassMissing},
		{"Steps that did not finish", "pebble", "status", "failed", ClassFailed},
	} {
		text, class := cell(t, p, c.table, c.row, c.col)
		if !strings.Contains(text, c.text) || class != c.class {
			t.Errorf("%s, %s, %s: %q {%s}, want %q {%s}", c.table, c.row, c.col, text, class, c.text, c.class)
		}
	}
	if text, _ := cell(t, p, "Steps that did not finish", "pebble", "error"); !strings.Contains(text, "verification failed") {
		t.Errorf("the failed step's error is not shown: %q", text)
	}
	// The bar chart of a failed step has no bar for it (NaN), never a zero.
	found := false
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			for _, c := range b.Charts {
				if c.ID == "l_i2-rate" {
					found = true
					if c.Bars.Labels[2] != "pebble" || !math.IsNaN(c.Bars.Values[2]) {
						t.Errorf("failed step drawn as a bar: %v %v", c.Bars.Labels, c.Bars.Values)
					}
				}
			}
		}
	}
	if !found {
		t.Error("no bar chart of l.i2")
	}
}

func TestRangeClasses(t *testing.T) {
	ok := []bool{true, true, true, true, false}
	for _, c := range []struct {
		vals []float64
		want []string
	}{
		// Top quarter of [10, 40] is >= 32.5, bottom quarter <= 17.5; the value without ok is
		// no part of the range.
		{[]float64{10, 17, 18, 40, 99}, []string{ClassBad, ClassBad, "", ClassGood, ""}},
		// min within 80% of max: no red, still green on top.
		{[]float64{85, 90, 95, 100, 0}, []string{"", "", "", ClassGood, ""}},
		// min just under 80% of max: red again.
		{[]float64{79, 90, 95, 100, 0}, []string{ClassBad, "", ClassGood, ClassGood, ""}},
		// all equal: nothing to rank.
		{[]float64{5, 5, 5, 5, 0}, []string{"", "", "", "", ""}},
	} {
		got := rangeClasses(c.vals, ok, higherBetter)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("rangeClasses(%v) = %v, want %v", c.vals, got, c.want)
		}
	}
	if got := rangeClasses([]float64{1, 2}, []bool{true, false}, higherBetter); got[0] != "" {
		t.Errorf("a single value is coloured: %v", got)
	}
}

func TestRelCell(t *testing.T) {
	for _, c := range []struct {
		v, base     float64
		d           direction
		text, class string
	}{
		{106, 100, higherBetter, "1.06", ClassBetter}, {94, 100, higherBetter, "0.94", ClassWorse},
		{106, 100, lowerBetter, "1.06", ClassWorse}, {94, 100, lowerBetter, "0.94", ClassBetter},
		{200, 100, neutral, "2.00", ""}, {1, 0, higherBetter, "-", ClassMissing},
	} {
		if text, class := relCell(c.v, c.base, true, true, c.d); text != c.text || class != c.class {
			t.Errorf("relCell(%v, %v, %v) = %q {%s}, want %q {%s}", c.v, c.base, c.d, text, class, c.text, c.class)
		}
	}
	if text, _ := relCell(1, 1, true, false, higherBetter); text != missing {
		t.Errorf("no base: %q", text)
	}
}

// TestPerSecondSeries checks that each configuration's per-second line has a point per
// interval the run recorded, and that the latency of a second without operations is a gap.
func TestPerSecondSeries(t *testing.T) {
	in := loadFixture(t, "insert")
	r := in.Run
	series := stepSeries(r, "qr100", "query", ivRate)
	if len(series) != 2 { // pebble never ran qr100
		t.Fatalf("%d series, want the two sqlite configurations", len(series))
	}
	for _, s := range series {
		c := r.Configs[s.Color]
		if want := findStep(c, "qr100").Intervals.Len(); len(s.X) != want || want == 0 {
			t.Errorf("%s: %d points, want %d intervals", s.Name, len(s.X), want)
		}
		for i, y := range s.Y {
			if !(y > 0) {
				t.Errorf("%s: second %d has rate %v", s.Name, i+1, y)
			}
		}
	}
	iv := result.NewSeries(result.Interval{Ops: map[string]result.IntervalOp{"insert": {Count: 0}}})
	r2 := &result.Run{Configs: []result.Config{{Name: "a", Steps: []result.Step{{Name: "s", Intervals: iv}}}}}
	lat := stepSeries(r2, "s", "insert", ivLatency(func(o result.IntervalOp) float64 { return o.Max }))
	if !math.IsNaN(lat[0].Y[0]) {
		t.Errorf("latency of a second without operations is %v, want a gap", lat[0].Y[0])
	}
}

func TestCombineRuns(t *testing.T) {
	a, b := loadFixture(t, "linkbench"), loadFixture(t, "linkbench")
	b.Dir = filepath.Join(t.TempDir(), "cached")
	p, err := NewPage([]Input{a, b}, Options{Base: "cached/pebble", Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	want := "linkbench/sqlite, linkbench/pebble, cached/sqlite, cached/pebble"
	if got := strings.Join(p.Configs, ", "); got != want || p.Base != "cached/pebble" {
		t.Errorf("configs %s, base %s; want %s, cached/pebble", got, p.Base, want)
	}
	// Two directories of the same name are told apart by their position.
	b.Dir = "other/linkbench"
	if p, _ := NewPage([]Input{a, b}, Options{Layouts: testLayouts()}); p.Configs[2] != "run2/sqlite" {
		t.Errorf("same-named runs labelled %v", p.Configs)
	}
	for _, c := range []struct {
		runs []Input
		o    Options
		want string
	}{
		{nil, Options{}, "no run"},
		{[]Input{a, loadFixture(t, "iibench")}, Options{}, "different workloads"},
		{[]Input{a}, Options{Base: "nosuch"}, "--base nosuch: no such configuration"},
		{[]Input{a, {Dir: "x", Run: b.Run}}, Options{Base: "sqlite"}, "in several runs"},
		{[]Input{a}, Options{Ratio: true}, "--ratio compares two runs"},
	} {
		if _, err := NewPage(c.runs, withLayouts(c.o)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPage(%d runs, %+v): %v, want %q", len(c.runs), c.o, err, c.want)
		}
	}
}

func TestRatio(t *testing.T) {
	a := loadFixture(t, "iibench")
	// b: the same run with every rate halved and one configuration missing.
	r := *a.Run
	r.Configs = nil
	for _, c := range a.Run.Configs[:1] {
		steps := make([]result.Step, len(c.Steps))
		for i, s := range c.Steps {
			s.Ops = map[string]*result.Op{}
			for k, o := range c.Steps[i].Ops {
				half := *o
				half.PerSec /= 2
				s.Ops[k] = &half
			}
			steps[i] = s
		}
		c.Steps = steps
		r.Configs = append(r.Configs, c)
	}
	b := Input{Dir: "iobound", Run: &r}
	p, err := NewPage([]Input{a, b}, Options{Ratio: true, Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sections[1].ID != "ratio" {
		t.Fatalf("section after the top summary %s, want the ratio", p.Sections[1].ID)
	}
	title := "iobound as % of iibench"
	for col, want := range map[string]string{"run ips": "50%", "run qps": "50%"} {
		if got, _ := cell(t, p, title, "sqlite", col); got != want {
			t.Errorf("sqlite %s: %s, want %s", col, got, want)
		}
		if got, _ := cell(t, p, title, "pebble", col); got != missing {
			t.Errorf("pebble (not in the second run) %s: %s, want -", col, got)
		}
	}
}

func TestMetadataRedactsCredentials(t *testing.T) {
	in := loadFixture(t, "iibench")
	r := *in.Run
	r.Command = []string{"enginebench", "run", "--dsn", "postgres://bench:hunter2@127.0.0.1/db", "--spec=x.yaml"}
	r.Configs = []result.Config{{Name: "pg", Engine: "postgres", Settings: map[string]string{
		"password": "hunter2", "primary_conninfo": "host=db user=rep password=hunter2", "shared_buffers": "1GB"},
		Status: result.StatusFailed, Error: "connect postgres://bench:hunter2@db/x: refused",
		Steps: []result.Step{{Name: "run", Status: result.StatusFailed, Error: "lost bench:hunter2@tcp(db:3306)/x"}}}}
	p, html := pageHTML(t, Input{Dir: "x", Run: &r})
	for name, out := range map[string]string{"markdown": MarkdownPage(p), "html": html.String()} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("%s holds the password", name)
		}
		if !strings.Contains(out, "1GB") || !strings.Contains(out, "--spec=x.yaml") {
			t.Errorf("%s lost settings or the command line", name)
		}
	}
}

// TestLinkBenchRequestsLine checks that the requests/s line is the requests total of each
// second (not the total plus each operation again), and that the last moment of an interval,
// when the requesters stop, is not drawn as a dip.
func TestLinkBenchRequestsLine(t *testing.T) {
	r := loadFixture(t, "linkbench").Run
	ivs := intervalNames(r)
	series := spanSeries(r, ivs, oneOp("requests"))
	if len(series) != len(r.Configs) {
		t.Fatalf("%d lines for %d configurations", len(series), len(r.Configs))
	}
	for _, s := range series {
		c := r.Configs[s.Color]
		o, _ := findStep(c, ivs[0]).Intervals.Op(0, "requests")
		first := o.PerSec
		if first <= 0 || s.Y[0] != first {
			t.Errorf("%s: first point %v, want the requests total of that second %v", s.Name, s.Y[0], first)
		}
		low := math.Inf(1)
		for _, y := range s.Y {
			low = math.Min(low, y)
		}
		if low < first/10 {
			t.Errorf("%s: a dip to %v requests/s against %v in the first second", s.Name, low, first)
		}
	}
}

// markClientBound sets the run's client CPU limit and marks step of config as client-bound.
func markClientBound(t *testing.T, r *result.Run, limit float64, config, step string) {
	t.Helper()
	r.ClientCPULimitPct = limit
	for i := range r.Configs {
		if r.Configs[i].Name == config {
			s := findStep(r.Configs[i], step)
			if s == nil {
				t.Fatalf("%s has no step %s", config, step)
			}
			pct := limit + 10
			s.ClientBound = true
			if s.Resources == nil {
				s.Resources = &result.Resources{}
			}
			s.Resources.ClientCPUPct = &pct
			return
		}
	}
	t.Fatalf("no configuration %s", config)
}

// TestReportMarksClientBound checks that the report marks a client-bound step's rate in the
// tables that show it (keeping the cell's colour: the mark is in words), shows the client's
// share among the resources, and explains the mark in the legend of the HTML page.
func TestReportMarksClientBound(t *testing.T) {
	plain, err := NewPage([]Input{loadFixture(t, "insert")}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	in := loadFixture(t, "insert")
	markClientBound(t, in.Run, 30, "sqlite-normal", "l.i0")
	markClientBound(t, in.Run, 30, "sqlite-full", "qp1000")
	p, err := NewPage([]Input{in}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ table, row, col, mark string }{
		{"Throughput", "sqlite-normal", "l.i0 ips", " (client-bound)"},
		{"Throughput", "sqlite-full", "qp1000 qps", " (SLA missed, client-bound)"},
		{"Efficiency: l.i0", "sqlite-normal", "ips", " (client-bound)"},
		{"l.i0: resources per second", "sqlite-normal", "ips", " (client-bound)"},
		{"Throughput", "pebble", "l.i0 ips", ""},
		{"Throughput", "sqlite-normal", "l.i1 ips", ""},
	} {
		was, wasClass := cell(t, plain, c.table, c.row, c.col)
		text, class := cell(t, p, c.table, c.row, c.col)
		was = strings.TrimSuffix(was, " (SLA missed)")
		if text != was+c.mark || class != wasClass {
			t.Errorf("%s, %s, %s: %q {%s}, want %q {%s}", c.table, c.row, c.col, text, class, was+c.mark, wasClass)
		}
	}
	if text, _ := cell(t, p, "l.i0: resources per second", "sqlite-normal", "client%"); text != "40" {
		t.Errorf("client%% of sqlite-normal's l.i0: %q, want 40", text)
	}
	if text, _ := cell(t, p, "l.i0: resources per second", "pebble", "client%"); text != missing {
		t.Errorf("client%% not measured: %q, want -", text)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	rate, _ := cell(t, p, "Throughput", "sqlite-normal", "l.i0 ips")
	for _, want := range []string{">" + rate + "</td>",
		"<li>client-bound: the client used more than 30% of the CPUs (client%; --client-cpu-limit) or more than 85% of the CPUs it may run on during the step: the client may have limited the engine"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if md := MarkdownPage(p); !strings.Contains(md, "| "+rate+" |") || !strings.Contains(md, "more than 30% of the CPUs") {
		t.Errorf("report.md lacks the mark or its legend")
	}
}

// Runs combined in one report with different limits have no one limit: the legend explains the
// mark without a number; with the same limit it names it.
func TestCombinedRunsClientLegend(t *testing.T) {
	a, b := loadFixture(t, "insert"), loadFixture(t, "insert")
	b.Dir = filepath.Join(t.TempDir(), "other")
	markClientBound(t, a.Run, 30, "sqlite-normal", "l.i0")
	b.Run.ClientCPULimitPct = 60
	p, err := NewPage([]Input{a, b}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	legend := strings.Join(p.Legend, "\n")
	if !strings.Contains(legend, "client-bound: the client used more than the run's limit (client_cpu_limit_pct in run.json)") {
		t.Errorf("legend of runs with different limits:\n%s", legend)
	}
	b.Run.ClientCPULimitPct = 30
	if p, err = NewPage([]Input{a, b}, Options{Layouts: testLayouts()}); err != nil || !strings.Contains(strings.Join(p.Legend, "\n"), "more than 30% of the CPUs") {
		t.Errorf("legend of runs with one limit: %v\n%s", err, strings.Join(p.Legend, "\n"))
	}
}
