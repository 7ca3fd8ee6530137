package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportHistoryOfTinyRuns makes three real tiny runs of sqlite, gives them to report
// --history out of order, and checks that it writes the page and says out loud that three
// runs are not enough history; then the bad input of --history.
func TestReportHistoryOfTinyRuns(t *testing.T) {
	integration(t, "runs sqlite three times")
	base := t.TempDir()
	var dirs []string
	for _, name := range []string{"n1", "n2", "n3"} {
		d := filepath.Join(base, name)
		runOK(t, "run", "--scale", "tiny", "--engines", "sqlite", "--rows", "1000", "--steps", "l.i0", "--no-calibrate",
			"--out", d, "--data-dir", filepath.Join(base, "data-"+name))
		dirs = append(dirs, d)
	}
	out := filepath.Join(base, "hist", "history.html")
	stdout, _ := runOK(t, "report", "--history", dirs[2], dirs[0], dirs[1], "--out", out)
	for _, want := range []string{"sqlite l.i0 (", "not enough history: 3 runs, need 6 (5 before the newest)", "in the newest run: 0 regressions"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="history">`, "run 1 n1", "run 3 n3", `id="chart-history-sqlite-l_i0-insert_per_sec"`, "not enough history"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the history page lacks %q", want)
		}
	}
	if md, err := os.ReadFile(filepath.Join(base, "hist", "history.md")); err != nil || !strings.Contains(string(md), "## History") {
		t.Errorf("history.md: %v", err)
	}
	lb := fixture(t, "linkbench", "lb")
	for _, c := range []struct {
		want string
		args []string
	}{
		{"at least one run directory", []string{"report", "--history"}},
		{"is not a run directory", []string{"report", "--history", dirs[0], base}},
		{"different workloads", []string{"report", "--history", dirs[0], lb}},
		{"--base and --ratio do not apply", []string{"report", "--history", dirs[0], "--base", "sqlite"}},
		{"--fail-on-regression needs --history", []string{"report", dirs[0], "--fail-on-regression"}},
	} {
		t.Run(c.want, func(t *testing.T) { runBad(t, c.want, c.args...) })
	}
}
