package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// ibPeriod describes one period of a fixture: its length, rows inserted, queries (-1: no query
// op in the period, as before the queries start) and their p99.
type ibPeriod struct {
	secs    float64
	rows    int64
	queries int64
	p99     float64
}

// ibPeriods builds periods with cumulative ends, row counts and units, as the runner does.
func ibPeriods(specs ...ibPeriod) []result.Period {
	var out []result.Period
	var end float64
	var rows, queries int64
	for _, s := range specs {
		end += s.secs
		rows += s.rows
		p := result.Period{End: end, Seconds: s.secs, Rows: rows, Ops: map[string]result.PeriodOp{
			"insert": {Count: s.rows / 1000, Units: s.rows, PerSec: float64(s.rows) / s.secs, CumUnits: rows}}}
		if s.queries >= 0 {
			queries += s.queries
			p.Ops["query"] = result.PeriodOp{Count: s.queries, Units: s.queries, PerSec: float64(s.queries) / s.secs,
				Latency: result.Latency{P99: s.p99}, CumUnits: queries}
		}
		out = append(out, p)
	}
	return out
}

// ibFixture is an iiBench run: a reaches 80000 rows with queries (not started in its first
// period, stalled in its third) and a price; b reaches 40000 rows without queries and without a
// price; c's step failed; d failed at open (no step).
func ibFixture() *result.Run {
	f := func(v float64) *float64 { return &v }
	a := result.Step{Name: "run", Status: result.StatusOK, Seconds: 115, Primary: "insert",
		Ops: map[string]*result.Op{
			"insert": {Count: 80, Units: 80000, PerSec: 80000.0 / 115,
				Latency: result.Latency{P50: 800, P90: 1500, P99: 5000, P999: 12000, Max: 40000, Mean: 1000}},
			"query": {Count: 2000, Units: 2000, PerSec: 2000.0 / 115, Found: 1999000, Errors: 1, Background: true,
				Latency: result.Latency{P50: 1200, P90: 2000, P99: 4000, P999: 9000, Max: 20000, Mean: 1300}}},
		Periods: ibPeriods(
			ibPeriod{10, 10000, -1, 0}, ibPeriod{10, 10000, 200, 2000}, ibPeriod{10, 10000, 0, 0},
			ibPeriod{10, 10000, 200, 2500}, ibPeriod{10, 5000, 200, 9000}, ibPeriod{10, 5000, 200, 3000},
			ibPeriod{10, 5000, 200, 4000}, ibPeriod{10, 5000, 200, 4000}, ibPeriod{10, 5000, 200, 4000},
			ibPeriod{10, 5000, 200, 4000}, ibPeriod{10, 5000, 200, 4000}, ibPeriod{5, 5000, 200, 4000}),
		Cost:    &result.Cost{PerHour: 1.68, Run: 115.0 / 3600 * 1.68, PerBillionInserts: f(1e9 / (80000.0 / 115) / 3600 * 1.68)},
		Usage:   map[string]float64{"cpu_s": 8, "reads": 400, "read_kb": 3200, "writes": 1600, "write_kb": 64000},
		Verify:  &result.Verify{OK: true},
		Retries: map[string]int64{"insert": 2}}
	a.Efficiency = &result.Efficiency{CPUpq: f(100)}
	b := result.Step{Name: "run", Status: result.StatusOK, Seconds: 40, Primary: "insert",
		Ops: map[string]*result.Op{
			"insert": {Count: 40, Units: 40000, PerSec: 1000, Latency: result.Latency{P50: 500, P99: 900, Max: 1000},
				Response: &result.Latency{P50: 600, P99: 1500, Max: 3000}},
			"query": {Background: true}},
		Target:  &result.Target{InsertsPerSec: 1100, AchievedInsertsPerSec: 1000},
		Periods: ibPeriods(ibPeriod{10, 10000, 0, 0}, ibPeriod{10, 10000, 0, 0}, ibPeriod{10, 10000, 0, 0}, ibPeriod{10, 10000, 0, 0}),
		Usage:   map[string]float64{"cpu_s": 2}}
	c := result.Step{Name: "run", Status: result.StatusFailed, Error: "insert: disk full", Seconds: 10, Primary: "insert",
		Ops:  map[string]*result.Op{"insert": {Count: 3, Units: 3000, PerSec: 300, Latency: result.Latency{P50: 700}}},
		Cost: &result.Cost{PerHour: 1.68, Run: 10.0 / 3600 * 1.68}}
	return &result.Run{Tool: result.Tool{Version: "t"}, RunID: "r", Status: result.StatusFailed,
		Workload: result.Workload{Name: "iibench", Scale: "tiny", Params: map[string]any{
			"max_rows": int64(80000), "seconds": float64(0), "insert_threads": 1, "query_threads": 4,
			"secondary_indexes": 3, "report_seconds": float64(10), "cost_per_hour": 1.68}},
		Configs: []result.Config{
			{Name: "a", Engine: "sqlite", Status: result.StatusOK, Steps: []result.Step{a}},
			{Name: "b", Engine: "pebble", Status: result.StatusOK, Steps: []result.Step{b}},
			{Name: "c", Engine: "innodb", Status: result.StatusFailed, Error: "run: insert: disk full", Steps: []result.Step{c}},
			{Name: "d", Engine: "postgres", Status: result.StatusFailed, Error: "open: connection refused"},
		}}
}

