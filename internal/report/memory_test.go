package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

func i64(v int64) *int64 { return &v }

// cappedFixture is fixture() with a third, uncapped configuration c, and a and b capped: a an
// embedded engine (scope process, every figure measured), b a server whose kernel keeps no peak
// and whose group had processes OOM-killed.
func cappedFixture() *result.Run {
	r := fixture()
	c := r.Configs[0]
	c.Name = "c"
	r.Configs = append(r.Configs, c)
	r.Configs[0].Memory = &result.Memory{LimitBytes: 2 << 30, Cgroup: "v1", Scope: "process",
		PeakBytes: i64(2<<30 - 5<<20), UsageBytes: 1900 << 20, CacheBytes: 1500 << 20, HarnessPeakBytes: i64(41 << 20)}
	r.Configs[1].Memory = &result.Memory{LimitBytes: 512 << 20, Cgroup: "v2", Scope: "server",
		UsageBytes: 300 << 20, CacheBytes: 0, OOMKills: 2}
	return r
}

func tableByTitle(tables []Table, title string) *Table {
	for i := range tables {
		if tables[i].Title == title {
			return &tables[i]
		}
	}
	return nil
}

func TestMemoryTable(t *testing.T) {
	r := cappedFixture()
	s := Build(r, testLayouts())
	mt := tableByTitle(s.Tables, memoryTitle)
	if mt == nil {
		t.Fatalf("no %q table in %d tables", memoryTitle, len(s.Tables))
	}
	if len(mt.Rows) != 2 {
		t.Fatalf("memory rows %v: want a and b only (c has no cap)", mt.Rows)
	}
	ma, mb := r.Configs[0].Memory, r.Configs[1].Memory
	bytes := func(n int64) string { return numfmt.Bytes(float64(n)) }
	wantA := []string{"a", bytes(ma.LimitBytes), "v1", "process", bytes(*ma.PeakBytes), bytes(ma.UsageBytes),
		bytes(ma.CacheBytes), numfmt.Num(100*float64(ma.CacheBytes)/float64(ma.UsageBytes)) + "%", "0", bytes(*ma.HarnessPeakBytes)}
	if got := row(t, s, memoryTitle, "a"); !slices.Equal(got, wantA) {
		t.Errorf("row a\n got %q\nwant %q", got, wantA)
	}
	// Not measured: "-", never 0; a page cache of 0 bytes was measured and is shown.
	wantB := []string{"b", bytes(mb.LimitBytes), "v2", "server", missing, bytes(mb.UsageBytes), "0 B", "0%", "2", missing}
	if got := row(t, s, memoryTitle, "b"); !slices.Equal(got, wantB) {
		t.Errorf("row b\n got %q\nwant %q", got, wantB)
	}
	if mt.Class[1][8] != ClassBad || mt.Class[0][8] != "" {
		t.Errorf("OOM kill classes %q, %q: want only b's red", mt.Class[0][8], mt.Class[1][8])
	}
	if !slices.ContainsFunc(s.Legend, func(l string) bool { return strings.HasPrefix(l, "Memory cap") }) {
		t.Error("no legend line for the memory cap table")
	}
}

func TestMemoryHeaderAndOOMWarning(t *testing.T) {
	r := cappedFixture()
	lines := Build(r, testLayouts()).Lines
	capA := "a: memory cap " + numfmt.Bytes(2<<30) + " (cgroup v1, scope process)"
	if !slices.Contains(lines, capA) {
		t.Errorf("header lacks %q:\n%s", capA, strings.Join(lines, "\n"))
	}
	var warnings []string
	for _, l := range lines {
		if strings.HasPrefix(l, warningPrefix) {
			warnings = append(warnings, l)
		}
		if strings.HasPrefix(l, "c: memory cap") {
			t.Errorf("uncapped c has a cap line: %q", l)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "b: the kernel's OOM killer killed 2 processes") {
		t.Errorf("warnings %q: want one, for b's 2 OOM kills", warnings)
	}
	r1 := cappedFixture()
	r1.Configs[1].Memory.OOMKills = 1
	if !slices.ContainsFunc(Build(r1, testLayouts()).Lines, func(l string) bool { return strings.Contains(l, "killed 1 process in") }) {
		t.Errorf("one OOM kill is not %q", "killed 1 process in")
	}
	md := Markdown(r, testLayouts())
	if !strings.Contains(md, "- **WARNING:** b: the kernel's OOM killer") || !strings.Contains(md, "## "+memoryTitle) {
		t.Errorf("summary.md lacks the bold warning or the memory table:\n%s", md)
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "WARNING: b: ") || !strings.Contains(txt.String(), memoryTitle) {
		t.Errorf("printed summary lacks the warning or the memory table:\n%s", txt.String())
	}
}

// TestUncappedRunShowsNoMemory checks that a run without caps has no memory table, cap line or
// legend: its summary is what it was before caps existed.
func TestUncappedRunShowsNoMemory(t *testing.T) {
	for _, s := range []Summary{Build(fixture(), testLayouts()), LinkBenchLayout().summary(fixture(), nil), IIBenchLayout().summary(fixture(), nil)} {
		if tableByTitle(s.Tables, memoryTitle) != nil {
			t.Error("an uncapped run has a memory table")
		}
		for _, l := range append(s.Lines, s.Legend...) {
			if strings.Contains(strings.ToLower(l), "memory cap") {
				t.Errorf("an uncapped run says %q", l)
			}
		}
	}
}

// TestReportShowsMemory checks the report page: the memory table in the metadata with the
// configurations labelled, the OOM warning as a warning line in the HTML and in bold in
// report.md, for LinkBench and iiBench summaries too.
func TestReportShowsMemory(t *testing.T) {
	for _, workload := range []string{"insert", "linkbench", "iibench"} {
		r := cappedFixture()
		r.Workload.Name = workload
		p, html := pageHTML(t, Input{Dir: "capped", Run: r})
		if got, class := cell(t, p, memoryTitle, "b", "OOM kills"); got != "2" || class != ClassBad {
			t.Errorf("%s: b's OOM kills %q {%s}, want 2 {bad}", workload, got, class)
		}
		if got, _ := cell(t, p, memoryTitle, "b", "peak"); got != missing {
			t.Errorf("%s: b's unmeasured peak is %q, want -", workload, got)
		}
		if !strings.Contains(html.String(), `<li class="warning">WARNING: b: the kernel&#39;s OOM killer killed 2`) {
			t.Errorf("%s: the HTML page has no warning line for b", workload)
		}
		if !strings.Contains(MarkdownPage(p), "- **WARNING:** b: ") {
			t.Errorf("%s: report.md has no bold warning", workload)
		}
		if !slices.ContainsFunc(p.Legend, func(l string) bool { return strings.HasPrefix(l, "Memory cap") }) {
			t.Errorf("%s: no memory legend", workload)
		}
	}
	// Two runs: the labels carry the run.
	a, b := Input{Dir: "cached", Run: fixture()}, Input{Dir: "iobound", Run: cappedFixture()}
	p, err := NewPage([]Input{a, b}, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := cell(t, p, memoryTitle, "iobound/a", "cap"); got != numfmt.Bytes(2<<30) {
		t.Errorf("iobound/a cap %q", got)
	}
}
