package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStartBornInGroup starts a shell through Start that starts another: both report the group
// as their own from their first instruction (/proc/self/cgroup), while the test process and the
// thread that started them are back outside it.
func TestStartBornInGroup(t *testing.T) {
	requireCgroup(t)
	g := newGroup(t, "start", 64*mib)
	cmd := exec.Command("/bin/sh", "-c", `cat /proc/self/cgroup; sh -c 'cat /proc/self/cgroup'`)
	var out strings.Builder
	cmd.Stdout = &out
	if err := g.Start(cmd); err != nil {
		t.Fatal(err)
	}
	procs, err := g.Procs()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(procs, os.Getpid()) {
		t.Errorf("the test process (%d) is still in the group after Start: %v", os.Getpid(), procs)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	want := "/" + filepath.Base(g.Dir())
	var seen int
	for _, line := range strings.Split(out.String(), "\n") {
		if isMemoryLine(line, g.Version()) {
			seen++
			if !strings.HasSuffix(line, want) {
				t.Errorf("a started process is in %q, want a group ending in %s", line, want)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("want the memory group of 2 processes, got %d in:\n%s", seen, out.String())
	}
	self, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(self), want) {
		t.Errorf("this thread is still in the group:\n%s", self)
	}
}

// isMemoryLine reports whether a /proc/PID/cgroup line names the memory hierarchy of v.
func isMemoryLine(line string, v Version) bool {
	f := strings.SplitN(line, ":", 3)
	if len(f) != 3 {
		return false
	}
	if v == V2 {
		return f[0] == "0"
	}
	return slices.Contains(strings.Split(f[1], ","), "memory")
}
