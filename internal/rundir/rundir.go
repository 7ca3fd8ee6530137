// Package rundir prepares a run's results directory and data root before any work starts:
// each is created (with its missing parents) and locked for the run (package runlock), so that
// two runs never share one; the data root is checked for room and for the configurations'
// data directories; the results directory is created by package result. What a refused run
// created is removed again.
package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// Options say which directories a run uses.
type Options struct {
	Results string // the results directory
	// DataRoot holds the managed configurations' data ("" when there is none); DataDefault
	// tells it is the default data/<run id>, which goes (with data/) when the run leaves it
	// empty.
	DataRoot    string
	DataDefault bool
	Need        int64       // the bytes the data root needs free
	Configs     []ConfigDir // the managed configurations' data directories, in the data root
	Run         runlock.Info
}

// ConfigDir is a managed configuration's data directory and its engine's check that it can use
// it (nil for none).
type ConfigDir struct {
	Path  string
	Check func(dir string) error
}

// Dirs are the run's results directory and data root, each locked for the run.
type Dirs struct {
	Results     *result.Dir
	dataRoot    string
	dataDefault bool
	dataLock    *runlock.Lock
	resultsLock *runlock.Lock
	// created are the directories the run created, parents first: those left empty go when
	// the run is refused (a run that ran keeps a --data-dir it created).
	created []string
	ran     bool
	log     io.Writer
}

// Open creates and locks the data root and the results directory of o and checks that they
// can be written, with room enough, before any work starts. Close, on log, reports a lock it
// cannot release. An error is a *badinput.Error (another run holds a directory, a killed run left it, the engine cannot use it), or one of the system's (errors.Is sees its
// errno) or a check's; what Open created is gone again.
func Open(o Options, log io.Writer) (*Dirs, error) {
	d := &Dirs{dataRoot: o.DataRoot, dataDefault: o.DataDefault, log: log}
	if err := d.open(o); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// open creates, locks and checks the directories of o.
func (d *Dirs) open(o Options) error {
	var err error
	if o.DataRoot != "" {
		if d.dataLock, err = d.lock(o.DataRoot, "data", o.Run); err != nil {
			return err
		}
		if err := checkDataRoot(o.DataRoot, o.Need); err != nil {
			return err
		}
		if err := checkConfigDirs(o.Configs); err != nil {
			return err
		}
	}
	if d.resultsLock, err = d.lock(o.Results, "results", o.Run); err != nil {
		return err
	}
	d.Results, err = result.CreateDir(o.Results)
	return err
}

// lock creates dir (and its parents) and takes its lock for the run described by info.
func (d *Dirs) lock(dir, role string, info runlock.Info) (*runlock.Lock, error) {
	created, err := mkdirAll(dir)
	d.created = append(d.created, created...)
	if err != nil {
		return nil, fmt.Errorf("%s directory %s cannot be created: %w", role, dir, err)
	}
	info.Role, info.Created = role, slices.Contains(created, dir)
	l, err := runlock.Acquire(dir, info)
	var busy *runlock.BusyError
	var stale *runlock.StaleError
	switch {
	case errors.As(err, &busy):
		return nil, badinput.Errorf("%s directory %s is in use by another enginebench run, %s: two runs never share a results or data directory",
			role, dir, busy.Holder)
	case errors.As(err, &stale):
		return nil, badinput.Errorf("%s directory %s holds what %s left when it was killed while running: see `enginebench clean %s`",
			role, dir, stale.Dead, dir)
	case err != nil:
		return nil, err
	}
	return l, nil
}

// mkdirAll creates dir and its missing parents and returns those it created, parents first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	slices.Reverse(missing)
	for i, p := range missing {
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], err
		}
	}
	return missing, nil
}

// Started records that the run started: the directories it created stay.
func (d *Dirs) Started() { d.ran = true }

// Close releases the locks and removes what the run leaves empty: the default data root (and
// data/), and when the run was refused, the directories it created.
func (d *Dirs) Close() {
	release := func(l *runlock.Lock) {
		if err := l.Release(); err != nil {
			fmt.Fprintf(d.log, "enginebench: %v\n", err)
		}
	}
	release(d.dataLock)
	if d.dataRoot != "" && d.dataDefault {
		os.Remove(d.dataRoot)               // the per-configuration directories are already gone
		os.Remove(filepath.Dir(d.dataRoot)) // data/, when no other run's data is in it
	}
	release(d.resultsLock)
	for i := len(d.created) - 1; i >= 0 && !d.ran; i-- {
		os.Remove(d.created[i]) // only an empty directory goes
	}
	d.dataLock, d.resultsLock, d.created = nil, nil, nil
}
