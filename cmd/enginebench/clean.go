package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// What a run killed while running (SIGKILL, a crash, a power cut) leaves: its results
// directory, whose run.json says "running"; its data root, with its configurations' data;
// and its managed servers' socket directories. Each of the first two holds the run's lock
// file, which no process holds any more.

// socketGrace is how long a socket directory without its owner file is taken to belong to a
// server that is still starting (its initialisation can take minutes).
const socketGrace = time.Hour

// leftover is something a killed run left.
type leftover struct {
	kind string // "results", "data", "lock" (a finished run's stale lock file), "socket" or "cgroup"
	path string
	dead runlock.Info // the killed run, as its lock file names it (zero when unknown)
	size int64        // bytes, of a data root
	pid  int          // the process that made a cgroup
}

func (l leftover) String() string {
	who := ""
	if l.dead.PID != 0 {
		who = ", " + l.dead.String()
	}
	switch l.kind {
	case "results":
		return fmt.Sprintf("results directory %s (run.json says running%s)", l.path, who)
	case "data":
		return fmt.Sprintf("data directory %s (%s%s)", l.path, numfmt.Bytes(float64(l.size)), who)
	case "lock":
		return fmt.Sprintf("lock file of %s%s", l.path, who)
	case "cgroup":
		return fmt.Sprintf("memory cgroup %s of enginebench process %d, which is gone", l.path, l.pid)
	}
	return fmt.Sprintf("socket directory %s of a server that is gone", l.path)
}

func newCleanCmd(stdout io.Writer) *cobra.Command {
	var remove bool
	cmd := &cobra.Command{
		Use:   "clean [--remove] [DIR...]",
		Short: "List (and remove) what runs killed while running left: data, socket directories, memory cgroups; mark their results killed",
		Long: `A run killed while running (kill -9, a crash, a power cut, the OOM killer) leaves its data
directory, its managed servers' socket directories, its memory cgroups (--memory-limit) and a
results directory whose run.json says "running". clean lists them: in each DIR (a results or
data directory of a run, or a directory of them; default results and data), in the temporary
directory (the socket directories) and in the cgroup filesystem (the empty groups
enginebench-PID-NAME whose process PID is gone). It marks the status of each killed run's
run.json "killed" (a results directory is never removed); with --remove it removes the data
and socket directories and the groups. A live run is never touched: its directories are
locked, and its groups are named for its running process.`,
		RunE: func(_ *cobra.Command, args []string) error {
			for _, d := range args {
				if _, err := os.Stat(d); err != nil {
					return pathError(err)
				}
			}
			if len(args) == 0 {
				args = []string{"results", "data"} // the defaults of --out and --data-dir
			}
			return clean(stdout, args, remove)
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "remove the killed runs' data directories and the socket directories of servers that are gone")
	return cmd
}

// clean lists what killed runs left in dirs and in the temporary directory, marks killed
// runs' results, and with remove removes their data and socket directories.
func clean(stdout io.Writer, dirs []string, remove bool) error {
	found := append(findLeftovers(dirs, true), findSocketDirs(time.Now())...)
	found = append(found, findGroups()...)
	if len(found) == 0 {
		fmt.Fprintln(stdout, "nothing left by killed runs")
		return nil
	}
	var errs []error
	for _, l := range found {
		action, err := cleanOne(l, remove)
		if err != nil {
			errs = append(errs, err)
			action = "NOT cleaned: " + err.Error()
		}
		fmt.Fprintf(stdout, "%s: %s\n", l, action)
	}
	if !remove && slices.ContainsFunc(found, func(l leftover) bool { return l.kind != "results" && l.kind != "lock" }) {
		fmt.Fprintln(stdout, "enginebench clean --remove removes the data and socket directories and the cgroups")
	}
	return errors.Join(errs...)
}

// cleanOne marks a killed run's results and, with remove, removes a data or socket directory
// or a stale lock file; it returns what it did.
func cleanOne(l leftover, remove bool) (string, error) {
	switch {
	case l.kind == "results":
		if err := markKilled(l.path); err != nil {
			return "", err
		}
		return "marked killed", nil
	case !remove:
		return "left (--remove removes it)", nil
	case l.kind == "socket":
		return "removed", os.RemoveAll(l.path)
	case l.kind == "cgroup":
		return "removed", cgroup.Leftover{Dir: l.path, PID: l.pid}.Remove()
	case l.kind == "lock":
		_, err := runlock.RemoveStale(l.path, nil)
		return "removed", err
	}
	in, err := runlock.RemoveStale(l.path, func(runlock.Info) error { return removeContents(l.path) })
	if err == nil && in.Created {
		// The run created the directory: it goes too, unless a new run took it meanwhile.
		if err = os.Remove(l.path); errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			err = nil
		}
	}
	return "removed", err
}

