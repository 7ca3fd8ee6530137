package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnavailable is wrapped by every error that says a memory cap cannot be
// applied on this host (no cgroup, no memory controller, not writable).
var ErrUnavailable = errors.New("memory cap unavailable")

// Version is the cgroup hierarchy a Group lives in.
type Version int

// The two cgroup hierarchies.
const (
	V1 Version = 1
	V2 Version = 2
)

// String names the version as the kernel documentation does.
func (v Version) String() string {
	return fmt.Sprintf("cgroup v%d", int(v))
}

// Host says where the cgroup filesystem and the caller's own group are. The
// zero Host is this machine: /sys/fs/cgroup and /proc/self/cgroup.
type Host struct {
	// Root is where the cgroup filesystems are mounted; "" is /sys/fs/cgroup.
	Root string
	// SelfCgroup is a file in the form of /proc/PID/cgroup naming the
	// caller's groups; "" is /proc/self/cgroup.
	SelfCgroup string
}

// controller is the memory hierarchy found on a Host.
type controller struct {
	version Version
	mount   string // where the hierarchy is mounted
	parent  string // the caller's own group: new groups are made in it
}

func (h Host) root() string {
	if h.Root == "" {
		return "/sys/fs/cgroup"
	}
	return h.Root
}

func (h Host) selfCgroup() string {
	if h.SelfCgroup == "" {
		return "/proc/self/cgroup"
	}
	return h.SelfCgroup
}

// detect finds the memory controller: v2 where the unified hierarchy (at the
// root, or at root/unified on a hybrid host) lists it, else v1 at root/memory.
func (h Host) detect() (controller, error) {
	root := h.root()
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return controller{}, fmt.Errorf("%w: no cgroup filesystem at %s", ErrUnavailable, root)
	}
	c, err := findMount(root)
	if err != nil {
		return controller{}, err
	}
	rel, err := ownGroup(h.selfCgroup(), c.version)
	if err != nil {
		return controller{}, err
	}
	c.parent = filepath.Join(c.mount, rel)
	if fi, err := os.Stat(c.parent); err != nil || !fi.IsDir() {
		// A cgroup namespace or a container mount shows the caller's group
		// as the mount's root.
		c.parent = c.mount
	}
	return c, nil
}

func findMount(root string) (controller, error) {
	for _, m := range []string{root, filepath.Join(root, "unified")} {
		ctrls, err := os.ReadFile(filepath.Join(m, "cgroup.controllers"))
		if err == nil && hasWord(ctrls, "memory") {
			return controller{version: V2, mount: m}, nil
		}
	}
	v1 := filepath.Join(root, "memory")
	if _, err := os.Stat(filepath.Join(v1, "memory.limit_in_bytes")); err == nil {
		return controller{version: V1, mount: v1}, nil
	}
	return controller{}, fmt.Errorf("%w: no memory controller under %s: neither cgroup v2 with "+
		"\"memory\" in cgroup.controllers nor the v1 memory hierarchy (%s) is mounted",
		ErrUnavailable, root, v1)
}

func hasWord(b []byte, w string) bool {
	for _, f := range bytes.Fields(b) {
		if string(f) == w {
			return true
		}
	}
	return false
}

// ownGroup reads the caller's group in the given hierarchy from a file in the
// form of /proc/PID/cgroup ("ID:CONTROLLERS:PATH" lines).
func ownGroup(file string, v Version) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%w: read own cgroup: %w", ErrUnavailable, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if v == V2 && parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		if v == V1 && hasWord([]byte(strings.ReplaceAll(parts[1], ",", " ")), "memory") {
			return parts[2], nil
		}
	}
	return "", fmt.Errorf("%w: %s names no group of the %s memory hierarchy", ErrUnavailable, file, v)
}

// Check says whether a memory cap can be applied on the Host: it finds the
// memory controller, on v2 lets the caller's group give it to its children
// (as New does), and makes and removes a probe group in the caller's own
// group. The error wraps ErrUnavailable and gives the reason.
func (h Host) Check() error {
	c, err := h.detect()
	if err != nil {
		return err
	}
	if c.version == V2 {
		if err := enableMemory(c.parent); err != nil {
			return err
		}
	}
	probe := filepath.Join(c.parent, fmt.Sprintf("enginebench-check-%d", os.Getpid()))
	if err := mkGroup(c, probe); err != nil {
		return err
	}
	if err := os.Remove(probe); err != nil {
		return fmt.Errorf("%w: remove probe group: %w", ErrUnavailable, err)
	}
	return nil
}

// mkGroup makes the group dir and checks that the kernel gave it the memory
// controller's files; it removes dir again when not.
func mkGroup(c controller, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		hint := ""
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			hint = "; it needs root and a writable cgroup filesystem"
		}
		return fmt.Errorf("%w: cannot create a group in %s (%s%s): %w",
			ErrUnavailable, c.parent, c.version, hint, err)
	}
	if _, err := os.Stat(filepath.Join(dir, limitFile(c.version))); err != nil {
		os.Remove(dir)
		return fmt.Errorf("%w: %s is not a cgroup filesystem: a new group there has no %s",
			ErrUnavailable, c.mount, limitFile(c.version))
	}
	return nil
}

// Check is Host{}.Check: whether a memory cap can be applied on this machine.
func Check() error {
	return Host{}.Check()
}

func limitFile(v Version) string {
	if v == V2 {
		return "memory.max"
	}
	return "memory.limit_in_bytes"
}
