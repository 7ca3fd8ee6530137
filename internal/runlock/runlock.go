// Package runlock gives a run exclusive use of a directory (its results directory, its data
// root): a lock file, .enginebench.lock, held with flock(2) for as long as the run lives and
// naming the run. Two runs never share a directory; a run killed without a chance to clean
// up (SIGKILL, a crash) leaves its lock file behind, unlocked, which tells what it left.
package runlock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FileName is the lock file's name in a locked directory.
const FileName = ".enginebench.lock"

// Info is what a lock file records about the run that holds (or held) the directory.
type Info struct {
	PID     int
	RunID   string
	Started time.Time
	// Role says what the directory is to the run: "results" or "data".
	Role string
	// Created says whether the run created the directory (so that it may be removed whole).
	Created bool
}

// encode returns the lock file's text.
func (i Info) encode() []byte {
	return fmt.Appendf(nil, "pid: %d\nrun: %s\nstarted: %s\nrole: %s\ncreated: %t\n",
		i.PID, i.RunID, i.Started.UTC().Format(time.RFC3339), i.Role, i.Created)
}

// parseInfo reads a lock file's text; unknown or malformed lines are skipped.
func parseInfo(b []byte) Info {
	var i Info
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		switch k {
		case "pid":
			i.PID, _ = strconv.Atoi(v)
		case "run":
			i.RunID = v
		case "started":
			i.Started, _ = time.Parse(time.RFC3339, v)
		case "role":
			i.Role = v
		case "created":
			i.Created = v == "true"
		}
	}
	return i
}

// String describes the run for messages: "run ID (pid N)".
func (i Info) String() string {
	if i.RunID == "" {
		return fmt.Sprintf("pid %d", i.PID)
	}
	return fmt.Sprintf("run %s (pid %d)", i.RunID, i.PID)
}

// BusyError is returned by Acquire when another live process holds the directory.
type BusyError struct {
	Dir    string
	Holder Info
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is in use by another enginebench run, %s", e.Dir, e.Holder)
}

// StaleError is returned by Acquire when the directory holds a lock file that no process
// holds: the run it names died without releasing it (SIGKILL, a crash), and what it left is
// still there. RemoveStale removes the lock file.
type StaleError struct {
	Dir  string
	Dead Info
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s holds the lock file of %s, which was killed while running", e.Dir, e.Dead)
}

// Lock is a held lock on a directory.
type Lock struct {
	f    *os.File
	path string
}

// Acquire locks dir, which must exist, for the run described by info: it creates the lock
// file with info already in it, so that a run refused by the lock can always name its holder,
// and holds it locked until Release. When a live process holds dir it returns a *BusyError;
// when a dead run's lock file is there, a *StaleError.
func Acquire(dir string, info Info) (*Lock, error) {
	path := filepath.Join(dir, FileName)
	tmp, err := os.CreateTemp(dir, FileName+".new-*")
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name()) // the lock file is its other name
	fail := func(err error) (*Lock, error) {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Write(info.encode()); err != nil {
		return fail(fmt.Errorf("lock %s: %w", dir, err))
	}
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(fmt.Errorf("lock %s: %w", dir, err))
	}
	// A holder's lock file is locked from the moment its name exists; an open that finds it
	// gone, or replaced, looks again (only a directory whose lock changes hands on every look
	// runs out of attempts).
	for range 10 {
		err := os.Link(tmp.Name(), path)
		if err == nil {
			return &Lock{f: tmp, path: path}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return fail(fmt.Errorf("lock %s: %w", dir, err))
		}
		st, holder, err := probe(path, syscall.LOCK_SH)
		switch {
		case errors.Is(err, errReplaced):
			continue
		case err != nil:
			return fail(err)
		case st == Held:
			return fail(&BusyError{Dir: dir, Holder: holder})
		}
		return fail(&StaleError{Dir: dir, Dead: holder})
	}
	return fail(fmt.Errorf("lock %s: the lock file keeps changing hands", dir))
}

// errReplaced: the lock file was removed or replaced while it was being looked at.
var errReplaced = errors.New("lock file replaced")

// probe opens the lock file at path, reads its record and tries to lock it with how (shared
// or exclusive, without waiting): Held when a live process holds it, else Stale, with the
// file open and locked (f; the caller closes it). errReplaced when path no longer names it.
func probe(path string, how int) (State, Info, error) {
	st, info, f, err := probeOpen(path, how)
	if f != nil {
		f.Close()
	}
	return st, info, err
}

func probeOpen(path string, how int) (State, Info, *os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return None, Info{}, nil, errReplaced
	}
	if err != nil {
		return None, Info{}, nil, fmt.Errorf("lock of %s: %w", filepath.Dir(path), err)
	}
	b, err := readSmall(f)
	if err != nil {
		f.Close()
		return None, Info{}, nil, fmt.Errorf("lock of %s: %w", filepath.Dir(path), err)
	}
	info := parseInfo(b)
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return Held, info, nil, nil
		}
		return None, info, nil, fmt.Errorf("lock of %s: %w", filepath.Dir(path), err)
	}
	if !samePath(f, path) {
		f.Close()
		return None, info, nil, errReplaced
	}
	return Stale, info, f, nil
}

// samePath reports whether path still names the open file f.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// readSmall reads a lock file (a few lines; at most 4 KiB are read).
func readSmall(f *os.File) ([]byte, error) {
	b := make([]byte, 4096)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

// Release removes the lock file and unlocks it. The directory is the caller's again.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	rerr := os.Remove(l.path)
	cerr := l.f.Close()
	l.f = nil
	if err := errors.Join(rerr, cerr); err != nil {
		return fmt.Errorf("release the lock of %s: %w", filepath.Dir(l.path), err)
	}
	return nil
}

// State is what Probe finds in a directory.
type State int

// The states of a directory's lock.
const (
	None  State = iota // no lock file
	Held               // locked by a live process
	Stale              // a lock file that no process holds: its run died without removing it
)

// Probe tells whether dir has a lock file and whether a live process holds it, and returns
// the record it holds.
func Probe(dir string) (State, Info, error) {
	path := filepath.Join(dir, FileName)
	for range 10 {
		st, info, err := probe(path, syscall.LOCK_SH)
		if errors.Is(err, errReplaced) {
			if _, serr := os.Lstat(path); errors.Is(serr, os.ErrNotExist) {
				return None, Info{}, nil
			}
			continue
		}
		return st, info, err
	}
	return None, Info{}, fmt.Errorf("lock of %s: the lock file keeps changing hands", dir)
}

// RemoveStale removes dir's lock file if no live process holds it and returns its record; a
// *BusyError when one does. then, when not nil, runs first, while the lock file is held
// exclusively (no run can take dir meanwhile): to remove what the dead run left, or to mark
// its results. When then fails, the lock file stays.
func RemoveStale(dir string, then func(Info) error) (Info, error) {
	path := filepath.Join(dir, FileName)
	st, info, f, err := probeOpen(path, syscall.LOCK_EX)
	switch {
	case errors.Is(err, errReplaced):
		return Info{}, nil // gone already
	case err != nil:
		return info, err
	case st == Held:
		return info, &BusyError{Dir: dir, Holder: info}
	}
	defer f.Close() // held exclusively until the name is gone
	if then != nil {
		if err := then(info); err != nil {
			return info, err
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return info, fmt.Errorf("remove the lock of %s: %w", dir, err)
	}
	return info, nil
}
