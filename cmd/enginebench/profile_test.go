package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report/browsertest"
	"github.com/enginebench/enginebench/internal/result"
)

// TestCPUProfileRun runs the Insert Benchmark with --cpu-profile and --counters on two managed
// servers and two embedded engines (rocksdb where the build has it): every step of every
// configuration has a pprof profile that `go tool pprof -top` reads, taken by the tool its
// engine needs (perf of the server's processes, perf of this process for rocksdb, Go's
// runtime/pprof for pebble), and the software counters; the report, opened in headless
// Chromium, shows each step's flame graphs, one per configuration and a differential one per
// configuration against the base. A tiny scale's load can take 10 ms, too short for a sample:
// such a profile is said in a line instead of drawn, and the query step, seconds long, is
// sampled in every configuration.
func TestCPUProfileRun(t *testing.T) {
	integration(t, "starts servers and profiles them")
	servertest.Require(t, server.Postgres)
	servertest.Require(t, server.MariaDB)
	requirePerfTool(t)
	engines := []string{"postgres", "innodb", "pebble"}
	if reg, err := registry.Engines(); err == nil && slices.Contains(reg.Names(), "rocksdb") {
		engines = append(engines, "rocksdb")
	}
	out := filepath.Join(t.TempDir(), "results")
	runOK(t, "run", "--scale", "tiny", "--engines", strings.Join(engines, ","), "--steps", "l.i0,l.x,l.i1,qr100",
		"--cpu-profile", "--counters=software", "--out", out, "--data-dir", serverDataDir(t), "--no-calibrate")
	run := loadRun(t, out)
	tools := map[string]string{"postgres": "perf record", "innodb": "perf record", "pebble": "runtime/pprof", "rocksdb": "perf record"}
	for _, c := range run.Configs {
		if c.Status != result.StatusOK || len(c.Steps) != 4 {
			t.Fatalf("%s: %s, %d steps: %s", c.Name, c.Status, len(c.Steps), c.Error)
		}
		for _, s := range c.Steps {
			pr, cs := s.Profile, s.Counters
			if pr == nil || pr.File == "" || pr.Tool != tools[c.Engine] || pr.Error != "" || pr.Partial || pr.PerOp == "" || pr.Ops <= 0 {
				t.Errorf("%s %s: profile %+v", c.Name, s.Name, pr)
				continue
			}
			if top, err := exec.Command("go", "tool", "pprof", "-top", filepath.Join(out, pr.File)).CombinedOutput(); err != nil || !strings.Contains(string(top), "Type: cpu") {
				t.Errorf("%s %s: go tool pprof -top: %v\n%s", c.Name, s.Name, err, top)
			}
			if cs == nil || cs.Error != "" || len(cs.Events) == 0 || cs.Events[0].Event != "task-clock" || cs.Each(cs.Events[0]) == nil {
				t.Errorf("%s %s: counters %+v", c.Name, s.Name, cs)
			}
		}
	}
	checkFlameGraphs(t, filepath.Join(out, "report.html"), run)
}

// checkFlameGraphs opens the report of run at page in Chromium: each profiled step's section
// has a flame graph per configuration whose profile has samples and a differential one of
// each such configuration but the base (when the base has samples), each laid out with
// frames, a line for each profile without samples, and no console error or network request;
// the query step has samples in every configuration.
func checkFlameGraphs(t *testing.T, page string, run *result.Run) {
	t.Helper()
	if browsertest.Chromium() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium: CI installs Debian's chromium package (.ci/run)")
		}
		t.Skip("no Chromium installed")
	}
	type section struct {
		ID     string `json:"id"`
		Graphs int    `json:"graphs"`
		Diffs  int    `json:"diffs"`
		Drawn  int    `json:"drawn"` // graphs with a frame of non-zero size
		// Unsampled are the lines saying that a profile has no samples.
		Unsampled int `json:"unsampled"`
	}
	var got []section
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := browsertest.OpenWith(ctx, page, 1280, func(ctx context.Context) error {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[[]section](`[...document.querySelectorAll("[id^='cpu-']")].map(s => {
  const box = s.closest("section") || s.parentElement;
  const svgs = [...box.querySelectorAll("svg.flame")];
  return {id: s.id, graphs: svgs.length, diffs: svgs.filter(g => g.classList.contains("flame-diff")).length,
    drawn: svgs.filter(g => [...g.querySelectorAll("g[data-fn] rect")].some(r => r.getBoundingClientRect().width > 0)).length,
    unsampled: [...box.querySelectorAll("p")].filter(p => p.textContent.includes("no CPU sampled in this step")).length};
})`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ConsoleErrors) > 0 || len(res.Requests) > 0 {
		t.Errorf("console errors %q, network requests %q", res.ConsoleErrors, res.Requests)
	}
	if len(got) != 4 {
		t.Fatalf("sections %+v, want one per step", got)
	}
	for _, s := range got {
		step := strings.TrimPrefix(s.ID, "cpu-")
		sampled, baseSampled := 0, false
		for i, c := range run.Configs {
			k := slices.IndexFunc(c.Steps, func(st result.Step) bool { return st.Name == step })
			switch {
			case k >= 0 && c.Steps[k].Profile != nil && c.Steps[k].Profile.Samples > 0:
				sampled++
				baseSampled = baseSampled || i == 0
			case step == "qr100":
				t.Errorf("%s %s: no samples in seconds of queries", c.Name, step)
			}
		}
		diffs := 0
		if baseSampled {
			diffs = sampled - 1
		}
		unsampled := len(run.Configs) - sampled
		if s.Graphs != sampled+diffs || s.Diffs != diffs || s.Drawn != s.Graphs || s.Unsampled != unsampled {
			t.Errorf("%s: %d graphs (%d differential, %d drawn), %d lines of no samples; want %d, %d differential, all drawn, and %d lines",
				s.ID, s.Graphs, s.Diffs, s.Drawn, s.Unsampled, sampled+diffs, diffs, unsampled)
		}
	}
}

func requirePerfTool(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("perf is not installed (.ci/run installs linux-perf)")
		}
		t.Skip("perf is not installed")
	}
}

// TestCPUProfileWithoutPerf runs with --cpu-profile and --counters on a managed server
// without perf (--perf names a binary that is not there): the run goes on and succeeds, the configuration's notes and every step
// say why there is no profile and no counters, in one line, and the report shows the reason.
func TestCPUProfileWithoutPerf(t *testing.T) {
	integration(t, "starts a server")
	servertest.Require(t, server.Postgres)
	out, missing := filepath.Join(t.TempDir(), "results"), filepath.Join(t.TempDir(), "perf")
	runOK(t, "run", "--scale", "tiny", "--engines", "postgres", "--steps", "l.i0", "--cpu-profile", "--counters", "--perf", missing,
		"--out", out, "--data-dir", serverDataDir(t), "--no-calibrate")
	run := loadRun(t, out)
	c := run.Configs[0]
	why := "perf not found at " + missing + ": install linux-perf"
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, why) }) {
		t.Errorf("notes %q, want %q", c.Notes, why)
	}
	s := c.Steps[0]
	if s.Status != result.StatusOK || s.Profile == nil || s.Profile.Error != why || s.Profile.File != "" || s.Counters == nil || s.Counters.Error != why {
		t.Errorf("l.i0 %s: profile %+v, counters %+v", s.Status, s.Profile, s.Counters)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), why) {
		t.Errorf("the report does not say why there is no profile: %v", err)
	}
}
