package workload

import (
	"slices"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/result"
)

// A sample is the engine's when any frame is the engine's module or native code outside the
// kernel, else the harness's when a frame is enginebench's or another Go module's, else the
// runtime's; kernel frames count for nothing.
func TestProfileShares(t *testing.T) {
	kernel := &profile.Mapping{ID: 1, File: "[kernel.kallsyms]"}
	bin := &profile.Mapping{ID: 2, File: "/usr/bin/enginebench"}
	var fns []*profile.Function
	loc := func(name string, m *profile.Mapping) *profile.Location {
		f := &profile.Function{ID: uint64(len(fns) + 1), Name: name}
		fns = append(fns, f)
		return &profile.Location{ID: f.ID, Mapping: m, Line: []profile.Line{{Function: f}}}
	}
	stack := func(ns int64, locs ...*profile.Location) *profile.Sample {
		return &profile.Sample{Location: locs, Value: []int64{1, ns}}
	}
	worker := loc("github.com/enginebench/enginebench/internal/runner.(*Runner).Run.func1", bin)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			stack(1e9, loc("github.com/cockroachdb/pebble.(*DB).Get", bin), worker),
			stack(2e9, loc("rocksdb::DBImpl::Get", bin), loc("_cgo_topofstack", bin), worker),
			stack(4e9, loc("entry_SYSCALL_64", kernel), loc("syscall.Syscall", bin), worker),
			stack(8e9, loc("github.com/prometheus/procfs.(*Proc).Stat", bin)),
			stack(16e9, loc("runtime.gcBgMarkWorker", bin)),
			stack(32e9, loc("do_syscall_64", kernel)),
		},
	}
	got := profileShares(p, []string{"github.com/cockroachdb/pebble"})
	want := map[string]float64{result.ShareEngine: 3, result.ShareHarness: 12, result.ShareRuntime: 48}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v s, want %v (all %v)", k, got[k], v, got)
		}
	}
	if n, s := profileTotals(p); n != 6 || s != 63 {
		t.Errorf("totals %d samples %v s, want 6 and 63", n, s)
	}
}

func TestGoPackage(t *testing.T) {
	for name, want := range map[string]string{
		"runtime.mallocgc":                   "runtime",
		"github.com/a/b.(*T).M":              "github.com/a/b",
		"database/sql.(*DB).conn":            "database/sql",
		"gopkg.in/yaml%2ev3.(*parser).parse": "gopkg.in/yaml%2ev3",
		"sqlite3VdbeExec":                    "",
		"rocksdb::DB::Get":                   "",
		"[unknown]":                          "",
	} {
		got, ok := goPackage(name)
		if got != want || ok != (want != "") {
			t.Errorf("goPackage(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestParseProfiling(t *testing.T) {
	p, err := ParseProfiling("windows", 250, "software")
	if err != nil || p.CPU != result.ModeWindows || p.Hz != 250 || p.Counters != CountersSoftware || !p.On() {
		t.Fatalf("%+v %v", p, err)
	}
	if p, err := ParseProfiling("off", DefaultProfileHz, "off"); err != nil || p.On() {
		t.Errorf("off: %+v %v", p, err)
	}
	for _, bad := range []struct {
		cpu      string
		hz       int
		counters string
		flag     string
	}{{"always", 99, "off", "--cpu-profile"}, {"step", 0, "off", "--cpu-profile-hz"}, {"off", 99, "hardware", "--counters"}} {
		if _, err := ParseProfiling(bad.cpu, bad.hz, bad.counters); err == nil || err.Error()[:len(bad.flag)] != bad.flag {
			t.Errorf("%+v: %v, want an error naming %s", bad, err, bad.flag)
		}
	}
}

// --counters=all asks for the software events and the reference's groups once each, the
// reference's aliases of software events as the software events.
func TestCounterEvents(t *testing.T) {
	all := (&profiler{opt: Profiling{Counters: CountersAll}}).events()
	soft := (&profiler{opt: Profiling{Counters: CountersSoftware}}).events()
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e] || e == "migrations" || e == "faults" {
			t.Errorf("%s asked twice or by its alias: %v", e, all)
		}
		seen[e] = true
	}
	for _, e := range append(soft, "cycles", "instructions", "LLC-load-misses", "iTLB-load-misses", "alignment-faults") {
		if !seen[e] {
			t.Errorf("all lacks %s: %v", e, all)
		}
	}
	if len(soft) == 0 || slices.Contains(soft, "cycles") {
		t.Errorf("software events %v", soft)
	}
}
