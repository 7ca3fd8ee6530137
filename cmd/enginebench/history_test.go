package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
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

// writeNights writes one sqlite run directory per rate under base, a day apart (nightN, its
// step l.i0 at that insert rate), built from result types as a run writes them, and returns
// their paths, oldest first.
func writeNights(t *testing.T, base string, rates []float64) []string {
	t.Helper()
	var dirs []string
	t0 := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	for i, rate := range rates {
		r := &result.Run{Tool: result.Tool{Version: "t"}, RunID: fmt.Sprintf("night%d", i), StartedAt: t0.AddDate(0, 0, i),
			Status: result.StatusOK, Workload: result.Workload{Name: "insert", Scale: "tiny"},
			Configs: []result.Config{{Name: "sqlite", Engine: "sqlite", Status: result.StatusOK, Steps: []result.Step{{
				Name: "l.i0", Status: result.StatusOK, Seconds: 10, Primary: "insert",
				Ops: map[string]*result.Op{"insert": {Count: 100, Units: int64(rate * 10), PerSec: rate}}}}}}}
		d, err := result.CreateDir(filepath.Join(base, r.RunID))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteRun(r); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d.Path())
	}
	return dirs
}

// TestReportHistoryFailOnRegression writes eight nightly runs (built from result types) whose
// newest insert rate is 30% below the others: report --history exits 0 and names the
// regression; with --fail-on-regression it exits 1 after writing the page, by the lookback
// test (the default) or both; one bad night is no change point, so --regression-method
// changepoint exits 0.
func TestReportHistoryFailOnRegression(t *testing.T) {
	base := t.TempDir()
	var rates []float64
	for i := range 8 {
		rates = append(rates, 10000+float64(100*(i%3))) // ±1% from night to night
	}
	rates[7] = 7000
	dirs := writeNights(t, base, rates)
	args := append([]string{"report", "--history", "--out", filepath.Join(base, "h.html")}, dirs...)
	stdout, _ := runOK(t, args...)
	if !strings.Contains(stdout, "REGRESSION: sqlite l.i0 insert per_sec: 7000 in run 8 night7") {
		t.Errorf("stdout does not name the regression:\n%s", stdout)
	}
	for _, method := range []string{"", "lookback", "both"} {
		a := append(args, "--fail-on-regression")
		if method != "" {
			a = append(a, "--regression-method", method)
		}
		code, stdout, stderr := runCLI(t, a...)
		if code != exitFailed || !strings.Contains(stderr, "1 regressions in the newest run") || !strings.Contains(stdout, "report: ") {
			t.Errorf("--fail-on-regression (method %q): exit %d, stderr %q, stdout %q", method, code, stderr, stdout)
		}
	}
	runOK(t, append(args, "--fail-on-regression", "--regression-method", "changepoint")...)
}

// TestReportHistoryChangePoint writes 20 nightly runs whose insert rate drops 20% at night 13
// (±1% from night to night): by the newest run the lookback test's median has moved to the
// new level, so it flags nothing, but the change point is found at night 13, in the page's
// table and in the terminal, and --fail-on-regression fails on it with --regression-method
// changepoint or both, not lookback. Then the bad input of --regression-method.
func TestReportHistoryChangePoint(t *testing.T) {
	base := t.TempDir()
	var rates []float64
	for i := range 20 {
		rate := 10000.0
		if i >= 13 {
			rate = 8000
		}
		rates = append(rates, rate*(1+0.01*float64(i%3-1)))
	}
	dirs := writeNights(t, base, rates)
	out := filepath.Join(base, "h.html")
	args := append([]string{"report", "--history", "--out", out}, dirs...)
	stdout, _ := runOK(t, append(args, "--fail-on-regression")...) // lookback, the default
	if want := "CHANGE POINT, REGRESSION: sqlite l.i0 insert per_sec: from run 14 night13"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if !strings.Contains(stdout, "in the newest run: 0 regressions") {
		t.Errorf("the lookback test flags the newest run:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(base, "h.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 14 night13 | sqlite | l.i0 | insert per_sec |") {
		t.Errorf("h.md has no change point at run 14 night13:\n%s", md)
	}
	for _, method := range []string{"changepoint", "both"} {
		code, _, stderr := runCLI(t, append(args, "--fail-on-regression", "--regression-method", method)...)
		if code != exitFailed || !strings.Contains(stderr, "1 series whose newest change point is a regression among the newest 10 runs") {
			t.Errorf("--regression-method %s: exit %d, stderr %q", method, code, stderr)
		}
	}
	for _, c := range []struct {
		want string
		args []string
	}{
		{`--regression-method "zscore": want one of lookback, changepoint, both`, []string{"--fail-on-regression", "--regression-method", "zscore"}},
		{"--regression-method chooses what --fail-on-regression fails on", []string{"--regression-method", "both"}},
	} {
		t.Run(c.want, func(t *testing.T) { runBad(t, c.want, append(args, c.args...)...) })
	}
}
