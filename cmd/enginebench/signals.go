package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// runSignals is how a run hears that it must stop.
type runSignals struct {
	// ctx is cancelled at the first stop signal: the step in progress ends as interrupted,
	// results so far are written and the managed servers are shut down.
	ctx context.Context
	// abort is closed at the second: the managed servers are killed at once (engine.Config's
	// Abort) instead of shut down; results are still written.
	abort <-chan struct{}
	stop  func()
}

// notifySignals starts listening for the signals that stop a run, Ctrl-C (SIGINT), SIGTERM
// and SIGHUP (a closed terminal or ssh session); the first and second are announced on log.
// SIGPIPE is caught too, so that a closed pipe on stdout or stderr (an ssh session gone) fails
// a write instead of killing the run before its results are written. stop ends the listening.
func notifySignals(log io.Writer) runSignals {
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				if s == syscall.SIGPIPE {
					continue
				}
				n++
				switch n {
				case 1:
					fmt.Fprintf(log, "\nenginebench: %s: stopping: the step in progress ends as interrupted, results so far are written and the servers are shut down; press Ctrl-C again to kill the servers at once\n", signalName(s))
					cancel()
				case 2:
					fmt.Fprintf(log, "\nenginebench: second stop signal, %s: killing the servers at once; results are still written\n", signalName(s))
					close(abort)
				}
			}
		}
	}()
	return runSignals{ctx: ctx, abort: abort, stop: func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}}
}

// signalName names a stop signal as users know it.
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "Ctrl-C (SIGINT)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (terminal closed)"
	}
	return s.String()
}
