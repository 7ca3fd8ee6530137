package killedrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// killedError is the error a killed run's run.json gets when it is marked killed.
const killedError = "killed while running (found by enginebench clean): the results of the steps it finished are here"

// Clean marks a killed run's results killed (a results directory is never removed) and, with
// remove, removes a data or socket directory, a cgroup or a stale lock file; it returns what
// it did.
func (l Leftover) Clean(remove bool) (string, error) {
	switch {
	case l.Kind == Results:
		if err := markKilled(l.Path); err != nil {
			return "", err
		}
		return "marked killed", nil
	case !remove:
		return "left (--remove removes it)", nil
	case l.Kind == Socket:
		return "removed", os.RemoveAll(l.Path)
	case l.Kind == Cgroup:
		return "removed", cgroup.Leftover{Dir: l.Path, PID: l.PID}.Remove()
	case l.Kind == Lock:
		_, err := runlock.RemoveStale(l.Path, nil)
		return "removed", err
	}
	in, err := runlock.RemoveStale(l.Path, func(runlock.Info) error { return removeContents(l.Path) })
	if err == nil && in.Created {
		// The run created the directory: it goes too, unless a new run took it meanwhile.
		if err = os.Remove(l.Path); errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
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
		if !r.MarkKilled(killedError) {
			return nil
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
