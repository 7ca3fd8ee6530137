package report

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// emittedTables are every table the summaries and the pages of the fixtures show: each
// workload's summary and page, a page of two runs (the hosts and the fingerprint) and the
// ratio of two runs.
func emittedTables(t *testing.T) []Table {
	t.Helper()
	var out []Table
	add := func(p *Page) {
		for _, s := range p.Sections {
			for _, b := range s.Blocks {
				if b.Table != nil {
					out = append(out, *b.Table)
				}
			}
		}
	}
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		in := loadFixture(t, name)
		out = append(out, Build(in.Run, testLayouts()).Tables...)
		p, err := NewPage([]Input{in}, Options{Layouts: testLayouts()})
		if err != nil {
			t.Fatal(err)
		}
		add(p)
	}
	two := []Input{loadFixture(t, "insert"), loadFixture(t, "resources")}
	p, err := NewPage(two, Options{Ratio: true, Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	add(p)
	if p, err = NewPage([]Input{withVerdicts(t)}, Options{Layouts: testLayouts()}); err != nil { // the verdicts' tables
		t.Fatal(err)
	}
	add(p)
	return out
}

// TestEveryMetricHasADirection walks every column of every table the summaries and the
// report emit and fails on one whose metric has no direction: a metric cannot be added
// without saying whether higher or lower is better, or that it is never coloured.
func TestEveryMetricHasADirection(t *testing.T) {
	seen := 0
	for _, tb := range emittedTables(t) {
		for j, h := range tb.Header {
			seen++
			if _, ok := columnDirection(tb, j); !ok {
				t.Errorf("table %q: column %q has no direction: add its metric to metricDirection", tb.Title, h)
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d columns walked: the fixtures lost their tables", seen)
	}
}

// TestRunJSONMetricsHaveADirection checks every figure of a step's efficiency, size,
// resources and latency in run.json by its key.
func TestRunJSONMetricsHaveADirection(t *testing.T) {
	for _, v := range []any{result.Efficiency{}, result.Size{}, result.Resources{}, result.Latency{}, result.Op{}} {
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			key, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if k := rt.Field(i).Type.Kind(); k == reflect.Struct || k == reflect.Pointer && rt.Field(i).Type.Elem().Kind() == reflect.Struct ||
				k == reflect.Bool || k == reflect.Slice {
				continue // nested (latency_us), flags and buckets: not one metric
			}
			if _, ok := metricDirection(key); !ok {
				t.Errorf("%s.%s (%q) has no direction", rt.Name(), rt.Field(i).Name, key)
			}
		}
	}
}

// TestDirections checks the direction of the metrics the comparisons turn on.
func TestDirections(t *testing.T) {
	for d, names := range map[direction][]string{
		higherBetter: {"ips", "qps", "per_sec", "ops/s", "links/s", "rate_p50", "rate_p99", "achieved ins/s"},
		lowerBetter: {"cpupq", "client_cpupq", "db_cpupq", "cspq", "rpq", "rkbpq", "wpi", "wkbpi", "prkbpq", "pwkbpi",
			"wamp", "dbgb1", "dbgb2", "p50", "p99", "max", "probe", "r_await", "l0_files", "history_list_length"},
		neutral: {"count", "rps", "wmbps", "cpups", "client%", "%util", "target ins/s"},
	} {
		for _, n := range names {
			if got, ok := metricDirection(n); !ok || got != d {
				t.Errorf("%s: %v (known %v), want %v", n, got, ok, d)
			}
		}
	}
	if _, ok := metricDirection("no such metric"); ok {
		t.Error("an unknown metric has a direction")
	}
	cols := Table{Header: []string{"config", "l.i1 ips", "pebble q p99", "run.2 GB", "rt p99", "ADD_LINK ops/s", "<=1ms", "l.i1"}}
	want := []direction{neutral, higherBetter, lowerBetter, lowerBetter, lowerBetter, higherBetter, neutral}
	for j, w := range want {
		if got, ok := columnDirection(cols, j); !ok || got != w {
			t.Errorf("column %q: %v (known %v), want %v", cols.Header[j], got, ok, w)
		}
	}
	if _, ok := columnDirection(cols, len(want)); ok {
		t.Error("a bare step name has a direction without the table's metric")
	}
	cols.Metric = "probe"
	if got, _ := columnDirection(cols, len(want)); got != lowerBetter {
		t.Errorf("a step column of the probe table: %v, want lower is better", got)
	}
}

// TestRelClassBand checks the colour rule at the band's edges, for both directions: 0.95
// and 1.05 are within the band; just outside, a rate is better above and worse below, a cost
// the other way round; a neutral metric is never coloured.
func TestRelClassBand(t *testing.T) {
	for _, c := range []struct {
		ratio          float64
		higher, lower  string
		neutralColored bool
	}{
		{1.05, "", "", false}, {1.0501, ClassBetter, ClassWorse, false},
		{0.95, "", "", false}, {0.9499, ClassWorse, ClassBetter, false},
		{1, "", "", false}, {2, ClassBetter, ClassWorse, false}, {0.5, ClassWorse, ClassBetter, false},
	} {
		if got := relClass(c.ratio, higherBetter); got != c.higher {
			t.Errorf("rate at %v: %q, want %q", c.ratio, got, c.higher)
		}
		if got := relClass(c.ratio, lowerBetter); got != c.lower {
			t.Errorf("cost at %v: %q, want %q", c.ratio, got, c.lower)
		}
		if got := relClass(c.ratio, neutral); got != "" {
			t.Errorf("neutral at %v: %q", c.ratio, got)
		}
	}
}

// TestRangeClassesOfACost checks that the best quarter of a cost column is its lowest.
func TestRangeClassesOfACost(t *testing.T) {
	got := rangeClasses([]float64{10, 17, 18, 40}, []bool{true, true, true, true}, lowerBetter)
	if want := []string{ClassGood, ClassGood, "", ClassBad}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("cost column: %v, want %v", got, want)
	}
	if got := rangeClasses([]float64{10, 40}, []bool{true, true}, neutral); got[0]+got[1] != "" {
		t.Errorf("neutral column coloured: %v", got)
	}
}

// TestCostIsWorseAbove checks the Insert Benchmark's efficiency relative to the base in the
// fixture: sqlite-full spends 2.21x sqlite-normal's CPU per insert in l.i0 (worse, not blue as
// "more"), pebble 0.59x (better), and inserts at 0.27x its rate (worse); report.md says so.
func TestCostIsWorseAbove(t *testing.T) {
	p, err := NewPage([]Input{loadFixture(t, "insert")}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	title := "l.i0: efficiency relative to sqlite-normal"
	for _, c := range []struct{ config, col, text, class string }{
		{"sqlite-full", "cpupq", "2.21", ClassWorse},
		{"pebble", "cpupq", "0.59", ClassBetter},
		{"sqlite-full", "ips", "0.27", ClassWorse},
		{"pebble", "ips", "3.61", ClassBetter},
	} {
		if text, class := cell(t, p, title, c.config, c.col); text != c.text || class != c.class {
			t.Errorf("%s %s: %q {%s}, want %q {%s}", c.config, c.col, text, class, c.text, c.class)
		}
	}
	md := MarkdownPage(p)
	for _, want := range []string{"| sqlite-full | 0.27 worse | 2.21 worse | 9.14 worse |", "| pebble | 3.61 better | 0.59 better | 0.29 better |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestRatioIsColouredByDirection checks --ratio's cells: every column is a rate, so a
// percentage above 105 is better, below 95 worse, within the band none, and report.md says it.
func TestRatioIsColouredByDirection(t *testing.T) {
	seen := map[string]int{}
	md := ""
	for _, pair := range [][2]string{{"insert", "resources"}, {"resources", "insert"}} {
		p, err := NewPage([]Input{loadFixture(t, pair[0]), loadFixture(t, pair[1])}, Options{Ratio: true, Layouts: testLayouts()})
		if err != nil {
			t.Fatal(err)
		}
		tb := p.Sections[1].Blocks[1].Table
		if tb == nil || !strings.Contains(tb.Title, " as % of ") {
			t.Fatalf("first section's table: %+v", tb)
		}
		for i, row := range tb.Rows {
			for j, c := range row[1:] {
				pct, ok := strings.CutSuffix(c, "%")
				v, err := strconv.ParseFloat(pct, 64)
				if !ok || err != nil {
					continue
				}
				want := ""
				switch {
				case v > 105:
					want = ClassBetter
				case v < 95:
					want = ClassWorse
				}
				if got := tb.Class[i][j+1]; got != want {
					t.Errorf("%s %s: %s {%s}, want {%s}", row[0], tb.Header[j+1], c, got, want)
				}
				seen[want]++
			}
		}
		md += MarkdownPage(p)
	}
	if seen[ClassBetter] == 0 || seen[ClassWorse] == 0 {
		t.Errorf("the fixtures give no better and worse cell to check: %v", seen)
	}
	if !strings.Contains(md, "% better |") || !strings.Contains(md, "% worse |") {
		t.Error("report.md does not say better and worse in the ratio table")
	}
}
