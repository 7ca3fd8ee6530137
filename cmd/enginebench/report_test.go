package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture copies a run directory of the report's test data into a fresh directory named name
// and returns its path.
func fixture(t *testing.T, workload, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "internal", "report", "testdata", workload)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.json", "intervals.csv"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestReportOneRun(t *testing.T) {
	dir := fixture(t, "insert", "run1")
	stdout, _ := runOK(t, "report", dir)
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, filepath.Join(dir, "report.html")) {
		t.Errorf("stdout does not name the report: %q", stdout)
	}
	// One page with everything inline: no link to anything outside it.
	for _, bad := range []string{"<script src", "<link ", `src="http`, `href="http`, "url(", "@import", "<img "} {
		if strings.Contains(string(html), bad) {
			t.Errorf("report.html refers outside itself: %q", bad)
		}
	}
	for _, want := range []string{"Throughput relative to sqlite-normal", "1603 of 2000 (80.2%) missed", "<svg"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !strings.Contains(string(md), "### Throughput relative to sqlite-normal") || strings.Contains(string(md), "<svg") {
		t.Error("report.md is not the tables as markdown")
	}
}

func TestReportCombinesRuns(t *testing.T) {
	a, b := fixture(t, "iibench", "cached"), fixture(t, "iibench", "iobound")
	out := filepath.Join(t.TempDir(), "new", "cmp.html")
	runOK(t, "report", a, b, "--base", "iobound/pebble", "--ratio", "--out", out)
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cached/sqlite", "iobound/pebble", "iobound as % of cached", "Relative tables divide by <strong>iobound/pebble</strong>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("combined report lacks %q", want)
		}
	}
	if _, err := os.Stat(strings.TrimSuffix(out, ".html") + ".md"); err != nil {
		t.Errorf("no markdown beside the page: %v", err)
	}
}

func TestReportBadInput(t *testing.T) {
	ins, lb := fixture(t, "insert", "ins"), fixture(t, "linkbench", "lb")
	empty := t.TempDir()
	broken := filepath.Join(t.TempDir(), "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "run.json"), []byte("{not json"), 0o644)
	// run.json files that are JSON but no run, or a run cut short by a full disk.
	bad := func(name string, edit func(string) string) string {
		d := fixture(t, "insert", name)
		b, err := os.ReadFile(filepath.Join(d, "run.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "run.json"), []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	null := bad("null", func(string) string { return "null\n" })
	emptyObj := bad("empty", func(string) string { return "{}" })
	unknown := bad("unknown", func(s string) string {
		return strings.Replace(s, `"name": "insert"`, `"name": "ycsb"`, 1)
	})
	truncated := bad("truncated", func(s string) string { return s[:len(s)/2] })
	noConfigName := bad("noname", func(s string) string {
		return strings.Replace(s, `"name": "sqlite-normal"`, `"name": ""`, 1)
	})
	for _, c := range []struct {
		want string
		args []string
	}{
		{"at least one run directory", []string{"report"}},
		{"is not a run directory", []string{"report", filepath.Join(empty, "nosuch")}},
		{"is not a run directory", []string{"report", empty}},
		{"malformed", []string{"report", broken}},
		{null + "/run.json: not a run of enginebench: no run_id", []string{"report", null}},
		{emptyObj + "/run.json: not a run of enginebench: no run_id", []string{"report", emptyObj}},
		{unknown + `/run.json: unknown workload "ycsb" (known: insert, iibench, linkbench)`, []string{"report", unknown}},
		{truncated + "/run.json: malformed: unexpected end of JSON input", []string{"report", truncated}},
		{noConfigName + "/run.json: not a run of enginebench: configuration 1 has no name", []string{"report", noConfigName}},
		{"different workloads", []string{"report", ins, lb}},
		{"--base nosuch: no such configuration", []string{"report", ins, "--base", "nosuch"}},
		{"--ratio compares two runs", []string{"report", ins, "--ratio"}},
		{"cannot write the report", []string{"report", ins, "--out", "/dev/null/report.html"}},
		{"unknown flag", []string{"report", ins, "--bse", "x"}},
	} {
		t.Run(c.want, func(t *testing.T) { runBad(t, c.want, c.args...) })
	}
	for _, d := range []string{ins, null, emptyObj, unknown, truncated, noConfigName} {
		if _, err := os.Stat(filepath.Join(d, "report.html")); err == nil {
			t.Errorf("a report was written in %s despite bad input", d)
		}
	}
}
