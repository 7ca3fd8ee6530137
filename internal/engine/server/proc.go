package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// tree returns the PIDs of the server's live processes, ascending: the main process while it
// runs, every process of the server binary whose working directory is the data directory
// (postmaster children and mariadbd set it there, and they outlive a killed main process), and
// the descendants of both (see ownProcess). Zombies do not count.
func (s *Server) tree() ([]int, error) {
	pfs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	procs, err := pfs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	mainRuns := false
	if s.pid > 0 {
		select {
		case <-s.exited:
		default:
			mainRuns = true
		}
	}
	s.knownMu.Lock()
	defer s.knownMu.Unlock()
	if s.known == nil {
		s.known = make(map[int]bool)
	}
	self := os.Getpid()
	children := make(map[int][]int)
	var roots []int
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || st.State == "Z" || st.State == "X" || p.PID == self {
			continue // gone, a zombie, or enginebench itself
		}
		children[st.PPID] = append(children[st.PPID], p.PID)
		if (mainRuns && p.PID == s.pid) || s.ownProcess(p, st) {
			roots = append(roots, p.PID)
		}
	}
	seen := make(map[int]bool)
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		roots = append(roots, children[pid]...)
	}
	out := make([]int, 0, len(seen))
	for pid := range seen {
		out = append(out, pid)
		s.known[pid] = true
	}
	sort.Ints(out)
	return out, nil
}

// ownProcess reports whether p runs the server binary in the server's data directory, or is
// a process of the server binary, of the server's user, that was seen in the tree before and
// is exiting: its executable and working directory are already gone, which happens to the
// children of a killed postmaster that notice its death and exit by themselves. The caller
// holds knownMu.
func (s *Server) ownProcess(p procfs.Proc, st procfs.ProcStat) bool {
	if s.exe == "" || s.dataDir == "" {
		return false
	}
	exe, err := p.Executable() // "" when the link is gone
	if err != nil {
		return false
	}
	if exe == "" {
		if st.Comm != filepath.Base(s.exe) || !s.known[p.PID] {
			return false
		}
		status, err := p.NewStatus()
		return err == nil && int(status.UIDs[1]) == s.uid
	}
	if strings.TrimSuffix(exe, " (deleted)") != s.exe {
		return false
	}
	cwd, err := p.Cwd()
	return err == nil && cwd == s.dataDir
}

// killTree sends SIGKILL to every process of the tree until none is left, or returns an error
// after timeout.
func (s *Server) killTree(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pids, err := s.tree()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s server: processes %v are still there %s after SIGKILL", s.kind, pids, timeout)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("%s server: kill pid %d: %w", s.kind, pid, err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// resolveExe returns the absolute path of an executable with symlinks resolved, as
// /proc/<pid>/exe shows it.
func resolveExe(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		if abs, err := filepath.Abs(r); err == nil {
			return abs
		}
	}
	return path
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// continueTree sends SIGCONT to every process of the tree, so that processes stopped by
// SIGSTOP handle the signal that shuts them down.
func (s *Server) continueTree() {
	pids, _ := s.tree()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}
