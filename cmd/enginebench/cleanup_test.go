package main

import (
	"path/filepath"
	"testing"

	"github.com/enginebench/enginebench/internal/workload/insertbench"
)

// TestCleanupWaitFlag checks the cleanup wait the run takes: the preset's rule for the sizes
// the flags set, or --cleanup-wait.
func TestCleanupWaitFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want float64
	}{
		{[]string{"--scale", "tiny"}, 0},
		{[]string{"--scale", "small", "--rows", "900000000"}, 0},
		{[]string{"--scale", "cached"}, 100},                                         // 60 + 4 x 10M rows / 1M
		{[]string{"--scale", "cached", "--rows", "20000000", "--clients", "2"}, 100}, // 60 + 2 x 20M / 1M
		{[]string{"--scale", "cached", "--shared-table"}, 70},
		{[]string{"--scale", "iobound"}, 80},
		{[]string{"--scale", "iobound", "--cleanup-wait", "5.5"}, 5.5},
		{[]string{"--scale", "tiny", "--cleanup-wait", "30"}, 30},
	} {
		cmd, f := runCommand(nil, nil)
		fl := cmd.Flags()
		if err := fl.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		w, err := f.workload(fl, insertbench.Name)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := w.Params()["cleanup_wait_seconds"]; got != c.want {
			t.Errorf("%v: cleanup wait %v s, want %v", c.args, got, c.want)
		}
	}
}

func TestCleanupWaitFlagRejectsBadValues(t *testing.T) {
	for v, want := range map[string]string{
		"-1":   "--cleanup-wait must be a finite number of seconds >= 0",
		"NaN":  `"--cleanup-wait" flag: want a finite number of at most 1e+09`,
		"+Inf": `"--cleanup-wait" flag: want a finite number of at most 1e+09`,
	} {
		t.Run(v, func(t *testing.T) {
			runBad(t, want, "run", "--scale", "tiny",
				"--out", filepath.Join(t.TempDir(), "results"), "--data-dir", filepath.Join(t.TempDir(), "d"),
				"--cleanup-wait", v)
		})
	}
}
