package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func leftoverDirs(t *testing.T, h Host) []string {
	t.Helper()
	found, err := h.Leftovers()
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, l := range found {
		dirs = append(dirs, l.Dir)
	}
	return dirs
}

// TestLeftoversFake finds the empty groups of gone processes anywhere in the hierarchy, and
// not those of a running process, one that still holds a process, or another program's.
func TestLeftoversFake(t *testing.T) {
	dead, self := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getpid())
	h := fakeHost(t, map[string]string{
		"memory/memory.limit_in_bytes":                          "9223372036854771712",
		"memory/me/enginebench-" + dead + "-busy/cgroup.procs":  "4242\n",
		"memory/me/enginebench-" + dead + "-empty/cgroup.procs": "",
	})
	for _, d := range []string{"me/enginebench-" + dead + "-sqlite", "a/b/enginebench-check-" + dead,
		"me/enginebench-" + self + "-pebble", "me/other-" + dead + "-sqlite"} {
		if err := os.MkdirAll(filepath.Join(h.Root, "memory", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := leftoverDirs(t, h)
	want := []string{
		filepath.Join(h.Root, "memory/a/b/enginebench-check-"+dead),
		filepath.Join(h.Root, "memory/me/enginebench-"+dead+"-empty"),
		filepath.Join(h.Root, "memory/me/enginebench-"+dead+"-sqlite"),
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("leftovers %q, want %q", got, want)
	}
	found, _ := h.Leftovers()
	if err := found[len(found)-1].Remove(); err != nil {
		t.Fatal(err)
	}
	if n := len(leftoverDirs(t, h)); n != 2 {
		t.Fatalf("%d leftovers after removing one, want 2", n)
	}
}

// TestLeftoversReal finds a real group named for a gone process in the caller's own group and
// removes it.
func TestLeftoversReal(t *testing.T) {
	requireCgroup(t)
	c, err := Host{}.detect()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.parent, "enginebench-"+strconv.Itoa(deadPID(t))+"-test")
	if err := mkGroup(c, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	if !slices.Contains(leftoverDirs(t, Host{}), dir) {
		t.Fatalf("the group %s of a gone process is not found", dir)
	}
	found, _ := Leftovers()
	for _, l := range found {
		if l.Dir == dir {
			if err := l.Remove(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the group is still there after Remove: %v", err)
	}
}
