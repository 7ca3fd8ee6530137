// Package killedrun finds and removes what a run killed while running (SIGKILL, a crash, a
// power cut, the OOM killer) left: its results directory, whose run.json says "running"; its
// data root, with its configurations' data; its managed servers' socket directories; and its
// memory cgroups. Each of the first two holds the run's lock file (package runlock), which no
// process holds any more: a live run's directories are locked, and its groups are named for
// its running process, so nothing of a live run is ever found.
package killedrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// SocketGrace is how long a socket directory without its owner file is taken to belong to a
// server that is still starting (its initialisation can take minutes).
const SocketGrace = time.Hour

// Kind is what a Leftover is.
type Kind string

// The kinds of leftovers.
const (
	Results Kind = "results" // a results directory whose run.json says running
	Data    Kind = "data"    // a data root
	Lock    Kind = "lock"    // a finished run's stale lock file
	Socket  Kind = "socket"  // a managed server's socket directory
	Cgroup  Kind = "cgroup"  // a memory cgroup
)

// Leftover is something a killed run left.
type Leftover struct {
	Kind Kind
	Path string
	Dead runlock.Info // the killed run, as its lock file names it (zero when unknown)
	Size int64        // bytes, of a data root
	PID  int          // the process that made a cgroup
}

func (l Leftover) String() string {
	who := ""
	if l.Dead.PID != 0 {
		who = ", " + l.Dead.String()
	}
	switch l.Kind {
	case Results:
		return fmt.Sprintf("results directory %s (run.json says running%s)", l.Path, who)
	case Data:
		return fmt.Sprintf("data directory %s (%s%s)", l.Path, numfmt.Bytes(float64(l.Size)), who)
	case Lock:
		return fmt.Sprintf("lock file of %s%s", l.Path, who)
	case Cgroup:
		return fmt.Sprintf("memory cgroup %s of enginebench process %d, which is gone", l.Path, l.PID)
	}
	return fmt.Sprintf("socket directory %s of a server that is gone", l.Path)
}

// Find returns what killed runs left in dirs (see InDirs), in the temporary directory (the
// socket directories of managed servers whose enginebench is gone at now) and in the cgroup
// filesystem (none where it cannot be read).
func Find(dirs []string, thorough bool, now time.Time) []Leftover {
	found := append(InDirs(dirs, thorough), SocketDirs(now)...)
	groups, _ := cgroup.Leftovers()
	for _, g := range groups {
		found = append(found, Leftover{Kind: Cgroup, Path: g.Dir, PID: g.PID})
	}
	return found
}

// InDirs returns what killed runs left in dirs: each is a run's results or data directory, or
// a directory of them. thorough reads the run.json of every run without a lock file (runs of
// builds older than the lock); otherwise only locked directories are looked at.
func InDirs(dirs []string, thorough bool) []Leftover {
	var out []Leftover
	seen := map[string]bool{}
	for _, d := range dirs {
		cands := []string{d}
		if entries, err := os.ReadDir(d); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					cands = append(cands, filepath.Join(d, e.Name()))
				}
			}
		}
		for _, c := range cands {
			if abs, err := filepath.Abs(c); err == nil && !seen[abs] {
				seen[abs] = true
				if l, ok := in(c, thorough); ok {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// in tells what a killed run left in dir, if anything.
func in(dir string, thorough bool) (Leftover, bool) {
	st, info, err := runlock.Probe(dir)
	if err != nil || st == runlock.Held || (st == runlock.None && !thorough) {
		return Leftover{}, false
	}
	status, err := result.ReadStatus(dir)
	switch {
	case err == nil && status == result.StatusRunning:
		return Leftover{Kind: Results, Path: dir, Dead: info}, true
	case st == runlock.None:
		return Leftover{}, false
	case err == nil || info.Role == "results":
		return Leftover{Kind: Lock, Path: dir, Dead: info}, true
	}
	return Leftover{Kind: Data, Path: dir, Dead: info, Size: diskUsage(dir)}, true
}

// diskUsage returns the bytes of the files under dir (0 where it cannot be read).
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// SocketDirs returns the socket directories of managed servers whose enginebench is gone at
// now (an empty one without its owner file counts after SocketGrace: a server may still be
// starting).
func SocketDirs(now time.Time) []Leftover {
	var out []Leftover
	for _, dir := range server.StaleSocketDirs(now, SocketGrace) {
		out = append(out, Leftover{Kind: Socket, Path: dir})
	}
	return out
}
