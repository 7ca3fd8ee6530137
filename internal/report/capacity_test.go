package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// capacityFixture is fixture() with a capacity search on a (best 800 after a failed 1600 and
// 1200, l0_files judged) and none on b.
func capacityFixture() *result.Run {
	r := fixture()
	lvl := func(step string, rate, achieved, p99 float64, verdict, reason string) result.CapacityLevel {
		return result.CapacityLevel{Step: step, Rate: rate, Achieved: achieved, Units: "rows/s per client",
			P99Us: f64(p99), P99LimitUs: f64(1e6), Debt: map[string]float64{"l0_files": 4},
			DebtUnmeasured: []string{"dead_tuples"}, Verdict: verdict, Reason: reason}
	}
	levels := []result.CapacityLevel{
		lvl("cap.1", 400, 400, 2100, result.VerdictPass, ""),
		lvl("cap.2", 800, 795, 8000, result.VerdictPass, ""),
		lvl("cap.3", 1600, 1010, 4.2e6, result.VerdictFail, "rate: achieved 1010/s, more than 10% below 1600/s; p99: 4.2s above 1s"),
		lvl("cap.4", 1200, 1150, 1.5e6, result.VerdictFail, "p99: 1.5s above 1s"),
	}
	for _, l := range levels {
		r.Configs[0].Steps = append(r.Configs[0].Steps, result.Step{Name: l.Step, Status: result.StatusOK, Capacity: &l})
	}
	r.Configs[0].Capacity = result.CapacityOf(r.Configs[0].Steps)
	return r
}

func TestCapacityTables(t *testing.T) {
	r := capacityFixture()
	if b := r.Configs[0].Capacity.BestRate; b == nil || *b != 800 {
		t.Fatalf("best rate %v, want 800", b)
	}
	s := Build(r, testLayouts())
	want := []string{"a", "800", "rows/s per client", "4", "400 pass, 800 pass, 1600 fail, 1200 fail"}
	if got := row(t, s, capacityTitle, "a"); !slices.Equal(got, want) {
		t.Errorf("best row\n got %q\nwant %q", got, want)
	}
	if tb := tableByTitle(s.Tables, capacityTitle); tb == nil || len(tb.Rows) != 1 {
		t.Fatalf("capacity table %+v: want a only (b did not search)", tb)
	}
	want = []string{"a", "cap.3", "1600", "1010", "4.2s", "1s", "l0_files=4 dead_tuples=-", "fail",
		"rate: achieved 1010/s, more than 10% below 1600/s; p99: 4.2s above 1s"}
	if got := row(t, s, capacityLevelsTitle, "a", "cap.3"); !slices.Equal(got, want) {
		t.Errorf("level row\n got %q\nwant %q", got, want)
	}
	lt := tableByTitle(s.Tables, capacityLevelsTitle)
	if lt.Class[2][7] != ClassBad || lt.Class[1][7] != "" {
		t.Errorf("verdict classes %q, %q: a failed level's verdict is bad", lt.Class[1], lt.Class[2])
	}
	if !strings.Contains(strings.Join(s.Legend, "\n"), "Capacity (run --capacity)") {
		t.Error("no capacity legend")
	}
	// A run without a search has neither table nor legend.
	s = Build(fixture(), testLayouts())
	if tableByTitle(s.Tables, capacityTitle) != nil || strings.Contains(strings.Join(s.Legend, "\n"), "Capacity (run") {
		t.Error("capacity table or legend in a run without a search")
	}
}

// A configuration that never passed a level has no best rate: "-", never 0.
func TestCapacityNoBestRate(t *testing.T) {
	r := fixture()
	l := result.CapacityLevel{Step: "cap.1", Rate: 100, Achieved: 20, Units: "rows/s per client", Verdict: result.VerdictFail, Reason: "rate"}
	r.Configs[1].Steps = append(r.Configs[1].Steps, result.Step{Name: "cap.1", Status: result.StatusOK, Capacity: &l})
	r.Configs[1].Capacity = result.CapacityOf(r.Configs[1].Steps)
	want := []string{"b", missing, "rows/s per client", "1", "100 fail"}
	if got := row(t, Build(r, testLayouts()), capacityTitle, "b"); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := row(t, Build(r, testLayouts()), capacityLevelsTitle, "b", "cap.1"); got[4] != missing || got[5] != missing || got[6] != missing {
		t.Errorf("unmeasured p99, limit and debt shown as %q", got[4:7])
	}
}

// The report has the capacity section: the tables, and the chart with a line per searching
// configuration, its passes as circles and failures as crosses.
func TestCapacityReport(t *testing.T) {
	p, err := NewPage([]Input{{Dir: "r", Run: capacityFixture()}}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, p); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	i := strings.Index(html, `id="chart-capacity-levels"`)
	if i < 0 {
		t.Fatal("no capacity chart")
	}
	svg := html[i : i+strings.Index(html[i:], "</svg>")]
	for _, want := range []string{"achieved against target", "pass", "fail", "achieved = target"} {
		if !strings.Contains(svg, want) {
			t.Errorf("capacity chart lacks %q", want)
		}
	}
	md := MarkdownPage(p)
	for _, want := range []string{"## Capacity", "### " + capacityTitle, "| a | 800 | rows/s per client | 4 |", "| a | cap.4 | 1200 | 1150 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// With repeats the search shows the median of the repeats' best rates and every repeat's levels.
func TestCapacityRepeats(t *testing.T) {
	rep := func(i int, best float64) result.Config {
		l := result.CapacityLevel{Step: "cap.1", Rate: best, Achieved: best, Units: "rows/s per client", Verdict: result.VerdictPass}
		return result.Config{Name: fmt.Sprintf("a#%d", i), Repeat: &result.Repeat{Config: "a", Index: i, Count: 3},
			Capacity: &result.Capacity{Units: l.Units, BestRate: &l.Rate, Levels: []result.CapacityLevel{l}}}
	}
	c := collapseCapacity([]result.Config{rep(1, 400), rep(2, 800), rep(3, 500)})
	if c == nil || c.BestRate == nil || *c.BestRate != 500 || len(c.Levels) != 3 || c.Levels[1].Step != "#2 cap.1" {
		t.Errorf("collapsed %+v", c)
	}
	if collapseCapacity([]result.Config{{Name: "a#1"}}) != nil {
		t.Error("a search for repeats that did not search")
	}
}

// A LinkBench capacity level's rate is requests a second, the Insert Benchmark's rows.
func TestStepUnit(t *testing.T) {
	for _, tt := range []struct {
		s    result.Step
		want string
	}{
		{result.Step{Name: "cap.1", Primary: "requests"}, "qps"},
		{result.Step{Name: "cap.1", Primary: "insert"}, "ips"},
		{result.Step{Name: "run.2", Primary: "requests"}, "qps"},
		{result.Step{Name: "qr100", Primary: "query"}, "qps"},
	} {
		if got := stepUnit(&tt.s); got != tt.want {
			t.Errorf("%s (%s): %s, want %s", tt.s.Name, tt.s.Primary, got, tt.want)
		}
	}
}
