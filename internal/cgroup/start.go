package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// Start starts cmd with its process born in the group, so that everything it and the
// processes it starts allocate is charged to the cap from their first page (a process added
// after it started would leave what it allocated before, and the children it forked meanwhile,
// outside). Nothing of the caller is charged to the group.
//
// On v2 the kernel starts the process in the group itself (clone3 with CLONE_INTO_CGROUP). On
// v1, which has no such call, the calling OS thread alone joins the group (its tasks file) for
// the fork: a child is born in its parent thread's group, and v1 charges the caller's memory
// to its process's group, not to the thread's. The thread goes back to the caller's group
// right after; if it cannot, the started process is killed and the error returned.
func (g *Group) Start(cmd *exec.Cmd) error {
	if g.c.version == V2 {
		return g.startV2(cmd)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := strconv.Itoa(syscall.Gettid())
	if err := writeFile(filepath.Join(g.dir, "tasks"), tid); err != nil {
		return fmt.Errorf("cgroup: start %s in %s: %w", cmd.Path, g.dir, err)
	}
	startErr := cmd.Start()
	if err := writeFile(filepath.Join(g.c.parent, "tasks"), tid); err != nil {
		if startErr == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return fmt.Errorf("cgroup: move the starting thread back out of %s: %w", g.dir, err)
	}
	return startErr
}

// startV2 starts cmd in the group with CLONE_INTO_CGROUP.
func (g *Group) startV2(cmd *exec.Cmd) error {
	dir, err := os.Open(g.dir)
	if err != nil {
		return fmt.Errorf("cgroup: start %s in %s: %w", cmd.Path, g.dir, err)
	}
	defer dir.Close()
	attr := syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr
	}
	attr.UseCgroupFD = true
	attr.CgroupFD = int(dir.Fd())
	cmd.SysProcAttr = &attr
	return cmd.Start()
}
