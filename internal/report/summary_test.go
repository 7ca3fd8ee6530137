package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// fixture is a run with a healthy config, a failed step, a missed SLA and a missing step.
func fixture() *result.Run {
	ok := func(name, primary string, rate float64) result.Step {
		return result.Step{Name: name, Status: result.StatusOK, Seconds: 2, Primary: primary,
			Ops: map[string]*result.Op{primary: {Count: 10, Units: 20, PerSec: rate,
				Latency: result.Latency{P50: 812, P99: 3400, Max: 2.1e6}}}}
	}
	q := ok("qr100", "query", 4321)
	q.Ops["insert"] = &result.Op{Count: 4, Units: 200, PerSec: 80, Background: true,
		Latency: result.Latency{P50: 100, P99: 200, Max: 300}, Response: &result.Latency{P99: 1500, Max: 9e6}}
	q.Target = &result.Target{InsertsPerSec: 100, AchievedInsertsPerSec: 80, SLAMet: false}
	q.Probe = &result.Probe{MinTrxIDSeconds: 0.000123}
	failed := result.Step{Name: "l.i1", Status: result.StatusFailed, Error: "verification failed", Primary: "insert",
		Verify: &result.Verify{OK: false, Detail: "pi1: expected 5, pk=4"}}
	return &result.Run{
		Tool: result.Tool{Version: "t"}, RunID: "r1", Status: result.StatusFailed, Error: "b: step l.i1 failed",
		Workload: result.Workload{Name: "insert", Scale: "tiny"},
		Configs: []result.Config{
			{Name: "a", Engine: "sqlite", Version: "3.46", Status: result.StatusOK,
				Steps: []result.Step{ok("l.i0", "insert", 123456.7), ok("l.i1", "insert", 98.765), q}},
			{Name: "b", Engine: "pebble", Version: "v1", Status: result.StatusFailed, Error: "step l.i1 failed",
				Notes: []string{"stores nothing"}, Steps: []result.Step{ok("l.i0", "insert", 5000), failed}},
		},
	}
}

// row returns the cells of the row of table title whose first cells are key.
func row(t *testing.T, s Summary, title string, key ...string) []string {
	t.Helper()
	for _, tb := range s.Tables {
		if tb.Title != title {
			continue
		}
	next:
		for _, r := range tb.Rows {
			for i, k := range key {
				if r[i] != k {
					continue next
				}
			}
			return r
		}
	}
	t.Fatalf("no row %v in table %q", key, title)
	return nil
}

func TestThroughputCells(t *testing.T) {
	s := Build(fixture(), testLayouts())
	tp := s.Tables[0]
	if tp.Title != "Throughput" || strings.Join(tp.Header, ",") != "config,l.i0 ips,l.i1 ips,qr100 qps" {
		t.Fatalf("throughput header %v", tp.Header)
	}
	a := row(t, s, "Throughput", "a")
	if a[1] != "123457" || a[2] != "98.8" || a[3] != "4321 (SLA missed)" {
		t.Errorf("row a %v", a)
	}
	b := row(t, s, "Throughput", "b")
	if b[2] != "failed" || b[3] != missing {
		t.Errorf("row b %v: a failed step shows failed, a missing one -", b)
	}
}

func TestLatencySLAAndSteps(t *testing.T) {
	s := Build(fixture(), testLayouts())
	lat := row(t, s, "Latency", "a", "l.i0", "insert")
	if lat[4] != "812us" || lat[5] != "3.4ms" || lat[6] != "2.1s" || lat[7] != missing {
		t.Errorf("latency row %v", lat)
	}
	bg := row(t, s, "Latency", "a", "qr100", "insert (bg)")
	if bg[7] != "1.5ms" || bg[8] != "9s" {
		t.Errorf("background row %v: want response time", bg)
	}
	sla := row(t, s, "SLA of the background writers", "a", "qr100")
	if sla[2] != "100" || sla[3] != "80" || sla[5] != "NO" {
		t.Errorf("sla row %v", sla)
	}
	st := row(t, s, "Steps", "b", "l.i1")
	if st[2] != "failed" || st[6] != "FAILED" {
		t.Errorf("failed step row %v", st)
	}
	if p := row(t, s, "Steps", "a", "qr100")[4]; p != "123us" {
		t.Errorf("probe cell %q, want 123us", p)
	}
	if p := row(t, s, "Steps", "a", "l.i0")[4]; p != missing {
		t.Errorf("missing probe shows %q", p)
	}
}

