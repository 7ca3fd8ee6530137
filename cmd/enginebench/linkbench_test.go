package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// TestLinkBenchTinyRun runs LinkBench from the command line at tiny scale on SQLite and
// Pebble, with a run spec's parameter and a flag, and checks the results and the summary.
func TestLinkBenchTinyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	args, out := tinyArgs(t, "sqlite,pebble", "--interval-seconds", "1", "--requesters", "3")
	args = append(args[:1], append([]string{"linkbench"}, args[1:]...)...)
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if run.Workload.Name != "linkbench" || run.Status != result.StatusOK || len(run.Configs) != 2 {
		t.Fatalf("workload %q, status %q, %d configs", run.Workload.Name, run.Status, len(run.Configs))
	}
	if run.Workload.Params["requesters"] != float64(3) || run.Workload.Params["profile"] != "fb2011" {
		t.Errorf("params %v", run.Workload.Params)
	}
	for _, c := range run.Configs {
		var names []string
		for _, s := range c.Steps {
			names = append(names, s.Name)
			if s.Status != result.StatusOK {
				t.Errorf("%s %s: %s %s", c.Name, s.Name, s.Status, s.Error)
			}
			if s.Size == nil || s.Size.DBGB1 == nil {
				t.Errorf("%s %s: no database size at the step's end", c.Name, s.Name)
			}
		}
		if strings.Join(names, ",") != "load,run.1,run.2" {
			t.Errorf("%s: steps %v", c.Name, names)
		}
		if v := c.Steps[len(c.Steps)-1].Verify; v == nil || !v.OK {
			t.Errorf("%s: the last interval is not verified: %+v", c.Name, v)
		}
		if r := c.Steps[1]; r.Clients != 3 || r.Ops["requests"] == nil || r.Ops["requests"].PerSec <= 0 {
			t.Errorf("%s run.1: %d clients, requests %+v", c.Name, r.Clients, r.Ops["requests"])
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LinkBench", "run.2 qps", "Latency per operation", "GET_LINKS_LIST", "Efficiency: run.1"} {
		// The printed tables show headers in capitals.
		if !strings.Contains(strings.ToLower(stdout), strings.ToLower(want)) || !strings.Contains(string(md), want) {
			t.Errorf("%q is not in the printed summary and summary.md", want)
		}
	}
}

// TestLinkBenchInterrupt interrupts LinkBench in its first interval: the load is kept, the
// interval is recorded as interrupted with the requests it did, and the data is removed.
func TestLinkBenchInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	data := filepath.Join(dir, "data")
	run := startRun(t, "run", "linkbench", "--scale", "tiny", "--engines", "pebble",
		"--interval-seconds", "600", "--out", out, "--data-dir", data)
	run.waitForStep(t, out, 1)      // the load is done: run.1 is running
	run.waitForProgress(t, "run.1") // and has done requests
	run.cmd.Process.Signal(syscall.SIGINT)
	r := run.wait(t, out, exitInterrupted)
	if r.Status != result.StatusInterrupted || len(r.Configs) != 1 {
		t.Fatalf("run status %q", r.Status)
	}
	steps := r.Configs[0].Steps
	if len(steps) != 2 || steps[0].Status != result.StatusOK || steps[1].Name != "run.1" ||
		steps[1].Status != result.StatusInterrupted {
		t.Fatalf("steps after interrupt: %+v", steps)
	}
	if req := steps[1].Ops["requests"]; req == nil || req.Count == 0 {
		t.Errorf("the interrupted interval recorded no requests: %+v", req)
	}
	if _, err := os.Stat(filepath.Join(data, "pebble")); !os.IsNotExist(err) {
		t.Errorf("data directory left behind: %v", err)
	}
}

// TestLinkBenchFidelityFlags refuses, before any work, --partitions on an engine that cannot
// partition, a bad partition count, and --expunge without --variant corrected; the data
// directory is not created.
func TestLinkBenchFidelityFlags(t *testing.T) {
	for _, c := range []struct {
		want  string
		extra []string
	}{
		{"configuration sqlite: --partitions: engine sqlite cannot partition its tables", []string{"--partitions", "16"}},
		{"--partitions must be 0 (none) to 1024", []string{"--partitions", "2000"}},
		{"--expunge: the reference never expunges", []string{"--expunge"}},
	} {
		args, _ := tinyArgs(t, "sqlite", c.extra...)
		args = append(args[:1], append([]string{"linkbench"}, args[1:]...)...)
		runBad(t, c.want, args...)
		for i, a := range args {
			if a == "--data-dir" {
				if _, err := os.Stat(args[i+1]); !os.IsNotExist(err) {
					t.Errorf("%v: the data directory exists (%v)", c.extra, err)
				}
			}
		}
	}
}
