// Command enginebench runs storage-engine benchmarks (the Insert Benchmark, and later iiBench
// and LinkBench) against embedded engines and database servers, and reports throughput,
// latency and efficiency. This package only parses flags and wires the parts together.
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
	root := newRootCmd(stdout, stderr)
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
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	// cobra's own errors (unknown command or flag, bad flag value) are usage errors too.
	return exitUsage
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
	root.AddCommand(newRunCmd(stdout, stderr), newReportCmd(stdout), newEnginesCmd(stdout), newVersionCmd(stdout))
	return root
}
