package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

func f64(v float64) *float64 { return &v }

// fingerprinted is the summary fixture run on a host with a full fingerprint and calibration.
func fingerprinted() *result.Run {
	r := fixture()
	r.Host = result.Host{Hostname: "h1", CPUs: 16, MemoryBytes: 64 << 30, Kernel: "6.1.0-18-amd64",
		CPUModel: "AMD EPYC 7763 64-Core Processor", PhysicalCores: 8, Sockets: 1, SMT: "on",
		Governors: []string{"performance"}, THPEnabled: "madvise", THPDefrag: "madvise",
		DataDevice: "nvme0n1", Filesystem: "xfs", DeviceModel: "Samsung SSD 980 PRO 1TB",
		DeviceRotational: new(false), DeviceScheduler: "none"}
	r.Calibration = &result.Calibration{CPUNsPerIter: f64(1.0), CPUIters: 1 << 24,
		FsyncP50Us: f64(800), FsyncP99Us: f64(2400), FsyncSamples: 40, FsyncDir: "data/x"}
	return r
}

// hostWarning returns the page's warning about unlike hosts, or "".
func hostWarning(p *Page) string {
	for _, l := range p.Warnings() {
		if strings.Contains(l, "ran on a host unlike") {
			return l
		}
	}
	return ""
}

func TestUnlikeHostsWarn(t *testing.T) {
	a, b := fingerprinted(), fingerprinted()
	b.Host.Hostname = "h2" // another machine of the same kind: no difference that matters
	b.Host.MemoryBytes -= 300 << 20
	b.Calibration.CPUNsPerIter = f64(1.2)
	b.Calibration.FsyncP50Us = f64(2000)
	b.Calibration.FsyncP99Us = f64(90000)
	p, html := pageHTML(t, Input{Dir: "a", Run: a}, Input{Dir: "b", Run: b})
	if w := hostWarning(p); w != "" {
		t.Errorf("like hosts (another hostname, memory within 2%%, calibration within its factors): %q", w)
	}
	if strings.Contains(html.String(), "unlike") {
		t.Error("the HTML page warns of like hosts")
	}

	b.Host.CPUModel, b.Host.CPUs, b.Host.PhysicalCores = "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", 48, 24
	b.Host.Kernel, b.Host.MemoryBytes, b.Host.Governors = "5.15.0-91-generic", 192<<30, []string{"performance", "powersave"}
	b.Host.THPEnabled, b.Host.Filesystem, b.Host.DeviceRotational = "always", "ext4", new(true)
	b.Calibration.CPUNsPerIter, b.Calibration.FsyncP50Us = f64(1.3), f64(2500)
	p, html = pageHTML(t, Input{Dir: "a", Run: a}, Input{Dir: "b", Run: b})
	w := hostWarning(p)
	for _, want := range []string{"WARNING: run b ran on a host unlike run a's: ",
		"CPU model AMD EPYC 7763 64-Core Processor vs Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz",
		"logical CPUs 16 vs 48", "physical cores 8 vs 24", "cpufreq governor performance vs performance,powersave",
		"THP enabled madvise vs always", "kernel 6.1.0-18-amd64 vs 5.15.0-91-generic",
		"memory " + numfmt.Bytes(64<<30) + " vs " + numfmt.Bytes(192<<30), "filesystem xfs vs ext4",
		"device non-rotational vs rotational", "CPU loop 1 vs 1.3 ns/iteration (more than 1.25x apart)",
		"fsync p50 800us vs 2.5ms (more than 3x apart)"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning lacks %q:\n%s", want, w)
		}
	}
	for _, not := range []string{"SMT", "sockets", "device model", "THP defrag", "IO scheduler", "hostname"} {
		if strings.Contains(w, not) {
			t.Errorf("warning names %s, which is alike:\n%s", not, w)
		}
	}
	if !strings.Contains(html.String(), `<li class="warning">WARNING: run b ran on a host unlike run a&#39;s: CPU model`) {
		t.Error("the HTML page has no warning line")
	}
	if !strings.Contains(MarkdownPage(p), "- **WARNING:** run b ran on a host unlike run a's: CPU model") {
		t.Error("report.md has no bold warning")
	}
}

// TestUnrecordedHostFieldsDoNotWarn checks that a run made before the fingerprint existed (only
// cpus, memory, kernel, device) is compared on what it has, and a missing calibration on nothing.
func TestUnrecordedHostFieldsDoNotWarn(t *testing.T) {
	a, old := fingerprinted(), fixture()
	old.Host = result.Host{CPUs: a.Host.CPUs, MemoryBytes: a.Host.MemoryBytes, Kernel: a.Host.Kernel, Filesystem: "xfs"}
	p, _ := pageHTML(t, Input{Dir: "new", Run: a}, Input{Dir: "old", Run: old})
	if w := hostWarning(p); w != "" {
		t.Errorf("an old run's unrecorded fields made a warning: %q", w)
	}
	old.Host.CPUs = 4
	p, _ = pageHTML(t, Input{Dir: "new", Run: a}, Input{Dir: "old", Run: old})
	if w := hostWarning(p); !strings.HasSuffix(strings.SplitN(w, ": ", 3)[2], "logical CPUs 16 vs 4; their figures differ by the host as well as by the configuration") {
		t.Errorf("warning %q: want only the CPUs", w)
	}
}

