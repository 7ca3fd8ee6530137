package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/plan"
	"github.com/enginebench/enginebench/internal/rundir"
	"github.com/enginebench/enginebench/internal/runlock"
)

// openRunDirs creates and locks the plan's results directory and data root (rundir.Open) and
// reports on log what earlier killed runs left nearby. dataGiven says --data-dir was given.
func openRunDirs(pl *plan.Plan, dataGiven bool, log io.Writer) (*rundir.Dirs, error) {
	o := rundir.Options{Results: pl.Out, DataRoot: pl.DataRoot, DataDefault: !dataGiven, Need: pl.Need,
		Run: runlock.Info{PID: os.Getpid(), RunID: pl.RunID, Started: pl.Started}}
	for _, c := range pl.Configs {
		if c.DSN == "" {
			dir := rundir.ConfigDir{Path: c.DataDir}
			if d, err := pl.Registry.Lookup(c.Engine); err == nil {
				dir.Check = d.CheckDataDir
			}
			o.Configs = append(o.Configs, dir)
		}
	}
	d, err := rundir.Open(o, log)
	if err != nil {
		return nil, pathError(inputError(err))
	}
	reportLeftovers(log, pl.Out, pl.DataRoot)
	return d, nil
}

// inputError gives an error of a package that checks input its exit status: bad input (2)
// for a *badinput.Error, pathError's for a *badinput.Path, and err as it is otherwise.
func inputError(err error) error {
	var bad *badinput.Error
	var path *badinput.Path
	switch {
	case errors.As(err, &bad):
		return usageError{err}
	case errors.As(err, &path):
		return pathError(err)
	}
	return err
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
