package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// initTimeout bounds an initialisation program (initdb, mariadb-install-db); they take seconds.
const initTimeout = 10 * time.Minute

// errDiskFull stops an initialisation program whose output says that the disk is full: MariaDB's
// bootstrap then waits for free space forever, printing nothing more.
var errDiskFull = errors.New("the disk is full")

// errStopped marks the error of an initialisation program that runInit stopped.
var errStopped = errors.New("stopped")

// errAborted is the cause of a Start stopped by Options.Abort.
var errAborted = errors.New("aborted: stopped at once (Abort)")

// diskFullMarks are what the servers and their initialisation programs write when a write failed
// for lack of space: mysys's "Disk is full writing ... Waiting for someone to free space", and
// ENOSPC's message.
var diskFullMarks = []string{"Disk is full", "No space left on device"}

// diskFullLine returns the first line of lines that says the disk is full, or "".
func diskFullLine(lines []string) string {
	for _, l := range lines {
		for _, m := range diskFullMarks {
			if strings.Contains(l, m) {
				return stripTimestamp(l)
			}
		}
	}
	return ""
}

// maxInitOutput bounds the output of an initialisation program kept in memory (its end).
const maxInitOutput = 1 << 20

// outputWatch collects a program's output (the same writer for stdout and stderr, so that exec
// calls Write from one goroutine at a time) and calls diskFull once when it says that the disk is
// full.
type outputWatch struct {
	buf      []byte
	diskFull func()
	fired    bool
}

func (w *outputWatch) Write(p []byte) (int, error) {
	from := max(0, len(w.buf)-64) // a mark may straddle two writes
	w.buf = append(w.buf, p...)
	if !w.fired {
		for _, m := range diskFullMarks {
			if bytes.Contains(w.buf[from:], []byte(m)) {
				w.fired = true
				w.diskFull()
				break
			}
		}
	}
	if len(w.buf) > maxInitOutput {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-maxInitOutput:]...)
	}
	return len(p), nil
}

// runInit runs an initialisation program as id in the data directory, bounded by ctx, by
// initTimeout and by Options.Abort, and stopped (its whole process group killed) as soon as its
// output says the disk is full. It returns the program's output (stdout and stderr) and, when it
// did not succeed, an error that says why it stopped.
func (s *Server) runInit(ctx context.Context, id identity, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(initTimeout, func() {
		cancel(fmt.Errorf("%s did not finish within %s", filepath.Base(bin), initTimeout))
	})
	defer timer.Stop()
	defer s.onAbort(func() { cancel(errAborted) })()
	out := &outputWatch{diskFull: func() { cancel(errDiskFull) }}
	cmd := initCommand(ctx, id, s.dataDir, bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	err := runOnOwnThread(cmd)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w: %w (%v)", errStopped, context.Cause(ctx), err)
	}
	return out.buf, err
}

// onAbort calls f (from another goroutine) when Options.Abort is closed, unless the function it
// returns was called before.
func (s *Server) onAbort(f func()) (stop func()) {
	if s.abort == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-s.abort:
			f()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// aborted reports whether Options.Abort is closed.
func (s *Server) aborted() bool {
	select {
	case <-s.abort:
		return true
	default:
		return false
	}
}

// runOnOwnThread runs cmd to its end from a goroutine locked to its OS thread, which ends with
// the goroutine. The parent-death signal of a child fires when the thread that started it exits
// (not the process): a thread of the Go runtime may exit at any time (when a goroutine locked to
// it ends), but this one lives until the child has been waited for.
func runOnOwnThread(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		done <- cmd.Run()
	}()
	return <-done
}

// startOnOwnThread starts cmd with start (cmd.Start, or a start in a memory-capped group) from
// a goroutine locked to its OS thread, which lives until cmd has exited (see runOnOwnThread),
// then calls exited with Wait's error, from that goroutine.
func startOnOwnThread(cmd *exec.Cmd, start func() error, exited func(error)) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if err := start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited(cmd.Wait())
	}()
	return <-started
}