// tableOf returns the table titled title, or nil.
func tableOf(s Summary, title string) *Table {
	for i := range s.Tables {
		if s.Tables[i].Title == title {
			return &s.Tables[i]
		}
	}
	return nil
}

func wantRow(t *testing.T, s Summary, title string, want ...string) {
	t.Helper()
	if got := row(t, s, title, want[0]); !slices.Equal(got, want) {
		t.Errorf("%s row %s:\n got %q\nwant %q", title, want[0], got, want)
	}
}

func TestIIBenchPublishedLayout(t *testing.T) {
	s := Build(ibFixture(), testLayouts())
	titles := make([]string, len(s.Tables))
	for i, tb := range s.Tables {
		titles[i] = tb.Title
	}
	want := []string{"iiBench", "Rates against rows inserted", "Throughput: p50 and p99 of the per-second rate",
		"Cost", "Latency per operation", "Rate limit", "Per insert and per query", "Steps", "Efficiency: run", "Resources per second"}
	if !slices.Equal(titles, want) {
		t.Fatalf("tables %q, want %q", titles, want)
	}
	if h := s.Tables[0].Header; !slices.Equal(h, []string{"config", "engine", "rows", "total time", "inserts/s", "queries/s", "ins/qry"}) {
		t.Errorf("header %q", h)
	}
	wantRow(t, s, "iiBench", "a", "sqlite", "80000", "115s", "696", "17.4", "40")
	// No queries: "-" for the rate and the ratio, never 0.
	wantRow(t, s, "iiBench", "b", "pebble", "40000", "40s", "1000 (SLA missed)", "-", "-")
	// A failed step shows its status in every rate cell.
	wantRow(t, s, "iiBench", "c", "innodb", "3000", "10s", "failed", "failed", "failed")
	// Failed at open: no step, the configuration's status.
	wantRow(t, s, "iiBench", "d", "postgres", "-", "-", "failed", "failed", "failed")
	if !slices.Contains(s.Lines, "iiBench: max rows 80000, no time limit, insert threads 1, query threads 4, secondary indexes 3, report every 10s, machine $1.68/hour") {
		t.Errorf("no parameter line in %q", s.Lines)
	}
	md := Markdown(ibFixture(), testLayouts())
	if !strings.Contains(md, "\n## iiBench\n") || !strings.Contains(md, "| a | sqlite | 80000 | 115s | 696 | 17.4 | 40 |") {
		t.Errorf("markdown lacks the iiBench table:\n%s", md)
	}
}

func TestIIBenchRatesAgainstRows(t *testing.T) {
	s := Build(ibFixture(), testLayouts())
	tb := tableOf(s, "Rates against rows inserted")
	if tb == nil {
		t.Fatal("no rates table")
	}
	// One group of columns per configuration with periods; c and d have none.
	if want := []string{"rows", "a ips", "a qps", "a q p99", "b ips", "b qps", "b q p99"}; !slices.Equal(tb.Header, want) {
		t.Errorf("header %q, want %q", tb.Header, want)
	}
	var marks []string
	for _, r := range tb.Rows {
		marks = append(marks, r[0])
	}
	if want := []string{"10000", "20000", "30000", "40000", "50000", "60000", "70000", "80000"}; !slices.Equal(marks, want) {
		t.Errorf("milestones %q, want %q", marks, want)
	}
	title := "Rates against rows inserted"
	// Queries not started yet: "-", not 0; b never queried.
	wantRow(t, s, title, "10000", "1000", "-", "-", "1000", "-", "-")
	wantRow(t, s, title, "20000", "1000", "20", "2ms", "1000", "-", "-")
	// Queries started, then a period without any: a stall, a real 0.
	wantRow(t, s, title, "30000", "1000", "0", "-", "1000", "-", "-")
	// Two periods: rates over both, the worst p99 of the two; b reached no more than 40000.
	wantRow(t, s, title, "50000", "500", "20", "9ms", "-", "-", "-")
	// Units and seconds are summed (10000 rows in 15 s), not the periods' rates averaged (750).
	wantRow(t, s, title, "80000", "667", "26.7", "4ms", "-", "-", "-")
	if !strings.Contains(strings.Join(s.Legend, "\n"), "worst period p99") {
		t.Error("the legend does not explain q p99")
	}
}

