package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// leftoverDepth bounds how deep Leftovers looks below the hierarchy's mount:
// the groups New makes are children of the caller's own group, which systemd
// and container runtimes nest a few levels down.
const leftoverDepth = 8

// Leftover is a group that New (or Check) made for a process that is gone: a
// run killed with SIGKILL, or by the kernel's OOM killer, cannot remove its
// groups. It holds no process.
type Leftover struct {
	Dir string // the group's directory
	PID int    // the process that made it
}

// Leftovers returns the empty groups named enginebench-PID-NAME (or
// enginebench-check-PID) anywhere in the memory hierarchy whose process PID no
// longer runs. A host without a memory controller has none.
func (h Host) Leftovers() ([]Leftover, error) {
	c, err := h.detect()
	if err != nil {
		return nil, nil // no hierarchy: no group left in it
	}
	var out []Leftover
	base := strings.Count(c.mount, string(filepath.Separator))
	err = filepath.WalkDir(c.mount, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // a group removed meanwhile, or a control file
		}
		if strings.Count(path, string(filepath.Separator))-base > leftoverDepth {
			return fs.SkipDir
		}
		pid, ok := creatorPID(d.Name())
		if !ok {
			return nil
		}
		if !running(pid) && empty(path) {
			out = append(out, Leftover{Dir: path, PID: pid})
		}
		return fs.SkipDir // enginebench makes no group inside its own
	})
	if err != nil {
		return out, fmt.Errorf("cgroup: look for leftover groups under %s: %w", c.mount, err)
	}
	return out, nil
}

// Leftovers is Host{}.Leftovers: the groups killed runs left on this machine.
func Leftovers() ([]Leftover, error) { return Host{}.Leftovers() }

// Remove removes the group. The kernel refuses while it holds a process.
func (l Leftover) Remove() error {
	if err := os.Remove(l.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cgroup: remove %s: %w", l.Dir, err)
	}
	return nil
}

// creatorPID returns the process named in a group name New or Check makes.
func creatorPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "enginebench-")
	if !ok {
		return 0, false
	}
	if s, ok := strings.CutPrefix(rest, "check-"); ok {
		rest = s
	} else if i := strings.IndexByte(rest, '-'); i > 0 {
		rest = rest[:i]
	} else {
		return 0, false
	}
	pid, err := strconv.Atoi(rest)
	return pid, err == nil && pid > 0
}

// running reports whether process pid exists. A pid that a new process took
// counts as running: its group is left alone.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// empty reports whether group dir holds no process (a directory without a
// cgroup.procs file, outside a cgroup filesystem, holds none).
func empty(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	return err == nil && len(strings.TrimSpace(string(b))) == 0
}