func TestFingerprintTable(t *testing.T) {
	a, b := fingerprinted(), fingerprinted()
	b.Calibration = nil
	b.Host.DeviceRotational = nil
	p, _ := pageHTML(t, Input{Dir: "a", Run: a}, Input{Dir: "b", Run: b})
	const title = "Host fingerprint and calibration"
	for col, want := range map[string]string{"CPU model": "AMD EPYC 7763 64-Core Processor", "cores": "8", "SMT": "on",
		"THP enabled/defrag": "madvise/madvise", "device": "non-rotational", "CPU loop ns/iter": "1", "fsync p50": "800us", "fsync p99": "2.4ms"} {
		if got, _ := cell(t, p, title, "a", col); got != want {
			t.Errorf("a's %s %q, want %q", col, got, want)
		}
	}
	for _, col := range []string{"device", "CPU loop ns/iter", "fsync p50"} {
		if got, _ := cell(t, p, title, "b", col); got != missing {
			t.Errorf("b's unmeasured %s %q, want -", col, got)
		}
	}
	// Runs made before the fingerprint have no such table.
	p, _ = pageHTML(t, Input{Dir: "a", Run: fixture()})
	for _, s := range p.Sections {
		for _, bl := range s.Blocks {
			if bl.Table != nil && bl.Table.Title == title {
				t.Error("a run without a fingerprint has a fingerprint table")
			}
		}
	}
}

func TestCalibrationText(t *testing.T) {
	c := fingerprinted().Calibration
	if got, want := CalibrationText(c), "CPU loop 1 ns/iteration; fsync p50 800us, p99 2.4ms (40 in data/x)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	c = &result.Calibration{CPUNsPerIter: f64(2.5), Notes: []string{"fsync probe: stopped: context canceled"}}
	if got, want := CalibrationText(c), "CPU loop 2.5 ns/iteration; fsync probe: stopped: context canceled"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := CalibrationText(nil); got != "not run" {
		t.Errorf("nil: %q", got)
	}
}

// matrixRun is a run of configuration index of a run spec of count configurations, named
// name: one configuration of the summary fixture.
func matrixRun(name string, index, count int, sha string) *result.Run {
	r := fingerprinted()
	r.Configs = r.Configs[:1]
	r.Configs[0].Name = name
	r.Matrix = &result.Matrix{Index: index, Count: count, Config: name, Spec: "configs/purge.yaml", SpecSHA256: sha}
	return r
}

func TestMatrixJoin(t *testing.T) {
	const sha = "0123456789abcdef0123"
	runs := []Input{ // given out of the spec's order, as a shell glob of run ids may give them
		{Dir: "results/20261124-1-insert-a2", Run: matrixRun("a2", 2, 4, sha)},
		{Dir: "results/20261124-2-insert-base", Run: matrixRun("base", 0, 4, sha)},
		{Dir: "results/20261124-3-insert-a1", Run: matrixRun("a1", 1, 4, sha)},
	}
	p, err := NewPage(runs, Options{Base: "a1", Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Configs, ", "); got != "base, a1, a2" || p.Base != "a1" {
		t.Errorf("configurations %s, base %s; want base, a1, a2 in the spec's order, by their names, base a1", got, p.Base)
	}
	want := "run spec configs/purge.yaml (sha256 0123456789ab): configurations 0, 1, 2 of 4, each run on its own (--config-index); not among these runs: 3"
	if !slices.Contains(p.Lines, want) {
		t.Errorf("header lacks %q:\n%s", want, strings.Join(p.Lines, "\n"))
	}
	if len(p.Warnings()) != 0 {
		t.Errorf("warnings %q for runs of one spec on like hosts", p.Warnings())
	}
	if got, _ := cell(t, p, "Throughput", "a2", "l.i0 ips"); got == "" {
		t.Error("no throughput row for a2")
	}
	if !slices.ContainsFunc(p.Sections[len(p.Sections)-1].Blocks, func(b Block) bool {
		return b.Table != nil && strings.HasPrefix(b.Table.Title, "Settings of a1: ")
	}) {
		t.Error("the settings tables are not labelled by configuration name")
	}

	// The same configuration twice, and a run of another spec: each warned of; the labels
	// carry the run again, as names may repeat.
	runs = append(runs, Input{Dir: "results/again", Run: matrixRun("a1", 1, 4, sha)},
		Input{Dir: "results/other", Run: matrixRun("x", 0, 1, "fedcba9876543210")})
	p, err = NewPage(runs, Options{Layouts: testLayouts()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Configs[0] != "20261124-1-insert-a2/a2" {
		t.Errorf("configurations %v: want them labelled by run", p.Configs)
	}
	ws := strings.Join(p.Warnings(), "\n")
	for _, want := range []string{"WARNING: configuration 1 of run spec configs/purge.yaml is in more than one run",
		"WARNING: the runs are configurations of different run specs: configs/purge.yaml (sha256 0123456789ab: runs 20261124-1-insert-a2, 20261124-2-insert-base, 20261124-3-insert-a1, again); configs/purge.yaml (sha256 fedcba987654: runs other)"} {
		if !strings.Contains(ws, want) {
			t.Errorf("warnings lack %q:\n%s", want, ws)
		}
	}
}
