package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// lbFixture is a LinkBench run: config a loaded and ran two intervals, b's second interval
// failed and its load has no size.
func lbFixture() *result.Run {
	gb := func(v float64) *result.Size { return &result.Size{DBGB1: &v} }
	load := func(links, counts, nodes int64, secs float64, size *result.Size) result.Step {
		return result.Step{Name: "load", Status: result.StatusOK, Seconds: secs, Primary: "link", Size: size,
			Ops: map[string]*result.Op{
				"link":  {Count: 10, Units: links, PerSec: float64(links) / secs},
				"count": {Count: 5, Units: counts, PerSec: float64(counts) / secs},
				"node":  {Count: 3, Units: nodes, PerSec: float64(nodes) / secs}}}
	}
	interval := func(name string, qps float64, size *result.Size) result.Step {
		return result.Step{Name: name, Status: result.StatusOK, Seconds: 3, Primary: "requests", Size: size,
			Ops: map[string]*result.Op{
				"requests":       {Count: 300, Units: 300, PerSec: qps, Latency: result.Latency{P50: 100, P90: 200, P99: 900, P999: 2000, Max: 5000, Mean: 150}},
				"GET_LINKS_LIST": {Count: 150, Units: 150, PerSec: qps / 2, Found: 4567, Latency: result.Latency{P50: 120}},
				"ADD_NODE":       {Count: 0, Errors: 2}}}
	}
	failed := result.Step{Name: "run.2", Status: result.StatusFailed, Error: "ADD_LINK: connection lost", Primary: "requests"}
	return &result.Run{Tool: result.Tool{Version: "t"}, RunID: "r", Status: result.StatusFailed,
		Workload: result.Workload{Name: "linkbench", Scale: "tiny"},
		Configs: []result.Config{
			{Name: "a", Engine: "sqlite", Status: result.StatusOK, Steps: []result.Step{
				load(40000, 9000, 10000, 2, gb(0.0123)),
				{Name: "warmup", Status: result.StatusOK, Primary: "requests", Ops: map[string]*result.Op{"requests": {PerSec: 1}}},
				interval("run.1", 1234.6, gb(0.02)), interval("run.2", 1100, gb(0.03))}},
			{Name: "b", Engine: "pebble", Status: result.StatusFailed, Steps: []result.Step{
				load(40000, 9000, 10000, 4, nil), interval("run.1", 999, gb(0.01)), failed}},
		}}
}

func TestLinkBenchPublishedLayout(t *testing.T) {
	s := Build(lbFixture(), testLayouts())
	if s.Tables[0].Title != "LinkBench" {
		t.Fatalf("first table %q", s.Tables[0].Title)
	}
	want := []string{"config", "load s", "links/s", "load GB", "run.1 qps", "run.1 GB", "run.2 qps", "run.2 GB"}
	if !slices.Equal(s.Tables[0].Header, want) {
		t.Errorf("header %v, want %v (the warmup is not an interval)", s.Tables[0].Header, want)
	}
	if got := row(t, s, "LinkBench", "a"); !slices.Equal(got, []string{"a", "2", "20000", "0.0123", "1235", "0.02", "1100", "0.03"}) {
		t.Errorf("row a: %v", got)
	}
	// b: no size measured is "-", the failed interval shows its status, never a number.
	if got := row(t, s, "LinkBench", "b"); !slices.Equal(got, []string{"b", "4", "10000", "-", "999", "0.01", "failed", "-"}) {
		t.Errorf("row b: %v", got)
	}
}

func TestLinkBenchLoadAndLatency(t *testing.T) {
	s := Build(lbFixture(), testLayouts())
	// links/s, links+counts/s, (link+count+node)/s: 40000, 49000 and 59000 rows in 2 s.
	if got := row(t, s, "Load", "a", "load"); !slices.Equal(got[4:], []string{"40000", "20000", "24500", "29500", "10000", "4", "0.0123"}) {
		t.Errorf("load row: %v", got)
	}
	gl := row(t, s, "Latency per operation", "a", "run.1", "GET_LINKS_LIST")
	if gl[len(gl)-3] != "4567" { // then p25, p75
		t.Errorf("GET_LINKS_LIST rows: %v", gl)
	}
	tot := row(t, s, "Latency per operation", "a", "run.1", "requests")
	if !slices.Equal(tot[5:11], []string{"100us", "200us", "900us", "2ms", "5ms", "150us"}) {
		t.Errorf("requests latency: %v", tot)
	}
	an := row(t, s, "Latency per operation", "a", "run.1", "ADD_NODE")
	if an[5] != "-" || an[12] != "2" || an[13] != "-" {
		t.Errorf("ADD_NODE with no success and 2 errors: %v", an)
	}
	for _, tb := range s.Tables {
		if strings.HasSuffix(tb.Title, "warmup") {
			t.Errorf("table %q: the warmup is not counted", tb.Title)
		}
	}
	if !strings.Contains(Markdown(lbFixture(), testLayouts()), "## LinkBench") {
		t.Error("markdown lacks the LinkBench table")
	}
}
