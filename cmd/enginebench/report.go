package main

import (
	"fmt"
	"io"
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
	var df diffFlags
	cmd := &cobra.Command{
		Use:   "report RUN_DIR...",
		Short: "Write the HTML report of one or more runs of one workload, and its tables as markdown",
		Long: `Write one self-contained HTML page (report.html: tables and charts, no network needed to
open it) and the same tables as markdown (report.md) from the results of one or more runs.
Several run directories of one workload combine into one report, each configuration labelled by
its run directory and its name. The relative tables divide by the base configuration (--base,
default the first); --ratio shows the second run's rates as a percentage of the first's.
--history judges many runs of the same configurations on one host (nightly runs): one series
per configuration, step and metric, each run compared with the runs before it.
--diff A B prints two configurations' CPU profiles and counters per operation side by side,
step by step (or --step's): their top functions, B's over A's, naming the files read.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report needs at least one run directory (results/<run>)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("diff") {
				return writeDiff(stdout, args, out, df)
			}
			if df.step != "" {
				return usagef("--step needs --diff")
			}
			if err := hf.check(cmd.Flags().Changed("regression-method")); err != nil {
				return err
			}
			if hf.on {
				return writeHistory(stdout, args, out, o, hf)
			}
			return writeReport(stdout, args, out, o)
		},
	}
	cmd.Flags().StringVar(&o.Base, "base", "", "configuration the relative tables divide by (label or name; default the first)")
	cmd.Flags().StringVar(&out, "out", "", "HTML file to write; the markdown goes beside it with .md (default: RUN_DIR/report.html for one run, ./report.html for several)")
	cmd.Flags().BoolVar(&o.Ratio, "ratio", false, "with two runs: each rate of the second as a percentage of the first's")
	cmd.Flags().BoolVar(&hf.on, "history", false, "the runs are a history (nightly runs of the same configurations): judge each run against the runs before it (docs/report.md, History)")
	cmd.Flags().StringSliceVar(&df.configs, "diff", nil, "two configurations (--diff A B RUN_DIR..., or --diff A,B): print their CPU profiles' top functions and their counters per operation side by side, step by step, instead of the report")
	cmd.Flags().StringVar(&df.step, "step", "", "with --diff: only this step")
	cmd.Flags().BoolVar(&hf.failOnRegression, "fail-on-regression", false, "with --history: exit 1 when the newest run has a regression (by --regression-method)")
	cmd.Flags().StringVar(&hf.method, "regression-method", report.MethodLookback, "with --fail-on-regression: what is a regression: lookback (the newest run against the runs before it), changepoint (a series' newest change point, among the newest 10 runs, made it worse) or both (either) (docs/report.md, History)")
	return cmd
}

// diffFlags are report --diff's: the two configurations and the one step.
type diffFlags struct {
	configs []string
	step    string
}

// writeDiff prints, or writes at out, the side by side of two configurations' profiles and
// counters (report.WriteProfileDiff). "--diff A B RUN_DIR" leaves B first among the arguments.
func writeDiff(stdout io.Writer, args []string, out string, df diffFlags) error {
	names := df.configs
	if len(names) == 1 && len(args) >= 2 {
		names, args = append(names, args[0]), args[1:]
	}
	if len(names) != 2 {
		return usagef("--diff compares two configurations (--diff A B RUN_DIR... or --diff A,B RUN_DIR...), got %d: %s", len(names), strings.Join(names, ", "))
	}
	if len(args) == 0 {
		return usagef("--diff %s %s: name the run directory after them", names[0], names[1])
	}
	runs, err := report.LoadRuns(args, registry.Names())
	if err != nil {
		return inputError(err)
	}
	var b strings.Builder
	if err := report.WriteProfileDiff(&b, runs, report.DiffOptions{A: names[0], B: names[1], Step: df.step}); err != nil {
		return inputError(err)
	}
	if out == "" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	if err := result.WriteFile(out, []byte(b.String())); err != nil {
		return pathError(fmt.Errorf("cannot write the diff: %w", err))
	}
	fmt.Fprintf(stdout, "diff: %s\n", out)
	return nil
}

// writeReport reads the run directories, checks everything that can be wrong with the input
// and the output path, then writes the HTML page and its markdown.
func writeReport(stdout io.Writer, dirs []string, out string, o report.Options) error {
	runs, err := report.LoadRuns(dirs, registry.Names())
	if err != nil {
		return inputError(err)
	}
	out, md := report.Paths(dirs, out)
	o.HTMLDir = filepath.Dir(out)
	page, err := report.NewPage(runs, o)
	if err != nil {
		return usageError{err}
	}
	size, err := report.WritePage(page, out, md)
	if err != nil {
		return inputError(err)
	}
	for _, w := range page.Warnings() { // unlike hosts, OOM kills: what the page warns of
		fmt.Fprintln(stdout, w)
	}
	fmt.Fprintf(stdout, "report: %s (%s), tables as markdown: %s\n", out, numfmt.Bytes(float64(size)), md)
	return nil
}
