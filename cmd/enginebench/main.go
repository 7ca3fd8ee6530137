// Command enginebench runs storage-engine benchmarks (the Insert Benchmark, iiBench and
// LinkBench) against embedded engines and database servers, and reports throughput, latency
// and efficiency. This package only parses flags and wires the parts together.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1   // the run ran but a step or configuration failed
	exitUsage       = 2   // bad input, found before any work started
	exitInterrupted = 130 // Ctrl-C
)

// usageError is bad input found before any work started: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries a status for a run that did work and then failed or was interrupted.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runRoot(newRootCmd(stdout, stderr), args, stderr)
}

// runRoot executes root with args and returns the exit status: 2 for bad input (a usageError,
// or cobra's own errors: an unknown command or flag, a bad flag value, too many arguments),
// the status of an exitError, and 1 for any other error of a command's work.
func runRoot(root *cobra.Command, args []string, stderr io.Writer) int {
	for _, c := range root.Commands() {
		if c.RunE != nil {
			runE := c.RunE
			c.RunE = func(cmd *cobra.Command, args []string) error { return workError(runE(cmd, args)) }
		}
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "enginebench: %v\n", err)
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}

// workError returns err as a command's work returned it: a usageError or exitError keeps its
// status, any other error is a failure that is not the user's input (exit status 1).
func workError(err error) error {
	var ue usageError
	var ee exitError
	if err == nil || errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return exitError{exitFailed, err.Error()}
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "enginebench",
		Short:         "Benchmarks for database storage engines: Insert Benchmark, iiBench, LinkBench",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCmd(stdout, stderr), newReportCmd(stdout), newEnginesCmd(stdout), newCleanCmd(stdout), newVersionCmd(stdout),
		newMergeCmd(stdout), newSampleCmd(stderr))
	return root
}
