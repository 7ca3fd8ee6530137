package linkbench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

func TestScalePresets(t *testing.T) {
	want := map[string][5]float64{ // maxid1, loaders, requesters, intervals, seconds
		"tiny": {10_001, 1, 2, 2, 3}, "small": {200_001, 2, 4, 3, 20},
		"cached": {10_000_001, 4, 16, 6, 600}, "iobound": {10_000_001, 4, 16, 24, 90},
	}
	for name, w := range want {
		p, err := DefaultParams(name)
		if err != nil {
			t.Fatal(err)
		}
		got := [5]float64{float64(p.MaxID1), float64(p.Loaders), float64(p.Requesters), float64(p.Intervals), p.IntervalSeconds}
		if got != w {
			t.Errorf("%s: %v, want %v", name, got, w)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if p.LinkTypes != 2 || p.Profile != "fb2011" || p.RangeLimit != 10000 || p.LoadChunk != 2048 || p.LoadBatch != 1024 {
			t.Errorf("%s: defaults %+v", name, p)
		}
	}
	if _, err := DefaultParams("huge"); err == nil || !strings.Contains(err.Error(), "tiny, small, cached, iobound") {
		t.Errorf("unknown scale: %v", err)
	}
}

func TestValidateRefusesBadParams(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.dat")
	if err := os.WriteFile(bad, []byte("nlinks\n0 50\n1 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		set  func(*Params)
		want string
	}{
		{"maxid1", func(p *Params) { p.MaxID1 = 1 }, "--maxid1 must be > --startid1"},
		{"loaders", func(p *Params) { p.Loaders = 0 }, "--loaders must be > 0"},
		{"requesters", func(p *Params) { p.Requesters = 5000 }, "at most 1024 loaders and 4096 requesters"},
		{"interval", func(p *Params) { p.IntervalSeconds = 0 }, "--interval-seconds must be > 0"},
		{"rate", func(p *Params) { p.RequestRate = -1 }, "must be >= 0"},
		{"profile", func(p *Params) { p.Profile = "fb1999" }, `unknown LinkBench profile "fb1999"`},
		{"steps", func(p *Params) { p.Steps = []string{"run"} }, "must include load"},
		{"unknown step", func(p *Params) { p.Steps = []string{"load", "l.i0"} }, `unknown step "l.i0"`},
		{"distribution file", func(p *Params) { p.DistributionFile = bad }, "bad.dat:3"},
		{"missing file", func(p *Params) { p.DistributionFile = bad + ".none" }, "no such file"},
		{"maxid1 near MaxInt64", func(p *Params) { p.MaxID1 = math.MaxInt64 }, "--maxid1 must be at most 1099511627776"},
		{"startid1 near MaxInt64", func(p *Params) { p.StartID1, p.MaxID1 = math.MaxInt64-1, math.MaxInt64 }, "--maxid1 must be at most"},
		{"load chunk near MaxInt", func(p *Params) { p.LoadChunk = math.MaxInt }, "--load-chunk must be at most 1073741824"},
		{"requests", func(p *Params) { p.Requests = -1 }, "--requests must be >= 0"},
		{"NaN interval", func(p *Params) { p.IntervalSeconds = math.NaN() }, "--interval-seconds must be > 0 and at most 1e+09, got NaN"},
		{"infinite warmup", func(p *Params) { p.WarmupSeconds = math.Inf(1) }, "--warmup-seconds must be >= 0 and at most 1e+09, got +Inf"},
		{"huge rate", func(p *Params) { p.RequestRate = 1e300 }, "--request-rate must be >= 0 and at most 1e+09, got 1e+300"},
		{"NaN rate", func(p *Params) { p.RequestRate = math.NaN() }, "--request-rate must be >= 0"},
		{"out-degree beyond its bound", func(p *Params) { p.DistributionFile = huge(t, 1<<40) }, "gives a node 1099511627776 links: at most 4294967296"},
		{"load beyond int64", func(p *Params) { p.DistributionFile, p.MaxID1 = huge(t, 1<<32), 1<<40 }, "the load would write more than 2^63 links, too many"},
		{"load bytes beyond int64", func(p *Params) { p.DistributionFile, p.MaxID1 = huge(t, 1<<20), 1<<40 }, "the load would write about 1.15e+18 links, too many"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
			c.set(&p)
			if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// huge writes a distribution file that gives every node n links.
func huge(t *testing.T, n int64) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "huge.dat")
	if err := os.WriteFile(f, []byte(fmt.Sprintf("nlinks\n%d 100\n", n)), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEstimateBytes: the estimate follows the out-degree (the reference variant's top node has
// about a million links at any size) and the largest graph the limits allow fits in int64.
func TestEstimateBytes(t *testing.T) {
	est := func(set func(*Params)) int64 {
		t.Helper()
		p, _ := DefaultParams("tiny")
		set(&p)
		w := mustNew(t, p)
		return w.EstimateBytes()
	}
	ref := est(func(*Params) {})
	corr := est(func(p *Params) { p.Variant = workload.Corrected })
	if ref < 100<<20 || corr > 50<<20 || corr < 5<<20 {
		t.Errorf("tiny: %d bytes (reference), %d (corrected): want above 100 MB (a million links) and 5 to 50 MB", ref, corr)
	}
	if big := est(func(p *Params) { p.MaxID1 = 1 << 40 }); big < 1<<50 || big == math.MaxInt64 {
		t.Errorf("2^40 nodes: %d bytes", big)
	}
}

// A distribution file replaces the profile's out-degree: with every node at 3 links, the
// load's out-degree is 3 everywhere.
func TestDistributionFileReplacesOutDegree(t *testing.T) {
	f := filepath.Join(t.TempDir(), "d.dat")
	if err := os.WriteFile(f, []byte("nlinks\n3 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := DefaultParams("tiny")
	p.DistributionFile = f
	p.Steps = []string{"run", "load"}
	w := mustNew(t, p)
	if !slices.Equal(w.p.Steps, []string{"load", "run"}) {
		t.Errorf("steps %v not put in order", w.p.Steps)
	}
	for id := p.StartID1; id < p.MaxID1; id += 97 {
		if n := w.m.deg.Total(id); n != 3 {
			t.Fatalf("id1 %d has %d links, want 3", id, n)
		}
	}
	if w.Params()["distribution_file"] != f {
		t.Errorf("params %v", w.Params())
	}
}

// TestPresetMemoryLimits: the iobound preset's cap is at least 256 MiB and at most a fifth of
// its data; the other presets set none (workloadtest.CheckPresetCaps).
func TestPresetMemoryLimits(t *testing.T) {
	workloadtest.CheckPresetCaps(t, Scales(), scaleName, DefaultParams, New)
}
