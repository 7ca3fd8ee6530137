package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// fewLinks writes a distribution file (the reference's Distribution.dat format) that gives each
// node 1 to 10 links, and returns its path: a load of tens of thousands of links at tiny scale
// instead of the profile's million, for the tests whose checks do not depend on the load's
// size (the profiles' own out-degree is tested in the linkbench package).
func fewLinks(t *testing.T) string {
	t.Helper()
	return writeFile(t, "few-links.dat", "nlinks\n1 40\n3 80\n10 100\n")
}

// TestLinkBenchTinyRun runs LinkBench from the command line at tiny scale on SQLite and
// Pebble, with a run spec's parameter and a flag, and checks the results and the summary.
func TestLinkBenchTinyRun(t *testing.T) {
	integration(t, "integration test")
	args, out := tinyArgs(t, "sqlite,pebble", "--interval-seconds", "1", "--requesters", "3", "--distribution-file", fewLinks(t))
	stdout, _ := runOK(t, slices.Insert(args, 1, "linkbench")...)
	run := loadRun(t, out)
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
	// The brief summary printed shows LinkBench's published table (its headers in capitals);
	// summary.md every table.
	for _, want := range []string{"LinkBench", "run.2 qps"} {
		if !strings.Contains(strings.ToLower(stdout), strings.ToLower(want)) || !strings.Contains(string(md), want) {
			t.Errorf("%q is not in the printed summary and summary.md", want)
		}
	}
	for _, want := range []string{"Latency per operation", "GET_LINKS_LIST", "Efficiency: run.1"} {
		if strings.Contains(stdout, want) || !strings.Contains(string(md), want) {
			t.Errorf("%q is in the brief printed summary, or not in summary.md", want)
		}
	}
}

// TestLinkBenchInterrupt interrupts LinkBench in its first interval: the load is kept, the
// interval is recorded as interrupted with the requests it did, and the data is removed.
func TestLinkBenchInterrupt(t *testing.T) {
	integration(t, "builds the binary")
	run, out, data := startTiny(t, "run", "linkbench", "--scale", "tiny", "--engines", "pebble", "--interval-seconds", "600",
		"--distribution-file", fewLinks(t))
	run.waitForStep(t, out, 1)      // the load is done: run.1 is running
	run.waitForProgress(t, "run.1") // and has done requests
	r := run.interrupt(t, out)
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
	checkRemoved(t, filepath.Join(data, "pebble"))
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
		args = slices.Insert(args, 1, "linkbench")
		runBad(t, c.want, args...)
		if _, err := os.Stat(args[slices.Index(args, "--data-dir")+1]); !os.IsNotExist(err) {
			t.Errorf("%v: the data directory exists (%v)", c.extra, err)
		}
	}
}