// TestStepNotes checks that what a step noted (the cleanup's statements and wait) is in the
// header lines, after its configuration's own notes.
func TestStepNotes(t *testing.T) {
	r := fixture()
	r.Configs[1].Steps[0].Notes = []string{"CHECKPOINT: 0.1 s", "waited 99.0 s"}
	lines := strings.Join(Build(r, testLayouts()).Lines, "\n")
	want := "b: stores nothing\nb: l.i0: CHECKPOINT: 0.1 s\nb: l.i0: waited 99.0 s"
	if !strings.Contains(lines, want) {
		t.Errorf("header lines\n%s\nlack\n%s", lines, want)
	}
}

func TestMarkdownAndTextAgree(t *testing.T) {
	r := fixture()
	md := Markdown(r, testLayouts())
	var txt bytes.Buffer
	if err := WriteText(&txt, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"123457", "4321 (SLA missed)", "failed", "step l.i1 failed", "b: stores nothing", "3.4ms"} {
		if !strings.Contains(md, want) || !strings.Contains(txt.String(), want) {
			t.Errorf("%q missing from markdown or text", want)
		}
	}
	// Every markdown table row has as many cells as its header.
	var cols int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("markdown row has %d bars, header %d: %s", n, cols, line)
		}
	}
}

func TestEfficiencyTables(t *testing.T) {
	r := fixture()
	f := func(v float64) *float64 { return &v }
	a := &r.Configs[0].Steps[0] // a, l.i0
	a.Efficiency = &result.Efficiency{CPUpq: f(16.4), CSpq: f(0.25), Rpq: f(0), RKBpq: f(0),
		Wpi: f(0.012), WKBpi: f(0.5), Wamp: f(3.2)}
	a.Size = &result.Size{DBGB1: f(1.25), DBGB2: f(1.5)}
	s := Build(r, testLayouts())
	want := "config,ips,cpupq,cspq,rpq,rkbpq,wpi,wkbpi,dbgb1,dbgb2,wamp"
	for _, tb := range s.Tables {
		if strings.HasPrefix(tb.Title, "Efficiency: ") && strings.HasPrefix(tb.Title, "Efficiency: l.") &&
			strings.Join(tb.Header, ",") != want {
			t.Errorf("%s header %v", tb.Title, tb.Header)
		}
	}
	got := row(t, s, "Efficiency: l.i0", "a")
	if strings.Join(got, ",") != "a,123457,16.4,0.25,0,0,0.012,0.5,1.25,1.5,3.2" {
		t.Errorf("efficiency row %v", got)
	}
	// Not measured is "-", never 0; a failed step shows its status in the rate column.
	if b := row(t, s, "Efficiency: l.i0", "b"); b[2] != missing || b[8] != missing {
		t.Errorf("unmeasured row %v", b)
	}
	if b := row(t, s, "Efficiency: l.i1", "b"); b[1] != "failed" {
		t.Errorf("failed step row %v", b)
	}
	if q := row(t, s, "Efficiency: qr100", "a"); q[1] != "4321 (SLA missed)" {
		t.Errorf("query step row %v", q)
	}
	if !strings.Contains(strings.Join(s.Legend, "\n"), "include the harness") {
		t.Error("the legend does not say embedded engines' CPU includes the harness")
	}
}

func TestCleanupDebtBeforeAndAfter(t *testing.T) {
	r := fixture()
	r.Configs[0].Steps = append(r.Configs[0].Steps, result.Step{Name: "cleanup", Status: result.StatusOK, Seconds: 1.5,
		EngineStatsBefore: map[string]float64{"wal_bytes": 4096, "l0_files": 7},
		EngineStats:       map[string]float64{"wal_bytes": 0, "flushes": 1}})
	s := Build(r, testLayouts())
	if got := row(t, s, "Cleanup: engine debt before and after", "a", "cleanup", "ok", "1.5s", "l0_files"); got[5] != "7" || got[6] != missing {
		t.Errorf("l0_files row %v: a counter missing after shows -", got)
	}
	if got := row(t, s, "Cleanup: engine debt before and after", "a", "cleanup", "", "", "wal_bytes"); got[5] != "4096" || got[6] != "0" {
		t.Errorf("wal_bytes row %v", got)
	}
	if got := row(t, s, "Cleanup: engine debt before and after", "a", "cleanup", "", "", "flushes"); got[5] != missing || got[6] != "1" {
		t.Errorf("flushes row %v", got)
	}
}

