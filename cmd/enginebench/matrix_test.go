package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
)

// matrixSpecText is a run spec of four embedded configurations of one tiny step; the last has
// a bad setting, which only a run of that configuration checks.
const matrixSpecText = `workload: insert
scale: tiny
params: {rows: 1000, steps: [l.i0]}
configs:
  - name: pebble-a
    engine: pebble
  - name: pebble-b
    engine: pebble
    settings: {compression: zstd}
  - name: sqlite-c
    engine: sqlite
  - name: broken
    engine: pebble
    settings: {cache_mb: lots}
`

func TestConfigIndexBadInput(t *testing.T) {
	spec := writeSpec(t, matrixSpecText)
	cases := []struct {
		name, env string
		args      []string
		want      string
	}{
		{"past the end", "", []string{"--config-index", "4"}, "--config-index 4: " + spec + " has 4 configurations, indexed 0 to 3"},
		{"negative", "", []string{"--config-index", "-1"}, "--config-index -1: " + spec + " has 4 configurations"},
		{"not a number", "", []string{"--config-index", "two"}, `--config-index "two": want the index of a configuration of ` + spec + ", 0 to 3"},
		{"empty", "", []string{"--config-index="}, `--config-index "": want the index`},
		{"job index past the end", "7", nil, "JOB_COMPLETION_INDEX 7: " + spec + " has 4 configurations, indexed 0 to 3"},
		{"the configuration that runs is checked", "", []string{"--config-index", "3"}, "configuration broken: "},
		{"so by the job's index", "3", nil, "cache_mb"},
		{"job index not a number", "x1", nil, `JOB_COMPLETION_INDEX "x1": want the index`},
		{"a bad flag wins over a good job index", "1", []string{"--config-index", "9"}, "--config-index 9: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(shard.JobIndexEnv, c.env)
			out := filepath.Join(t.TempDir(), "results")
			args := append([]string{"run", "--config", spec, "--out", out, "--data-dir", filepath.Join(t.TempDir(), "d")}, c.args...)
			runBad(t, c.want, args...)
			if _, err := os.Stat(out); err == nil {
				t.Error("a results directory was created")
			}
		})
	}
	t.Run("without a run spec", func(t *testing.T) {
		t.Setenv(shard.JobIndexEnv, "")
		runBad(t, "--config-index 0 selects a configuration of a run spec: give --config FILE.yaml",
			"run", "--engines", "pebble", "--config-index", "0", "--out", filepath.Join(t.TempDir(), "r"))
	})
}

// TestConfigIndexRunsOneConfiguration runs three configurations of a spec each on its own, by
// --config-index and by JOB_COMPLETION_INDEX (the fourth, with a bad setting, is not checked
// by their runs), and joins the three runs in one report.
func TestConfigIndexRunsOneConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three tiny runs")
	}
	spec := writeSpec(t, matrixSpecText)
	dir := t.TempDir()
	runIndex := func(k string, env string, extra ...string) (*result.Run, string, string) {
		t.Setenv(shard.JobIndexEnv, env)
		out := filepath.Join(dir, "results-"+k)
		args := append([]string{"run", "--config", spec, "--out", out, "--data-dir", filepath.Join(dir, "data-"+k)}, extra...)
		_, stderr := runOK(t, args...)
		return loadRun(t, out), out, stderr
	}
	r1, out1, stderr1 := runIndex("1", "2", "--config-index", "1") // the flag wins over the job's index
	r2, out2, stderr2 := runIndex("2", "2")
	r0, out0, _ := runIndex("0", "0", "--no-calibrate")
	for k, c := range []struct {
		r          *result.Run
		name       string
		calibrated bool
	}{{r0, "pebble-a", false}, {r1, "pebble-b", true}, {r2, "sqlite-c", true}} {
		if len(c.r.Configs) != 1 || c.r.Configs[0].Name != c.name || c.r.Configs[0].Status != result.StatusOK {
			t.Errorf("index %d: configurations %v, want only %s, ok", k, c.r.Configs, c.name)
		}
		m := c.r.Matrix
		if m == nil || m.Index != k || m.Count != 4 || m.Config != c.name || m.Spec != spec || len(m.SpecSHA256) != 64 || m.SpecSHA256 != r0.Matrix.SpecSHA256 {
			t.Errorf("index %d: matrix mark %+v", k, m)
		}
		if !strings.HasSuffix(c.r.RunID, "-insert-"+c.name) {
			t.Errorf("index %d: run id %s, want it to end with the configuration's name", k, c.r.RunID)
		}
		if cal := c.r.Calibration; c.calibrated != (cal != nil) || (cal != nil && (cal.CPUNsPerIter == nil || *cal.CPUNsPerIter <= 0 || cal.FsyncP50Us == nil)) {
			t.Errorf("index %d: calibration %+v, want one: %v", k, cal, c.calibrated)
		}
	}
	if r1.Configs[0].Settings["compression"] != "zstd" {
		t.Errorf("pebble-b's settings %v: want its own from the spec", r1.Configs[0].Settings)
	}
	for _, want := range []string{"only configuration pebble-b runs: index 1 of the 4 of " + spec + " (from --config-index)", "enginebench: calibration: CPU loop "} {
		if !strings.Contains(stderr1, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr1)
		}
	}
	if !strings.Contains(stderr2, "only configuration sqlite-c runs: index 2 of the 4 of "+spec+" (from JOB_COMPLETION_INDEX)") {
		t.Errorf("stderr of the job's index:\n%s", stderr2)
	}

	// One report of the three, given out of order: one comparison in the spec's order, by name.
	html := filepath.Join(dir, "matrix.html")
	stdout, _ := runOK(t, "report", out2, out0, out1, "--out", html, "--base", "pebble-b")
	if strings.Contains(stdout, "WARNING") {
		t.Errorf("runs of one host warned of:\n%s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(dir, "matrix.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"configurations 0, 1, 2 of 4, each run on its own (--config-index); not among these runs: 3", "### Throughput relative to pebble-b",
		"| pebble-a |", "| sqlite-c |", "Host fingerprint and calibration"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if a, b, c := strings.Index(string(md), "| pebble-a |"), strings.Index(string(md), "| pebble-b |"), strings.Index(string(md), "| sqlite-c |"); a > b || b > c {
		t.Error("the configurations are not in the spec's order")
	}

	// The same runs with one from another kind of host: the terminal and the page warn.
	setHost(t, out1, func(h *result.Host) { h.CPUModel, h.Kernel = "Some Other CPU", "4.19.0-old" })
	stdout, _ = runOK(t, "report", out0, out1, out2, "--out", html)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	warn := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "WARNING: run results-1 ran on a host unlike run results-0's: ")
	})
	if warn < 0 || !strings.Contains(lines[warn], "vs Some Other CPU") || !strings.Contains(lines[warn], "vs 4.19.0-old") {
		t.Errorf("stdout has no warning line naming the CPU model and kernel:\n%s", stdout)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "matrix.md")); !strings.Contains(string(md), "**WARNING:** run results-1 ran on a host unlike") {
		t.Error("report.md has no warning")
	}
}

// setHost changes the host of the run.json in dir.
func setHost(t *testing.T, dir string, change func(*result.Host)) {
	t.Helper()
	r := loadRun(t, dir)
	change(&r.Host)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
