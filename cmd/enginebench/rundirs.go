package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runlock"
)

// runDirs are the run's results directory and data root, each locked for the run
// (runlock), so that two runs never share one.
type runDirs struct {
	results *result.Dir
	// dataRoot holds the managed configurations' data ("" when there is none); dataDefault
	// tells it is data/<run id>, which goes (with data/) when the run leaves it empty.
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

// openRunDirs creates and locks the data root and the results directory and checks that they
// can be written, with room enough, before any work starts. It reports on log what earlier
// killed runs left nearby.
func openRunDirs(pl *runPlan, dataGiven bool, log io.Writer) (d *runDirs, err error) {
	d = &runDirs{dataRoot: pl.dataRoot, dataDefault: !dataGiven, log: log}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	info := runlock.Info{PID: os.Getpid(), RunID: pl.runID, Started: pl.started}
	if pl.dataRoot != "" {
		if d.dataLock, err = d.lock(pl.dataRoot, "data", info); err != nil {
			return d, err
		}
		if err := checkDataRoot(pl.dataRoot, pl.need); err != nil {
			return d, pathError(err)
		}
		if err := checkConfigDirs(pl); err != nil {
			return d, err
		}
	}
	if d.resultsLock, err = d.lock(pl.out, "results", info); err != nil {
		return d, err
	}
	if d.results, err = result.CreateDir(pl.out); err != nil {
		return d, pathError(err)
	}
	reportLeftovers(log, pl.out, pl.dataRoot)
	return d, nil
}

// lock creates dir (and its parents) and takes its lock for the run described by info.
func (d *runDirs) lock(dir, role string, info runlock.Info) (*runlock.Lock, error) {
	created, err := mkdirAll(dir)
	d.created = append(d.created, created...)
	if err != nil {
		return nil, pathError(fmt.Errorf("%s directory %s cannot be created: %w", role, dir, err))
	}
	info.Role, info.Created = role, slices.Contains(created, dir)
	l, err := runlock.Acquire(dir, info)
	var busy *runlock.BusyError
	var stale *runlock.StaleError
	switch {
	case errors.As(err, &busy):
		return nil, usagef("%s directory %s is in use by another enginebench run, %s: two runs never share a results or data directory",
			role, dir, busy.Holder)
	case errors.As(err, &stale):
		return nil, usagef("%s directory %s holds what %s left when it was killed while running: see `enginebench clean %s`",
			role, dir, stale.Dead, dir)
	case err != nil:
		return nil, pathError(err)
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

// checkDataRoot checks that the locked data root is empty and writable with need bytes free.
func checkDataRoot(dir string, need int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	if slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !strings.HasPrefix(e.Name(), runlock.FileName) }) {
		return fmt.Errorf("data directory %s is not empty", dir)
	}
	return checkDataSpace(dir, need)
}

// checkConfigDirs checks that each managed configuration's data directory can be created and
// that its engine can use it (a managed server's user must reach it). Each is removed again:
// Execute creates it when its configuration starts, so an interrupted or refused run leaves
// no empty directory of a configuration that never ran.
func checkConfigDirs(pl *runPlan) error {
	for _, c := range pl.cps {
		if c.DSN != "" {
			continue
		}
		if err := os.Mkdir(c.DataDir, 0o755); err != nil {
			return pathError(fmt.Errorf("data directory %s: %w", c.DataDir, err))
		}
		var err error
		if d, lerr := pl.reg.Lookup(c.Engine); lerr == nil && d.CheckDataDir != nil {
			err = d.CheckDataDir(c.DataDir)
		}
		if rerr := os.Remove(c.DataDir); err == nil && rerr != nil {
			err = pathError(fmt.Errorf("data directory %s: %w", c.DataDir, rerr))
		}
		if err != nil {
			return usageError{err}
		}
	}
	return nil
}

// started records that the run started: the directories it created stay.
func (d *runDirs) started() { d.ran = true }

// close releases the locks and removes what the run leaves empty: the default data root (and
// data/), and when the run was refused, the directories it created.
func (d *runDirs) close() {
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

// pathError returns err, met while reading or preparing a file or directory the user named
// (or its default), with its exit status: bad input (2) when the path cannot be used as given
// (missing, permissions, not a directory, read-only, full, ...) or a check of enginebench's
// refused it; a failure (1) when the machine failed (an I/O error, no memory, ...).
func pathError(err error) error {
	var ue usageError
	var ee exitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return usageError{err} // one of enginebench's checks
	}
	for _, input := range []error{fs.ErrPermission, fs.ErrExist, fs.ErrNotExist, syscall.ENOTDIR, syscall.EISDIR,
		syscall.EROFS, syscall.ENOSPC, syscall.EDQUOT, syscall.ENAMETOOLONG, syscall.ELOOP, syscall.ENOTEMPTY} {
		if errors.Is(err, input) {
			return usageError{err}
		}
	}
	return exitError{exitFailed, err.Error()}
}