func TestHeaderNamesTheVariant(t *testing.T) {
	r := &result.Run{RunID: "r1", Status: result.StatusOK,
		Workload: result.Workload{Name: "insert", Scale: "tiny", Variant: "corrected", Verify: "each-step"}}
	if got := header(r)[0]; !strings.Contains(got, "scale tiny, variant corrected, verified each step, run r1") {
		t.Errorf("header %q does not name the variant", got)
	}
	r.Workload.Variant, r.Workload.Verify = "", ""
	if got := header(r)[0]; strings.Contains(got, "variant") {
		t.Errorf("a run without a recorded variant: header %q", got)
	}
}

// The resources per second and the percentiles of the per-second rate show what was measured,
// in the reference's units (MB/s, ms, GB), and "-" for what was not, never 0.
func TestResourceAndRatePercentileCells(t *testing.T) {
	r := fixture()
	f := func(v float64) *float64 { return &v }
	s := &r.Configs[0].Steps[0] // a's l.i0
	s.Resources = &result.Resources{Rps: f(50), RMBps: f(0.390625), Wps: f(25), WMBps: f(1.5625),
		CSps: f(1500), CPUps: f(35), ClientCPUPct: f(12.5), RAwaitMs: f(3), AquSz: f(0.4), UtilPct: f(21.26), RSSMB: f(512)}
	s.Efficiency = &result.Efficiency{MaxRSSMB: f(1536)}
	s.Ops["insert"].RateP50, s.Ops["insert"].RateP99 = f(130000), f(91234.6)
	sum := Build(r, testLayouts())

	if got := row(t, sum, "Throughput: p50 and p99 of the per-second rate", "a", "l.i0"); !slices.Equal(got, []string{"a", "l.i0", "ips", "123457", "130000", "91235"}) {
		t.Errorf("rate percentiles of a l.i0: %q", got)
	}
	// Too short for percentiles, and a failed step: "-".
	if got := row(t, sum, "Throughput: p50 and p99 of the per-second rate", "a", "l.i1"); !slices.Equal(got[4:], []string{missing, missing}) {
		t.Errorf("a l.i1 without percentiles: %q", got)
	}
	if got := row(t, sum, "Throughput: p50 and p99 of the per-second rate", "b", "l.i1"); !slices.Equal(got[3:], []string{"failed", missing, missing}) {
		t.Errorf("failed b l.i1: %q", got)
	}

	// w_await not measured (no write timed): "-"; rss 512 MiB and maxrss 1536 MiB in GB.
	wantRes := []string{"a", "l.i0", "50", "0.391", "25", "1.56", "1500", "35", "12.5", "3", missing, "0.4", "21.3", "0.5", "1.5"}
	if got := row(t, sum, "Resources per second", "a", "l.i0"); !slices.Equal(got, wantRes) {
		t.Errorf("resources of a l.i0:\n got %q\nwant %q", got, wantRes)
	}
	for _, key := range [][]string{{"a", "qr100"}, {"b", "l.i1"}} {
		got := row(t, sum, "Resources per second", key...)
		for i, c := range got[2:] {
			if c != missing {
				t.Errorf("%v without resources: column %d is %q", key, i+2, c)
			}
		}
	}

	st := stepResourceTable(r, "l.i0", nil)
	if len(st.Header) != len(st.Rows[0]) || st.Header[1] != "ips" || st.Header[2] != "p50" || st.Header[4] != "rps" {
		t.Fatalf("step table header %q, row %q", st.Header, st.Rows[0])
	}
	if got := st.Rows[0]; !slices.Equal(got, append([]string{"a", "123457", "130000", "91235"}, wantRes[2:]...)) {
		t.Errorf("step table row a: %q", got)
	}
}

// clientBoundFixture is the fixture run with the client-saturation check at 40%: a's l.i0 and
// qr100 (which also missed its SLA) ran on a client that used more.
func clientBoundFixture() *result.Run {
	r := fixture()
	r.ClientCPULimitPct = 40
	f := func(v float64) *float64 { return &v }
	for _, i := range []int{0, 2} {
		s := &r.Configs[0].Steps[i]
		s.Resources = &result.Resources{ClientCPUPct: f(45.5)}
		s.ClientBound = true
	}
	r.Configs[0].Steps[1].Resources = &result.Resources{ClientCPUPct: f(12)}
	return r
}

