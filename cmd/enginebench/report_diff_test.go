package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/result"
)

// writeCPUProfile writes a pprof file at path of one stack per leaf under main, each leaf's
// CPU in milliseconds.
func writeCPUProfile(t *testing.T, path string, leaves map[string]int64) {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	main := &profile.Function{ID: 1, Name: "main"}
	p.Function = append(p.Function, main)
	p.Location = append(p.Location, &profile.Location{ID: 1, Line: []profile.Line{{Function: main}}})
	for name, ms := range leaves {
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Function, p.Location = append(p.Function, f), append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l, p.Location[0]}, Value: []int64{ms * 1_000_000}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// profiledRun makes a run directory of two configurations whose l.i1 was profiled and
// counted: b did twice a's inserts with four times a's CPU in put.
func profiledRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r := &result.Run{RunID: "p", StartedAt: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Status: result.StatusOK, Workload: result.Workload{Name: "insert"}}
	for i, name := range []string{"a", "b"} {
		ops := float64(1000 * (i + 1))
		file := "profiles/" + name + "/l.i1.pb.gz"
		writeCPUProfile(t, filepath.Join(dir, file), map[string]int64{"put": 100 * int64(1+3*i), "sync": 50 * int64(i+1)})
		cycles := 1e9 * float64(i+1)
		s := result.Step{Name: "l.i1", Status: result.StatusOK, Seconds: 10, Primary: "insert",
			Ops:      map[string]*result.Op{"insert": {Count: int64(ops), Units: int64(ops), PerSec: ops / 10}},
			Profile:  &result.Profile{File: file, Tool: "runtime/pprof", Of: result.OfEnginebench, Samples: 10, CPUSeconds: 0.15, PerOp: "insert", Ops: ops},
			Counters: &result.Counters{Tool: "perf stat", Of: result.OfEnginebench, PerOp: "insert", Ops: ops, Events: []result.Counter{{Event: "cycles", Value: &cycles}, {Event: "cache-misses", Reason: "<not counted>"}}},
		}
		r.Configs = append(r.Configs, result.Config{Name: name, Engine: "pebble", Status: result.StatusOK, Steps: []result.Step{s}})
	}
	if err := result.OpenDir(dir).WriteRun(r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportDiff(t *testing.T) {
	dir := profiledRun(t)
	for _, args := range [][]string{{"report", "--diff", "a", "b", dir}, {"report", dir, "--diff", "a,b", "--step", "l.i1"}} {
		stdout, _ := runOK(t, args...)
		for _, want := range []string{"step l.i1", filepath.Join(dir, "profiles/a/l.i1.pb.gz"), filepath.Join(dir, "profiles/b/l.i1.pb.gz"),
			filepath.Join(dir, "run.json"), "put", "2.00", "- (<not counted>)"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: no %q in\n%s", args, want, stdout)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "diff.txt")
	stdout, _ := runOK(t, "report", "--diff", "b,a", dir, "--out", out)
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "b (A) and a (B)") || !strings.Contains(stdout, out) {
		t.Errorf("--out: %q (%v), stdout %q", b, err, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("--diff wrote the report")
	}
}

func TestReportDiffBadInput(t *testing.T) {
	dir := profiledRun(t)
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--diff compares two configurations", []string{"report", "--diff", "a", dir}},
		{"--diff compares two configurations", []string{"report", "--diff", "a,b,c", dir}},
		{"--diff nosuch: no such configuration; the configurations are: a, b", []string{"report", "--diff", "a", "nosuch", dir}},
		{"name two different configurations", []string{"report", "--diff", "a,a", dir}},
		{"--step l.i9: no configuration profiled or counted it", []string{"report", "--diff", "a,b", "--step", "l.i9", dir}},
		{"--step needs --diff", []string{"report", "--step", "l.i1", dir}},
		{"is not a run directory", []string{"report", "--diff", "a,b", t.TempDir()}},
	} {
		t.Run(c.want, func(t *testing.T) { runBad(t, c.want, c.args...) })
	}
}