// markKilled sets the status of the killed run in dir, and of its running configurations, to
// killed, and removes its stale lock file.
func markKilled(dir string) error {
	mark := func(runlock.Info) error {
		r, err := result.Load(dir)
		if err != nil {
			return err
		}
		if r.Status != result.StatusRunning {
			return nil
		}
		r.Status = result.StatusKilled
		r.Error = "killed while running (found by enginebench clean): the results of the steps it finished are here"
		for i := range r.Configs {
			if c := &r.Configs[i]; c.Status == result.StatusRunning {
				c.Status = result.StatusKilled
			}
		}
		return result.OpenDir(dir).WriteRun(r)
	}
	if st, _, err := runlock.Probe(dir); err == nil && st == runlock.None {
		return mark(runlock.Info{}) // a run of a build older than the lock file
	}
	_, err := runlock.RemoveStale(dir, mark)
	return err
}

// removeContents removes what a killed run left in its data root dir, but its lock file.
func removeContents(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), runlock.FileName) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// findLeftovers returns what killed runs left in dirs: each is a run's results or data
// directory, or a directory of them. thorough reads the run.json of every run without a lock
// file (runs of builds older than the lock); otherwise only locked directories are looked at.
func findLeftovers(dirs []string, thorough bool) []leftover {
	var out []leftover
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
				if l, ok := leftoverIn(c, thorough); ok {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// leftoverIn tells what a killed run left in dir, if anything.
func leftoverIn(dir string, thorough bool) (leftover, bool) {
	st, info, err := runlock.Probe(dir)
	if err != nil || st == runlock.Held || (st == runlock.None && !thorough) {
		return leftover{}, false
	}
	status, err := runStatus(filepath.Join(dir, "run.json"))
	switch {
	case err == nil && status == result.StatusRunning:
		return leftover{kind: "results", path: dir, dead: info}, true
	case st == runlock.None:
		return leftover{}, false
	case err == nil || info.Role == "results":
		return leftover{kind: "lock", path: dir, dead: info}, true
	}
	return leftover{kind: "data", path: dir, dead: info, size: diskUsage(dir)}, true
}

// runStatus reads the status of the run.json at path: its first keys only (status comes
// before the configurations).
func runStatus(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("%s: not a run", path)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		if t == "status" {
			var s string
			return s, json.Unmarshal(v, &s)
		}
	}
	return "", fmt.Errorf("%s: no status", path)
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

// findSocketDirs returns the socket directories of managed servers whose enginebench is gone
// (an empty one without its owner file counts after socketGrace: a server may still be
// starting).
func findSocketDirs(now time.Time) []leftover {
	var out []leftover
	for _, dir := range server.StaleSocketDirs(now, socketGrace) {
		out = append(out, leftover{kind: "socket", path: dir})
	}
	return out
}

// findGroups returns the memory cgroups that runs killed while running left (none where the
// cgroup filesystem cannot be read).
func findGroups() []leftover {
	groups, _ := cgroup.Leftovers()
	var out []leftover
	for _, g := range groups {
		out = append(out, leftover{kind: "cgroup", path: g.Dir, pid: g.PID})
	}
	return out
}

// reportLeftovers prints what killed runs left beside the run's results directory out and its
// data root, and in the temporary directory.
func reportLeftovers(log io.Writer, out, dataRoot string) {
	dirs := []string{filepath.Dir(filepath.Clean(out))}
	if d := filepath.Dir(filepath.Clean(dataRoot)); dataRoot != "" && d != dirs[0] {
		dirs = append(dirs, d)
	}
	found := append(findLeftovers(dirs, false), findSocketDirs(time.Now())...)
	found = append(found, findGroups()...)
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(log, "enginebench: runs killed while running left (see `enginebench clean --remove %s`):\n", strings.Join(dirs, " "))
	for _, l := range found {
		fmt.Fprintf(log, "enginebench:   %s\n", l)
	}
}
