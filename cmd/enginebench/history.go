package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
)

// historyFlags are report's flags for --history.
type historyFlags struct {
	on, failOnRegression bool
	// method is the test --fail-on-regression fails by (report.RegressionMethods()).
	method string
}

// check refuses history flags given without what they need, and an unknown method;
// methodSet says --regression-method was given.
func (hf historyFlags) check(methodSet bool) error {
	if !slices.Contains(report.RegressionMethods(), hf.method) {
		return usagef("--regression-method %q: want one of %s", hf.method, strings.Join(report.RegressionMethods(), ", "))
	}
	if hf.failOnRegression && !hf.on {
		return usagef("--fail-on-regression needs --history")
	}
	if methodSet && !hf.failOnRegression {
		return usagef("--regression-method chooses what --fail-on-regression fails on: it needs --fail-on-regression")
	}
	return nil
}

// failures says why --fail-on-regression fails the history by hf.method, or "" when it
// does not: the newest run's regressions (lookback), the series whose newest change point,
// among the newest runs, is a regression (changepoint), or either (both).
func (hf historyFlags) failures(h *report.History) string {
	var why []string
	if n := len(h.Regressions()); n > 0 && hf.method != report.MethodChangePoint {
		why = append(why, fmt.Sprintf("%d regressions in the newest run", n))
	}
	if n := len(h.ChangeRegressions()); n > 0 && hf.method != report.MethodLookback {
		why = append(why, fmt.Sprintf("%d series whose newest change point is a regression among the newest %d runs", n, h.Options().Window))
	}
	if len(why) == 0 {
		return ""
	}
	return strings.Join(why, "; ") + " (--fail-on-regression, --regression-method " + hf.method + ")"
}

// writeHistory reads the run directories (any order), checks the input, and writes the
// history's page and markdown (default ./report.html); it prints the runs left out, the
// series without enough history, the newest run's regressions and improvements and the
// newest runs' change points. With failOnRegression, a regression by hf.method exits 1 once
// everything is written.
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
	if why := hf.failures(h); hf.failOnRegression && why != "" {
		return exitError{exitFailed, why}
	}
	return nil
}
