package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// TestIIBenchTinyRun runs iiBench from the command line at tiny scale on SQLite and Pebble,
// with one secondary index, a shared domain flag and a price, and checks the results and the
// summary.
func TestIIBenchTinyRun(t *testing.T) {
	integration(t, "integration test")
	args, out := tinyArgs(t, "sqlite,pebble", "--secondary-indexes", "1", "--report-seconds", "1",
		"--cost-per-hour", "1.68", "--max-price", "50", "--query-limit", "100")
	stdout, _ := runOK(t, slices.Insert(args, 1, "iibench")...)
	run := loadRun(t, out)
	if run.Workload.Name != "iibench" || run.Status != result.StatusOK || len(run.Configs) != 2 {
		t.Fatalf("workload %q, status %q, %d configs", run.Workload.Name, run.Status, len(run.Configs))
	}
	p := run.Workload.Params
	if p["secondary_indexes"] != float64(1) || p["query_threads"] != float64(2) || p["max_price"] != float64(50) ||
		p["max_rows"] != float64(50000) || p["variant"] != "reference" || p["query_after_rows"] != float64(0) {
		t.Errorf("params %v", p)
	}
	for _, c := range run.Configs {
		if len(c.Steps) != 1 || c.Steps[0].Name != "run" {
			t.Fatalf("%s: steps %+v", c.Name, c.Steps)
		}
		s := c.Steps[0]
		if s.Status != result.StatusOK || s.Verify == nil || !s.Verify.OK ||
			!strings.Contains(s.Verify.Detail, "pk=50000 marketsegment=50000") || strings.Contains(s.Verify.Detail, "pdc") {
			t.Errorf("%s: %s %s, verify %+v", c.Name, s.Status, s.Error, s.Verify)
		}
		if len(s.Periods) == 0 || s.Periods[len(s.Periods)-1].Rows != 50000 {
			t.Errorf("%s: periods %+v", c.Name, s.Periods)
		}
		if s.Cost == nil || s.Cost.PerHour != 1.68 || s.Cost.PerBillionInserts == nil {
			t.Errorf("%s: cost %+v", c.Name, s.Cost)
		}
		if s.Size == nil || s.Size.DBGB1 == nil {
			t.Errorf("%s: no database size", c.Name)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The brief summary printed shows iiBench's published table; summary.md every table.
	if !strings.Contains(stdout, "│ iiBench ") || !strings.Contains(string(md), "## iiBench\n") {
		t.Errorf("the iiBench table is not in the printed summary and summary.md:\n%s", stdout)
	}
	for _, want := range []string{"Rates against rows inserted", "Cost", "Latency per operation"} {
		if strings.Contains(stdout, "│ "+want) || !strings.Contains(string(md), "## "+want) {
			t.Errorf("%q is in the brief printed summary, or not in summary.md", want)
		}
	}
}

// iibenchReport matches a periodic report of iiBench's step (runner/progress.go's period line,
// after the configuration's name: "sqlite run 0:02: ...").
var iibenchReport = regexp.MustCompile(`(?m)^(?:\S+ )?run [0-9:]+: [^\n]*`)

// TestIIBenchInterrupt interrupts an iiBench run limited by time: the step is recorded as
// interrupted with the inserts and queries it did, the statements the interrupt cancelled in
// flight (SQLite aborts them) are no errors, and the data is removed.
func TestIIBenchInterrupt(t *testing.T) {
	integration(t, "builds the binary")
	run, out, data := startTiny(t, "run", "iibench", "--scale", "tiny", "--engines", "sqlite", "--max-rows", "0",
		"--seconds", "600", "--max-insert-rate", "20000", "--report-seconds", "1")
	run.waitForOutput(t, "two reports with inserts and queries", func(stderr string) bool {
		reports := iibenchReport.FindAllString(stderr, -1)
		return len(reports) >= 2 && strings.Contains(reports[len(reports)-1], " insert ") &&
			strings.Contains(reports[len(reports)-1], " query ")
	})
	r := run.interrupt(t, out)
	if r.Status != result.StatusInterrupted || len(r.Configs) != 1 || len(r.Configs[0].Steps) != 1 {
		t.Fatalf("run status %q, configs %+v", r.Status, r.Configs)
	}
	s := r.Configs[0].Steps[0]
	if s.Status != result.StatusInterrupted || s.Ops["insert"] == nil || s.Ops["insert"].Units == 0 ||
		s.Ops["query"] == nil || s.Ops["query"].Units == 0 {
		t.Fatalf("step after interrupt: %s, ops %+v", s.Status, s.Ops)
	}
	if len(s.Periods) < 2 {
		t.Errorf("%d periods after two 1-second reports", len(s.Periods))
	}
	// The operations the interrupt cut short are no errors of the engine.
	if s.Ops["insert"].Errors != 0 || s.Ops["query"].Errors != 0 {
		t.Errorf("errors after the interrupt: insert %d, query %d; want 0", s.Ops["insert"].Errors, s.Ops["query"].Errors)
	}
	checkRemoved(t, filepath.Join(data, "sqlite"))
}
