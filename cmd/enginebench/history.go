package main

import (
	"fmt"
	"io"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
)

// historyFlags are report's flags for --history.
type historyFlags struct {
	on, failOnRegression bool
}

// writeHistory reads the run directories (any order), checks the input, and writes the
// history's page and markdown (default ./report.html); it prints the runs left out, the
// series without enough history and the newest run's regressions and improvements. With
// failOnRegression, a regression in the newest run exits 1 once everything is written.
func writeHistory(stdout io.Writer, dirs []string, out string, o report.Options, hf historyFlags) error {
	if o.Base != "" || o.Ratio {
		return usagef("--history judges each configuration against its own runs: --base and --ratio do not apply")
	}
	runs, err := report.LoadRuns(dirs, registry.Names())
	if err != nil {
		return inputError(err)
	}
	h, err := report.NewHistory(runs, report.HistoryOptions{})
	if err != nil {
		return usageError{err}
	}
	if out == "" {
		out = "report.html"
	}
	out, md := report.Paths(nil, out)
	size, err := report.WritePage(h.Page(), out, md)
	if err != nil {
		return inputError(err)
	}
	for _, l := range h.Terminal() {
		fmt.Fprintln(stdout, l)
	}
	fmt.Fprintf(stdout, "report: %s (%s), tables as markdown: %s\n", out, numfmt.Bytes(float64(size)), md)
	if n := len(h.Regressions()); hf.failOnRegression && n > 0 {
		return exitError{exitFailed, fmt.Sprintf("%d regressions in the newest run (--fail-on-regression)", n)}
	}
	return nil
}
