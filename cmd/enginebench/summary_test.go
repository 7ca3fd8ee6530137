package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// screenLines is a terminal's screen: the brief summary must fit in one.
const screenLines = 50

// fullOnly are tables of an Insert Benchmark run that the brief summary leaves to summary.md
// and --summary full: the steps, the latency, a step's efficiency, the cleanup's engine debt
// and the resources.
var fullOnly = []string{"│ Steps ", "│ Latency ", "│ Efficiency: l.i0 ", "│ Efficiency: qp1000 ", "│ Cleanup: engine debt before and after", "│ Resources per second"}

// TestRunPrintsBriefSummary runs the Insert Benchmark at tiny scale on sqlite and pebble twice:
// by default it prints the brief summary, on a screen, with the top summary, the throughput
// table and the paths of the results and the report, and none of the tables summary.md has
// besides; with --summary full it prints them.
func TestRunPrintsBriefSummary(t *testing.T) {
	integration(t, "runs two tiny Insert Benchmarks")
	args, out := tinyArgs(t, "sqlite,pebble", "--query-seconds", "1")
	brief, _ := runOK(t, args...)
	lines := strings.Count(brief, "\n")
	t.Logf("the brief summary: %d lines\n%s", lines, brief)
	if lines >= screenLines {
		t.Errorf("the brief summary has %d lines, want fewer than %d (a screen)", lines, screenLines)
	}
	for _, want := range []string{"│ At a glance (relative to sqlite)", "│ Throughput ", "│ QP1000 QPS",
		"\nsqlite: sqlite ", "\npebble: pebble ", "\nresults: " + out + "\n", "\nreport:  " + filepath.Join(out, "report.html") + "\n",
		"more tables and the legend are in summary.md and the report (report.html, report.md); run --summary full prints them."} {
		if !strings.Contains(brief, want) {
			t.Errorf("the brief summary lacks %q", want)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range fullOnly {
		if strings.Contains(brief, title) {
			t.Errorf("the brief summary prints %q", title)
		}
		if !strings.Contains(string(md), "## "+strings.TrimSpace(strings.TrimPrefix(title, "│ "))) {
			t.Errorf("summary.md lacks %q", title)
		}
	}

	checkFlagsPrinted(t, loadRun(t, out), brief, string(md))

	args, out = tinyArgs(t, "sqlite,pebble", "--query-seconds", "1", "--summary", "full")
	full, _ := runOK(t, args...)
	for _, want := range append(fullOnly, "│ At a glance (relative to sqlite)", "│ Throughput ", "\nreport:  "+filepath.Join(out, "report.html")+"\n") {
		if !strings.Contains(full, want) {
			t.Errorf("--summary full lacks %q", want)
		}
	}
	if strings.Contains(full, "run --summary full prints them") || strings.Count(full, "\n") <= 2*lines {
		t.Errorf("--summary full printed %d lines, the brief %d:\n%s", strings.Count(full, "\n"), lines, full)
	}
}

// checkFlagsPrinted checks the verdicts run recorded against the brief summary and summary.md:
// with verdicts, the brief summary counts them and says the first flag by its message, and
// summary.md has every flag and their tables; without any, neither shows a flag or a verdict.
func checkFlagsPrinted(t *testing.T, run *result.Run, brief, md string) {
	t.Helper()
	var all []result.Verdict
	all = append(all, run.Verdicts...)
	for _, c := range run.Configs {
		for _, s := range c.Steps {
			all = append(all, s.Verdicts...)
		}
	}
	flagged := result.Flagged(all)
	t.Logf("%d verdicts, %d flagged", len(all), len(flagged))
	if len(all) == 0 {
		if strings.Contains(brief, "Flags: ") || strings.Contains(md, "## Verdicts") {
			t.Errorf("a run without verdicts shows flags or verdicts")
		}
		return
	}
	count := func(n int, noun string) string {
		switch n {
		case 0:
			return "no " + noun
		case 1:
			return "1 " + noun
		}
		return strconv.Itoa(n) + " " + noun + "s"
	}
	want := "\nFlags: " + count(len(flagged), "flag") + " of " + count(len(all), "check")
	if !strings.Contains(brief, want) || !strings.Contains(md, "## Verdicts: the ") {
		t.Errorf("the brief summary lacks %q, or summary.md the verdicts' tables", want)
	}
	for i, v := range flagged {
		if i == 0 && v.Message != "" && !strings.Contains(brief, v.Message) {
			t.Errorf("the brief summary does not say the first flag %q", v.Message)
		}
		if v.Message != "" && !strings.Contains(md, v.Message) {
			t.Errorf("summary.md does not say the flag %q", v.Message)
		}
	}
}
