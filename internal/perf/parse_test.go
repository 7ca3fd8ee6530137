package perf

import (
	"os"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// testdata/script-dash-ls.txt is perf script -F +pid output of perf record -e cpu-clock
// -F 999 -g of sh running a loop and ls -lR, on this VM: kernel frames, libc's symbols, and
// [unknown] frames of the stripped dash and of no DSO at all.
func TestParseScript(t *testing.T) {
	b, err := os.ReadFile("testdata/script-dash-ls.txt")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseScript(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	p = roundTrip(t, p)
	if want := strings.Count(string(b), " cpu-clock:"); len(p.Sample) != want {
		t.Fatalf("%d samples, want %d", len(p.Sample), want)
	}
	for _, s := range p.Sample {
		if s.Value[0] != 1 || s.Value[1] != 1001001 || s.Label["comm"] == nil || s.NumLabel["pid"] == nil {
			t.Fatalf("sample %v %v %v, want 1 sample of 1001001 ns with comm and pid", s.Value, s.Label, s.NumLabel)
		}
	}
	if leaf := p.Sample[0].Location[0].Line[0].Function; leaf.Name != "__vfprintf_internal" || leaf.Filename != "/usr/lib/x86_64-linux-gnu/libc.so.6" {
		t.Errorf("first sample's leaf %+v, want libc's __vfprintf_internal", leaf)
	}
	names := map[string]string{}
	for _, f := range p.Function {
		names[f.Name] = f.Filename
	}
	for name, file := range map[string]string{
		"__d_lookup_rcu": "[kernel.kallsyms]", // kernel frames, without their offset
		"[dash]":         "/usr/bin/dash",     // unknown symbols of a known DSO
		"0x1001d":        "",                  // neither known
	} {
		if got, ok := names[name]; !ok || got != file {
			t.Errorf("function %s of %q: found %v in %q", name, file, ok, got)
		}
	}
	maps := map[string]bool{}
	for _, m := range p.Mapping {
		maps[m.File] = true
	}
	if !maps["[kernel.kallsyms]"] || !maps["/usr/bin/dash"] || maps["[unknown]"] {
		t.Errorf("mappings %v, want one per known DSO", maps)
	}
	if p.Period != 1001001 || p.DurationNanos <= 0 {
		t.Errorf("period %d, duration %d", p.Period, p.DurationNanos)
	}
}

func TestParseScriptRefusesOtherText(t *testing.T) {
	if _, err := ParseScript(strings.NewReader("\tffff81 kfree+0x3c ([kernel.kallsyms])\n")); err == nil {
		t.Error("a frame without a sample parsed")
	}
}

func parseStatFile(t *testing.T, name string) map[string]result.Counter {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ParseStat(f)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]result.Counter{}
	for _, c := range cs {
		m[c.Event] = c
	}
	if len(m) != len(cs) {
		t.Fatalf("%d counters, %d events", len(cs), len(m))
	}
	return m
}

// testdata/stat-vm.csv is perf stat -x, of ls -lR on this VM: software events counted,
// hardware events not supported.
func TestParseStatOfAVM(t *testing.T) {
	m := parseStatFile(t, "testdata/stat-vm.csv")
	if len(m) != 10 {
		t.Errorf("%d counters, want 10", len(m))
	}
	if tc := m["task-clock"]; tc.Value == nil || *tc.Value != 966.79 || tc.Unit != "msec" || tc.RunningPct != nil {
		t.Errorf("task-clock %+v", tc)
	}
	if cs := m["context-switches"]; cs.Value == nil || *cs.Value != 7353 || cs.Unit != "" {
		t.Errorf("context-switches %+v", cs)
	}
	if c := m["cycles"]; c.Value != nil || c.Reason != "<not supported>" {
		t.Errorf("cycles %+v, want <not supported>", c)
	}
}

// testdata/stat-hardware.csv was written by hand in perf's -x format (its comment says so).
func TestParseStatOfMultiplexedHardwareEvents(t *testing.T) {
	m := parseStatFile(t, "testdata/stat-hardware.csv")
	if len(m) != 7 {
		t.Errorf("%d counters, want 7 (the metric line is not one)", len(m))
	}
	if c := m["cycles"]; c.Value == nil || *c.Value != 31520934311 || c.RunningPct == nil || *c.RunningPct != 50 {
		t.Errorf("cycles %+v, want a value running 50%%", c)
	}
	if tc := m["task-clock"]; tc.RunningPct != nil {
		t.Errorf("task-clock ran all the time, has running pct %v", *tc.RunningPct)
	}
	if c := m["LLC-prefetches"]; c.Value != nil || c.Reason != "<not counted>" || c.RunningPct != nil {
		t.Errorf("LLC-prefetches %+v, want <not counted>", c)
	}
}

func TestInOrderAnswersEveryEventAsked(t *testing.T) {
	v := 1.0
	got := []result.Counter{{Event: "cpu_atom/cycles/", Value: &v}, {Event: "task-clock", Value: &v}}
	cs := inOrder([]string{"task-clock", "cycles", "faults"}, got)
	if cs[0].Event != "task-clock" || cs[1].Event != "cycles" || cs[1].Value == nil || cs[2].Value != nil || cs[2].Reason == "" {
		t.Errorf("%+v", cs)
	}
}
