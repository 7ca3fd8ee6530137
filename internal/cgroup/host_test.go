package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeHost lays out files under a temporary root and returns a Host that
// points at it, with a self cgroup file naming group /me in both hierarchies.
func fakeHost(t *testing.T, files map[string]string) Host {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(t.TempDir(), "cgroup")
	if err := os.WriteFile(self, []byte("4:memory:/me\n0::/me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Host{Root: root, SelfCgroup: self}
}

func TestCheckReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		host func(t *testing.T) Host
		want string
	}{
		{"missing root", func(t *testing.T) Host {
			return Host{Root: filepath.Join(t.TempDir(), "absent")}
		}, "no cgroup filesystem at"},
		{"empty root", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{"README": "x"})
		}, "no memory controller under"},
		{"v2 without memory", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{"cgroup.controllers": "cpu io pids\n"})
		}, "no memory controller under"},
		{"hybrid, memory on neither", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{"unified/cgroup.controllers": "\n", "cpu/cpu.shares": "1024\n"})
		}, "no memory controller under"},
		{"v1 files on a plain filesystem", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{
				"memory/memory.limit_in_bytes":    "9223372036854771712\n",
				"memory/me/memory.limit_in_bytes": "9223372036854771712\n",
			})
		}, "is not a cgroup filesystem: a new group there has no memory.limit_in_bytes"},
		{"v2 files on a plain filesystem", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{"cgroup.controllers": "cpu memory\n", "me/cgroup.subtree_control": "memory\n"})
		}, "is not a cgroup filesystem: a new group there has no memory.max"},
		{"v2 memory not given to children", func(t *testing.T) Host {
			return fakeHost(t, map[string]string{"cgroup.controllers": "cpu memory\n", "me/cgroup.procs": "1\n"})
		}, "enable the memory controller for the children of"},
		{"self names no memory group", func(t *testing.T) Host {
			h := fakeHost(t, map[string]string{"memory/memory.limit_in_bytes": "1\n"})
			if err := os.WriteFile(h.SelfCgroup, []byte("3:cpu:/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return h
		}, "names no group of the cgroup v1 memory hierarchy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			err := h.Check()
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check() = %v, want ErrUnavailable with %q", err, tc.want)
			}
			if _, err := h.New("x", mib); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("New on an unusable host = %v, want ErrUnavailable", err)
			}
		})
	}
}

// TestCheckLeavesNoProbe: the probe group Check makes is removed, in the
// caller's own group (here the fake /me).
func TestCheckLeavesNoProbe(t *testing.T) {
	h := fakeHost(t, map[string]string{"memory/memory.limit_in_bytes": "1\n", "memory/me/tasks": ""})
	_ = h.Check()
	entries, err := os.ReadDir(filepath.Join(h.Root, "memory", "me"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "tasks" {
		t.Fatalf("entries after Check: %v, want only tasks", entries)
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	h := Host{Root: filepath.Join(t.TempDir(), "absent")}
	for _, name := range []string{"", "a/b", "..", "."} {
		if _, err := h.New(name, mib); err == nil || errors.Is(err, ErrUnavailable) {
			t.Errorf("New(%q) = %v, want a bad-name error", name, err)
		}
	}
	for _, limit := range []int64{0, -1} {
		if _, err := h.New("x", limit); err == nil || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("New limit %d = %v, want a bad-limit error", limit, err)
		}
	}
}

func TestRealCheck(t *testing.T) {
	requireCgroup(t)
	c, err := Host{}.detect()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.parent, limitFile(c.version))); err != nil {
		t.Fatalf("parent %s is not a memory group: %v", c.parent, err)
	}
	t.Logf("%s, groups made in %s", c.version, c.parent)
}
