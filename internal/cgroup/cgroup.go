// Package cgroup caps the memory of a set of processes with a kernel control
// group: the cgroup v2 unified hierarchy where it has the memory controller,
// else the v1 memory controller. A Group is a child of the caller's own group
// with a memory limit; the processes added to it are charged for their
// anonymous memory and for the page cache they cause, and the kernel reclaims
// or OOM-kills inside the group when the limit is reached.
//
// The package does its own reads and writes of the cgroup files instead of
// using github.com/containerd/cgroups/v3: that module pulls in eBPF, D-Bus,
// systemd and logging modules for what is here a handful of small files.
package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NotMeasured stands in a Stats field the kernel does not keep.
const NotMeasured = -1

// Group is a memory-capped control group made by New.
type Group struct {
	c      controller
	dir    string
	closed bool
}

// Stats are a Group's memory figures in bytes, as the kernel keeps them.
type Stats struct {
	Limit    int64 // the cap (the kernel rounds it down to whole pages)
	Usage    int64 // charged now: anonymous memory plus page cache
	Peak     int64 // the highest Usage; NotMeasured where not kept (v2 before Linux 5.19)
	Cache    int64 // the page cache charged now
	OOMKills int64 // processes the kernel killed for the cap; NotMeasured where not kept
}

// New makes a group named enginebench-PID-name in the caller's own group of
// this machine, capped at limitBytes. See Host.New.
func New(name string, limitBytes int64) (*Group, error) {
	return Host{}.New(name, limitBytes)
}

// New makes a group named enginebench-PID-name (PID is the caller's) in the
// caller's own group, capped at limitBytes of memory. Memory charged before a
// process is added stays with its former group.
func (h Host) New(name string, limitBytes int64) (*Group, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return nil, fmt.Errorf("cgroup: bad group name %q", name)
	}
	if limitBytes <= 0 {
		return nil, fmt.Errorf("cgroup: memory limit %d: must be positive", limitBytes)
	}
	c, err := h.detect()
	if err != nil {
		return nil, err
	}
	if c.version == V2 {
		if err := enableMemory(c.parent); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(c.parent, fmt.Sprintf("enginebench-%d-%s", os.Getpid(), name))
	if err := mkGroup(c, dir); err != nil {
		return nil, err
	}
	g := &Group{c: c, dir: dir}
	if err := writeFile(filepath.Join(dir, limitFile(c.version)), strconv.FormatInt(limitBytes, 10)); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("cgroup: set memory limit of %s: %w", dir, err)
	}
	return g, nil
}

// enableMemory lets the children of a v2 group use the memory controller. The
// kernel refuses it in a group that holds processes (other than the root).
func enableMemory(parent string) error {
	sc, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err == nil && hasWord(sc, "memory") {
		return nil
	}
	if err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), "+memory"); err != nil {
		return fmt.Errorf("%w: enable the memory controller for the children of %s "+
			"(a cgroup v2 group that holds processes cannot): %w", ErrUnavailable, parent, err)
	}
	return nil
}

// Dir is the group's directory in the cgroup filesystem.
func (g *Group) Dir() string { return g.dir }

// Version is the hierarchy the group lives in.
func (g *Group) Version() Version { return g.c.version }

