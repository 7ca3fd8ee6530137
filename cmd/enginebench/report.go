package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
)

func newReportCmd(stdout io.Writer) *cobra.Command {
	o := report.Options{Layouts: registry.Layouts()}
	var out string
	var hf historyFlags
	cmd := &cobra.Command{
		Use:   "report RUN_DIR...",
		Short: "Write the HTML report of one or more runs of one workload, and its tables as markdown",
		Long: `Write one self-contained HTML page (report.html: tables and charts, no network needed to
open it) and the same tables as markdown (report.md) from the results of one or more runs.
Several run directories of one workload combine into one report, each configuration labelled by
its run directory and its name. The relative tables divide by the base configuration (--base,
default the first); --ratio shows the second run's rates as a percentage of the first's.
--history judges many runs of the same configurations on one host (nightly runs): one series
per configuration, step and metric, each run compared with the runs before it.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report needs at least one run directory (results/<run>)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if hf.on {
				return writeHistory(stdout, args, out, o, hf)
			}
			if hf.failOnRegression {
				return usagef("--fail-on-regression needs --history")
			}
			return writeReport(stdout, args, out, o)
		},
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "configuration the relative tables divide by (label or name; default the first)")
	cmd.Flags().StringVar(&out, "out", "", "HTML file to write; the markdown goes beside it with .md (default: RUN_DIR/report.html for one run, ./report.html for several)")
	cmd.Flags().BoolVar(&o.Ratio, "ratio", false, "with two runs: each rate of the second as a percentage of the first's")
	cmd.Flags().BoolVar(&hf.on, "history", false, "the runs are a history (nightly runs of the same configurations): judge each run against the runs before it (docs/report.md, History)")
	cmd.Flags().BoolVar(&hf.failOnRegression, "fail-on-regression", false, "with --history: exit 1 when the newest run has a regression")
	return cmd
}

// loadRuns reads the run directories and checks them: one that is not a run is bad input.
func loadRuns(dirs []string) ([]report.Input, error) {
	var runs []report.Input
	for _, d := range dirs {
		r, err := result.LoadDir(d)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usagef("%s is not a run directory (no run.json)", d)
			}
			return nil, pathError(fmt.Errorf("%s: %w", d, err))
		}
		if err := checkRun(r); err != nil {
			return nil, usagef("%s: %v", filepath.Join(d, "run.json"), err)
		}
		runs = append(runs, report.Input{Dir: d, Run: r})
	}
	return runs, nil
}

// writeReport reads the run directories, checks everything that can be wrong with the input
// and the output path, then writes the HTML page and its markdown.
func writeReport(stdout io.Writer, dirs []string, out string, o report.Options) error {
	runs, err := loadRuns(dirs)
	if err != nil {
		return err
	}
	page, err := report.NewPage(runs, o)
	if err != nil {
		return usageError{err}
	}
	out, md := reportPaths(dirs, out)
	size, err := writePage(page, out, md)
	if err != nil {
		return err
	}
	for _, w := range page.Warnings() { // unlike hosts, OOM kills: what the page warns of
		fmt.Fprintln(stdout, w)
	}
	fmt.Fprintf(stdout, "report: %s (%s), tables as markdown: %s\n", out, numfmt.Bytes(float64(size)), md)
	return nil
}

// writePage writes page as HTML at out and as markdown at md, once out's directory is known
// to be writable, and returns the HTML's size in bytes.
func writePage(page *report.Page, out, md string) (int, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return 0, pathError(fmt.Errorf("cannot write the report in %s: %w", filepath.Dir(out), err))
	}
	if err := result.ProbeWrite(filepath.Dir(out), 0); err != nil {
		return 0, pathError(fmt.Errorf("cannot write the report in %s: %w", filepath.Dir(out), err))
	}
	var html bytes.Buffer
	if err := report.WriteHTML(&html, page); err != nil {
		return 0, err
	}
	if err := result.WriteFile(out, html.Bytes()); err != nil {
		return 0, err
	}
	return html.Len(), result.WriteFile(md, []byte(report.MarkdownPage(page)))
}

// reportPaths returns the HTML file to write, out or by default report.html in the one run
// directory or the current one (in out when it is a directory), and the markdown beside it.
func reportPaths(dirs []string, out string) (html, md string) {
	if out == "" {
		out = "report.html"
		if len(dirs) == 1 {
			out = filepath.Join(dirs[0], "report.html")
		}
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, "report.html")
	}
	md = strings.TrimSuffix(out, filepath.Ext(out)) + ".md"
	if md == out {
		md = out + ".md"
	}
	return out, md
}

// checkRun refuses a run.json that is no run of enginebench (null, {}, a run of a workload
// this build does not know), which would make an empty or misleading report.
func checkRun(r *result.Run) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("not a run of enginebench: %w", err)
	}
	if _, ok := registry.Lookup(r.Workload.Name); !ok {
		return fmt.Errorf("unknown workload %q (known: %s)", r.Workload.Name, strings.Join(registry.Names(), ", "))
	}
	return nil
}
