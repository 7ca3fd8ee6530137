package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The capacity search's bad input: one line, exit 2, nothing written.
func TestCapacityBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"option without --capacity", []string{"--capacity-start", "50"}, "--capacity-start: only with --capacity"},
		{"zero start", []string{"--capacity", "--capacity-start", "0"}, "--capacity-start 0: want a rate above 0"},
		{"factor of one", []string{"linkbench", "--capacity", "--capacity-step", "1"}, "--capacity-step 1: want a factor above 1 and at most 100"},
		{"short level", []string{"--capacity", "--capacity-level-seconds", "0.5"}, "--capacity-level-seconds 0.5: want at least 1"},
		{"negative cool-off", []string{"--capacity", "--capacity-cooloff", "-1"}, "--capacity-cooloff -1: want 0 or more seconds"},
		{"negative p99", []string{"--capacity", "--capacity-p99", "-1s"}, "--capacity-p99 -1s: want 0 (not judged)"},
		{"p99 not a duration", []string{"--capacity", "--capacity-p99", "soon"}, `invalid argument "soon" for "--capacity-p99"`},
		{"debt without a limit", []string{"--capacity", "--capacity-debt", "l0_files"}, `--capacity-debt "l0_files": want COUNTER=LIMIT`},
		{"negative debt", []string{"linkbench", "--capacity", "--capacity-debt", "dead_tuples=-1"}, `--capacity-debt "dead_tuples=-1": want COUNTER=LIMIT`},
		{"levels", []string{"--capacity", "--capacity-max-levels", "0"}, "--capacity-max-levels 0: want 1 to 100"},
		{"without l.x", []string{"--capacity", "--steps", "l.i0,l.i1"}, "--capacity: its levels query the secondary indexes: include l.x in --steps"},
		{"linkbench without run", []string{"linkbench", "--capacity", "--steps", "load"}, "--capacity: its levels are request steps: include run in --steps"},
		{"linkbench with a request limit", []string{"linkbench", "--capacity", "--requests", "5"}, "--capacity with --requests"},
		{"iibench", []string{"iibench", "--capacity"}, "--capacity: not a parameter of the iibench workload (insert, linkbench only)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results")
			runBad(t, c.want, append([]string{"run", "--scale", "tiny", "--engines", "null", "--out", out,
				"--data-dir", filepath.Join(t.TempDir(), "d")}, c.args...)...)
			if _, err := os.Stat(out); err == nil {
				t.Error("a results directory was written")
			}
		})
	}
}

// A run with --capacity on the null engine ends with its levels, records the search in
// run.json and shows it in the summary and report.md.
func TestCapacityRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := runCLI(t, "run", "--scale", "tiny", "--engines", "null", "--steps", "l.i0,l.x", "--out", out,
		"--data-dir", filepath.Join(t.TempDir(), "d"), "--capacity", "--capacity-level-seconds", "1", "--capacity-cooloff", "0",
		"--capacity-max-levels", "2", "--capacity-debt", "l0_files=5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := loadRun(t, out)
	c := r.Configs[0]
	if c.Capacity == nil || len(c.Capacity.Levels) == 0 || c.Capacity.Units != "rows/s per client" {
		t.Fatalf("capacity %+v", c.Capacity)
	}
	var names []string
	for _, s := range c.Steps {
		names = append(names, s.Name)
	}
	if names[2] != "cap.1" || c.Steps[2].Capacity == nil || c.Steps[2].Capacity.Rate != 100 {
		t.Errorf("steps %v, cap.1 %+v", names, c.Steps[2].Capacity)
	}
	for _, l := range c.Capacity.Levels {
		if len(l.DebtUnmeasured) != 1 || l.DebtUnmeasured[0] != "l0_files" {
			t.Errorf("%s: null reports no l0_files: debt %v, unmeasured %v", l.Step, l.Debt, l.DebtUnmeasured)
		}
	}
	if r.Workload.Params["capacity"] == nil {
		t.Error("no capacity in workload.params")
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The brief summary printed shows the best rate; report.md the levels too.
	if !strings.Contains(stdout, "Capacity: best sustainable rate") || strings.Contains(stdout, "l0_files=-") {
		t.Errorf("the printed summary lacks the best rate or shows the levels:\n%s", stdout)
	}
	if !strings.Contains(string(md), "Capacity: best sustainable rate") || !strings.Contains(string(md), "l0_files=-") {
		t.Errorf("no capacity tables in\n%.3000s", md)
	}
}

// A run spec's params set the capacity search, its debt limits as a list.
func TestCapacityFromRunSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("scale: tiny\nparams:\n  steps: [l.i0, l.x]\n  capacity: true\n  capacity-level-seconds: 1\n"+
		"  capacity-cooloff: 0\n  capacity-max-levels: 1\n  capacity-debt: [l0_files=5, dead_tuples=7]\nconfigs:\n  - name: n\n    engine: \"null\"\n"), 0o644)
	out := filepath.Join(dir, "results")
	code, _, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--data-dir", filepath.Join(dir, "d"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := loadRun(t, out)
	p, _ := r.Workload.Params["capacity"].(map[string]any)
	debt, _ := p["debt"].(map[string]any)
	if len(debt) != 2 || debt["l0_files"] != 5.0 || debt["dead_tuples"] != 7.0 {
		t.Errorf("params.capacity %v", p)
	}
	if c := r.Configs[0].Capacity; c == nil || len(c.Levels) != 1 {
		t.Errorf("capacity %+v", c)
	}
}