// A client-bound step's rate is marked wherever the summary shows it, beside an SLA miss, and
// the legend says what the mark means at the run's limit; a step under the limit, or whose
// client was not measured, has no mark.
func TestClientBoundMark(t *testing.T) {
	r := clientBoundFixture()
	s := Build(r, testLayouts())
	a := row(t, s, "Throughput", "a")
	if a[1] != "123457 (client-bound)" || a[2] != "98.8" || a[3] != "4321 (SLA missed, client-bound)" {
		t.Errorf("throughput row a %q", a)
	}
	if b := row(t, s, "Throughput", "b"); b[1] != "5000" {
		t.Errorf("throughput row b %q: b's client was not measured, so no mark", b)
	}
	if got := row(t, s, "Efficiency: l.i0", "a"); got[1] != "123457 (client-bound)" {
		t.Errorf("efficiency row %q", got)
	}
	if got := row(t, s, "Throughput: p50 and p99 of the per-second rate", "a", "qr100"); got[3] != "4321 (SLA missed, client-bound)" {
		t.Errorf("rate percentiles row %q", got)
	}
	if got := row(t, s, "Resources per second", "a", "l.i1"); got[8] != "12" {
		t.Errorf("client%% of a l.i1: %q", got)
	}
	legend := "client-bound: the client used more than 40% of the CPUs (client%; --client-cpu-limit) or more than 85% of the CPUs it may run on during the step: the client may have limited the engine"
	if !slices.ContainsFunc(s.Legend, func(l string) bool { return strings.HasPrefix(l, legend) }) {
		t.Errorf("legend lacks %q:\n%s", legend, strings.Join(s.Legend, "\n"))
	}
	var txt, brief bytes.Buffer
	if err := WriteText(&txt, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	if err := WriteBrief(&brief, r, testLayouts()); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{txt.String(), Markdown(r, testLayouts()), brief.String()} {
		if !strings.Contains(out, "123457 (client-bound)") || !strings.Contains(out, legend) {
			t.Errorf("the text, markdown or brief summary lacks the mark or its legend:\n%s", out)
		}
	}
	// The LinkBench and iiBench summaries explain the mark too.
	for _, w := range []string{"linkbench", "iibench"} {
		r.Workload.Name = w
		if l := Build(r, testLayouts()).Legend; !slices.ContainsFunc(l, func(l string) bool { return strings.HasPrefix(l, legend) }) {
			t.Errorf("%s legend lacks the client-bound line", w)
		}
	}
}

// A run made before the check has no limit and no marks: no legend line about it.
func TestClientLegendOnlyWhenChecked(t *testing.T) {
	if l := strings.Join(Build(fixture(), testLayouts()).Legend, "\n"); strings.Contains(l, "client-bound") {
		t.Errorf("a run without the check explains its mark:\n%s", l)
	}
}

// A run of embedded engines records the limit but never the client's share (the engine is
// the client's own process): no legend line about a mark that cannot appear.
func TestClientLegendOnlyWhenMeasured(t *testing.T) {
	r := fixture()
	r.ClientCPULimitPct = 50
	if l := strings.Join(Build(r, testLayouts()).Legend, "\n"); strings.Contains(l, "client-bound") {
		t.Errorf("a run without a measured client share explains the client-bound mark:\n%s", l)
	}
	f := 12.0
	r.Configs[0].Steps[1].Resources = &result.Resources{ClientCPUPct: &f}
	if l := strings.Join(Build(r, testLayouts()).Legend, "\n"); !strings.Contains(l, "client-bound: the client used more than 50%") {
		t.Errorf("a run with a measured client share lacks the client-bound legend:\n%s", l)
	}
}

// A cell with a pipe or a line break stays one cell of its row: the pipe escaped, the break a
// <br/>, the header as it is; every line of the table has the header's number of cells.
func TestMarkdownTableEscapes(t *testing.T) {
	var b strings.Builder
	writeMarkdownTable(&b, Table{Header: []string{"config", "error"}, Rows: [][]string{
		{"a|b", "line one\nline two"},
		{"c", "-"},
	}})
	want := "| config | error |\n| --- | --- |\n| a\\|b | line one<br/>line two |\n| c | - |\n"
	if b.String() != want {
		t.Errorf("markdown table\n%s\nwant\n%s", b.String(), want)
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 3 {
			t.Errorf("line %q has %d cells, want 2", line, n-1)
		}
	}
}