func TestIIBenchSingleConfigPerPeriod(t *testing.T) {
	r := ibFixture()
	r.Configs = r.Configs[:1]
	r.Configs[0].Steps[0].Periods = ibPeriods(ibPeriod{10, 1000, -1, 0}, ibPeriod{10, 1000, 50, 3000}, ibPeriod{4, 500, 20, 1500})
	s := Build(r, testLayouts())
	tb := tableOf(s, "Rates against rows inserted")
	if tb == nil {
		t.Fatal("no rates table")
	}
	if want := []string{"rows", "end", "length", "ips", "qps", "q p99"}; !slices.Equal(tb.Header, want) {
		t.Errorf("header %q, want %q", tb.Header, want)
	}
	want := [][]string{
		{"1000", "10s", "10s", "100", "-", "-"},
		{"2000", "20s", "10s", "100", "5", "3ms"},
		{"2500", "24s", "4s", "125", "5", "1.5ms"},
	}
	if !slices.EqualFunc(tb.Rows, want, slices.Equal) {
		t.Errorf("rows %q, want %q", tb.Rows, want)
	}

	// More than maxRateMarks periods: milestones, even for a single configuration.
	var many []ibPeriod
	for i := range maxRateMarks + 1 {
		rows := int64(1000)
		if i == 5 {
			rows = 5000 // from 5000 to 10000 rows in one period: no period ends in (6000, 8000]
		}
		many = append(many, ibPeriod{10, rows, 100, 2000})
	}
	r.Configs[0].Steps[0].Periods = ibPeriods(many...)
	s = Build(r, testLayouts())
	tb = tableOf(s, "Rates against rows inserted")
	if tb == nil || !slices.Equal(tb.Header, []string{"rows", "a ips", "a qps", "a q p99"}) {
		t.Fatalf("11 periods: %+v", tb)
	}
	// 15000 rows: marks of 2000 up to 16000; 8000, where no period ended, is left out.
	var marks []string
	for _, r := range tb.Rows {
		marks = append(marks, r[0])
	}
	if want := []string{"2000", "4000", "6000", "10000", "12000", "14000", "16000"}; !slices.Equal(marks, want) {
		t.Errorf("11 periods: milestones %q, want %q", marks, want)
	}
	wantRow(t, s, "Rates against rows inserted", "2000", "100", "10", "2ms")
	wantRow(t, s, "Rates against rows inserted", "10000", "500", "10", "2ms")
}

func TestIIBenchCost(t *testing.T) {
	s := Build(ibFixture(), testLayouts())
	if h := tableOf(s, "Cost").Header; !slices.Equal(h, []string{"config", "$/hour", "run time", "run cost", "$ per billion inserts"}) {
		t.Errorf("cost header %q", h)
	}
	// 115 s at $1.68/hour; a billion rows at 695.65 rows/s take 399,306 hours.
	wantRow(t, s, "Cost", "a", "$1.68", "115s", "$0.05", "$670.83")
	// Under a cent is not free; nothing to divide by is "-".
	wantRow(t, s, "Cost", "c", "$1.68", "10s", "<$0.01", "-")
	if len(tableOf(s, "Cost").Rows) != 2 {
		t.Errorf("cost rows %q: b gave no price", tableOf(s, "Cost").Rows)
	}
	if !strings.Contains(strings.Join(s.Legend, "\n"), "1e9 / ips / 3600 x $/hour") {
		t.Error("the legend does not give the cost arithmetic")
	}

	r := ibFixture()
	for i := range r.Configs {
		for j := range r.Configs[i].Steps {
			r.Configs[i].Steps[j].Cost = nil
		}
	}
	if tb := tableOf(Build(r, testLayouts()), "Cost"); tb != nil {
		t.Errorf("cost table without a price: %+v", tb)
	}
	if dollars(20.3) != "$20.30" || dollars(0) != "$0.00" {
		t.Errorf("dollars: %q %q", dollars(20.3), dollars(0))
	}
}