// Add moves the process pid (with all its threads) into the group; the
// processes it starts later are born in it.
func (g *Group) Add(pid int) error {
	if err := writeFile(filepath.Join(g.dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("cgroup: add process %d to %s: %w", pid, g.dir, err)
	}
	return nil
}

// Procs lists the processes in the group.
func (g *Group) Procs() ([]int, error) {
	b, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("cgroup: list processes of %s: %w", g.dir, err)
	}
	var pids []int
	for _, f := range bytes.Fields(b) {
		pid, err := strconv.Atoi(string(f))
		if err != nil {
			return nil, fmt.Errorf("cgroup: %s/cgroup.procs: %w", g.dir, err)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// statFiles names where a cgroup version keeps each figure of Stats.
type statFiles struct {
	limit, usage, peak string
	cache              []string // keys of memory.stat, the first found counts
	events             string   // the file with the oom_kill count
}

// filesOf returns the files of version v.
func filesOf(v Version) statFiles {
	if v == V2 {
		return statFiles{limit: "memory.max", usage: "memory.current", peak: "memory.peak",
			cache: []string{"file"}, events: "memory.events"}
	}
	return statFiles{limit: "memory.limit_in_bytes", usage: "memory.usage_in_bytes", peak: "memory.max_usage_in_bytes",
		cache: []string{"total_cache", "cache"}, events: "memory.oom_control"}
}

// Stats reads the group's memory figures; a peak the kernel does not keep (v2 before
// memory.peak) is NotMeasured.
func (g *Group) Stats() (Stats, error) {
	f := filesOf(g.c.version)
	var s Stats
	var err error
	if s.Limit, err = g.readInt(f.limit); err != nil {
		return Stats{}, err
	}
	if s.Usage, err = g.readInt(f.usage); err != nil {
		return Stats{}, err
	}
	s.Peak, err = g.readInt(f.peak)
	if errors.Is(err, os.ErrNotExist) {
		s.Peak = NotMeasured
	} else if err != nil {
		return Stats{}, err
	}
	if s.Cache, err = g.keyed("memory.stat", f.cache...); err != nil {
		return Stats{}, err
	}
	s.OOMKills = g.keyedOr(f.events, "oom_kill")
	return s, nil
}

// readInt reads a file holding one number; v2's "max" (no limit) reads as
// the largest int64.
func (g *Group) readInt(name string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(g.dir, name))
	if err != nil {
		return 0, fmt.Errorf("cgroup: read %s: %w", name, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 1<<63 - 1, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cgroup: %s/%s: %w", g.dir, name, err)
	}
	return n, nil
}

// keyed reads the first of keys found in a file of "key value" lines.
func (g *Group) keyed(name string, keys ...string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(g.dir, name))
	if err != nil {
		return 0, fmt.Errorf("cgroup: read %s: %w", name, err)
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok {
			vals[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range keys {
		if v, ok := vals[k]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("cgroup: %s/%s %s: %w", g.dir, name, k, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("cgroup: %s/%s has none of %v", g.dir, name, keys)
}

// keyedOr is keyed with NotMeasured where the kernel does not keep the key.
func (g *Group) keyedOr(name, key string) int64 {
	n, err := g.keyed(name, key)
	if err != nil {
		return NotMeasured
	}
	return n
}

// Close attempts, removes the group and backs off in between.
const (
	closeAttempts = 20
	closeBackoff  = 100 * time.Millisecond
)

// Close moves the processes still in the group back to the caller's own group
// (it does not kill them: they belong to the caller, which may be one of them)
// and removes the group. It gives up after a bounded number of attempts
// (under two seconds) when processes keep appearing or the kernel stays busy.
func (g *Group) Close() error {
	if g.closed {
		return nil
	}
	var last error
	for i := range closeAttempts {
		if i > 0 {
			time.Sleep(min(time.Millisecond<<i, closeBackoff))
		}
		pids, err := g.Procs()
		if errors.Is(err, os.ErrNotExist) {
			g.closed = true
			return nil
		}
		if err != nil {
			return err
		}
		if len(pids) > 0 {
			last = g.moveOut(pids)
			continue
		}
		if last = os.Remove(g.dir); last == nil || errors.Is(last, os.ErrNotExist) {
			g.closed = true
			return nil
		}
	}
	return fmt.Errorf("cgroup: remove %s after %d attempts: %w", g.dir, closeAttempts, last)
}

// moveOut moves pids to the parent group; a process that has exited meanwhile
// is no error.
func (g *Group) moveOut(pids []int) error {
	for _, pid := range pids {
		err := writeFile(filepath.Join(g.c.parent, "cgroup.procs"), strconv.Itoa(pid))
		if err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("move process %d out: %w", pid, err)
		}
	}
	return nil
}

// writeFile writes s to an existing cgroup file in a single write, as the
// kernel expects.
func writeFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
