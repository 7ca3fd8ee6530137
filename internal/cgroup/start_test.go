package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStartBornInGroup starts a shell through Start that starts another: both report the group
// as their own from their first instruction (/proc/self/cgroup), while the test process and the
// thread that started them are back outside it.
func TestStartBornInGroup(t *testing.T) {
	requireCgroup(t)
	checkBornInGroup(t, newGroup(t, "start", 64*mib))
}

// TestStartV2BornInGroup is TestStartBornInGroup on the v2 path (CLONE_INTO_CGROUP) where the
// host has a v2 hierarchy without the memory controller beside the v1 one (a hybrid host, as
// this project's CI): the process is born in a v2 group all the same, and Close removes it.
func TestStartV2BornInGroup(t *testing.T) {
	mount := "/sys/fs/cgroup/unified"
	if _, err := os.Stat(filepath.Join(mount, "cgroup.procs")); err != nil {
		t.Skipf("no cgroup v2 hierarchy at %s: %v", mount, err)
	}
	own, err := ownGroup("/proc/self/cgroup", V2)
	if err != nil {
		t.Skip(err)
	}
	c := controller{version: V2, mount: mount, parent: filepath.Join(mount, own)}
	dir := filepath.Join(c.parent, "enginebench-"+strconv.Itoa(os.Getpid())+"-v2start")
	if err := os.Mkdir(dir, 0o755); err != nil {
		if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
			t.Fatalf("CI=true as root and no v2 group: %v", err)
		}
		t.Skipf("cannot make a v2 group: %v", err)
	}
	g := &Group{c: c, dir: dir}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("Close left %s: %v", dir, err)
		}
	})
	checkBornInGroup(t, g)
}

// checkBornInGroup starts a shell in g that starts another, and checks that both were in g
// and that the test's process and thread are not.
func checkBornInGroup(t *testing.T, g *Group) {
	t.Helper()
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