func TestIIBenchLatencyAndPerOp(t *testing.T) {
	s := Build(ibFixture(), testLayouts())
	title := "Latency per operation"
	if got := row(t, s, title, "a", "insert"); !slices.Equal(got, []string{"a", "insert", "80", "696",
		"800us", "1.5ms", "5ms", "12ms", "40ms", "1ms", "0", "-", "-", "-", "-", "-"}) {
		t.Errorf("a insert %q", got)
	}
	if got := row(t, s, title, "a", "query"); !slices.Equal(got, []string{"a", "query", "2000", "17.4",
		"1.2ms", "2ms", "4ms", "9ms", "20ms", "1.3ms", "1", "1999000", "-", "-", "-", "-"}) {
		t.Errorf("a query %q", got)
	}
	if got := row(t, s, title, "b", "query"); !slices.Equal(got, []string{"b", "query", "0", "-",
		"-", "-", "-", "-", "-", "-", "0", "-", "-", "-", "-", "-"}) {
		t.Errorf("b query without queries %q", got)
	}
	// b's inserts are rate limited (--max-insert-rate): their response time, and the target missed.
	if got := row(t, s, title, "b", "insert"); !slices.Equal(got[len(got)-4:len(got)-2], []string{"1.5ms", "3ms"}) { // then p25, p75
		t.Errorf("b rate-limited insert %q", got)
	}
	if tb := tableOf(s, "Rate limit"); tb == nil || len(tb.Rows) != 1 || !slices.Equal(tb.Rows[0], []string{"b", "1100", "1000", "NO"}) {
		t.Errorf("rate limit table %+v", tb)
	}
	if got := row(t, s, title, "c", "insert"); got[3] != "failed" || got[4] != "700us" {
		t.Errorf("c failed insert %q", got)
	}
	tb := tableOf(s, title)
	if tb.Rows[0][1] != "insert" || tb.Rows[1][1] != "query" {
		t.Errorf("insert first: %q", tb.Rows)
	}

	per := "Per insert and per query"
	// 8 CPU seconds over 80000 rows and over 2000 queries; reads per query, writes per row.
	wantRow(t, s, per, "a", "100", "4000", "0.2", "1.6", "0.02", "0.8")
	// Not measured, or no queries to divide by: "-".
	wantRow(t, s, per, "b", "50", "-", "-", "-", "-", "-")
	wantRow(t, s, per, "c", "-", "-", "-", "-", "-", "-")

	r := ibFixture()
	for i := range r.Configs {
		for j := range r.Configs[i].Steps {
			r.Configs[i].Steps[j].Usage = nil
		}
	}
	if tb := tableOf(Build(r, testLayouts()), per); tb != nil {
		t.Errorf("per-op table with nothing measured: %+v", tb)
	}
}

func TestIIBenchStepsAndEfficiency(t *testing.T) {
	s := Build(ibFixture(), testLayouts())
	if got := row(t, s, "Steps", "a", "run"); got[2] != "ok" || got[6] != "ok" || got[7] != "insert 2" {
		t.Errorf("steps row %q", got)
	}
	// The step "run" is rated in inserts; LinkBench's intervals "run.N" in queries.
	if unit("run") != "ips" || unit("run.1") != "qps" {
		t.Errorf("unit(run) %q, unit(run.1) %q", unit("run"), unit("run.1"))
	}
	tb := tableOf(s, "Efficiency: run")
	if tb == nil || tb.Header[1] != "ips" {
		t.Fatalf("efficiency table %+v", tb)
	}
	if got := row(t, s, "Efficiency: run", "a"); got[1] != "696" || got[2] != "100" {
		t.Errorf("efficiency row %q", got)
	}
	if got := row(t, s, "Efficiency: run", "c"); got[1] != "failed" {
		t.Errorf("failed efficiency row %q", got)
	}
}

// TestIIBenchFromJSON reads the fixture back as run.json is read: numbers become float64.
func TestIIBenchFromJSON(t *testing.T) {
	data, err := json.Marshal(ibFixture())
	if err != nil {
		t.Fatal(err)
	}
	var back result.Run
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back.Workload.Params["insert_threads"].(float64); !ok {
		t.Fatalf("params did not come back as float64: %T", back.Workload.Params["insert_threads"])
	}
	if got, want := Markdown(&back, testLayouts()), Markdown(ibFixture(), testLayouts()); got != want {
		t.Errorf("summary differs after a JSON round trip:\n%s\nwant\n%s", got, want)
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ top, want int64 }{
		{80000, 10000}, {48000, 5000}, {230000, 25000}, {2000000, 200000}, {1234, 200}, {25, 5}, {1, 1}, {11000, 2000},
	} {
		if got := niceStep(c.top, 10); got != c.want {
			t.Errorf("niceStep(%d) = %d, want %d", c.top, got, c.want)
		}
	}
}

// TestIIBenchUsageKeys checks the Usage keys copied from internal/measure against it (a test
// may import it; the report package itself depends on result only).
func TestIIBenchUsageKeys(t *testing.T) {
	for theirs, ours := range map[string]string{measure.KeyCPU: usageCPU, measure.KeyReads: usageReads,
		measure.KeyReadKB: usageReadKB, measure.KeyWrites: usageWrites, measure.KeyWriteKB: usageWriteKB} {
		if theirs != ours {
			t.Errorf("measure's key %q, report uses %q", theirs, ours)
		}
	}
}
