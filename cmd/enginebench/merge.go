package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/merge"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
)

func newMergeCmd(stdout io.Writer) *cobra.Command {
	var out, sample string
	cmd := &cobra.Command{
		Use:   "merge SHARD_RUN_DIR...",
		Short: "Merge the run directories of the shards of one run (run --shard I/N) into one run directory",
		Long: `Merge the run directories of every shard of one sharded run into one ordinary run
directory (run.json, intervals.csv, summary.md, the report and hdr/ logs): latency percentiles
from the shards' HdrHistogram logs merged bin by bin, counts summed, rates summed per
wall-clock second, fairness over every client, the SLA over the summed targets and the
verification of every shard. --sample names the enginebench sample directory of the database
host: its CPU, IO and sizes become the run's costs; without it they are absent.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs the run directories of a run's shards")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return mergeShards(stdout, args, out, sample)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "run directory to write (must not exist or be empty; default results/<run id>-merged)")
	cmd.Flags().StringVar(&sample, "sample", "", "the enginebench sample directory of the database host")
	return cmd
}

// mergeShards checks the shards' run directories and the sample, then merges them into out.
func mergeShards(stdout io.Writer, dirs []string, out, sample string) error {
	shards, err := merge.Load(dirs)
	if err != nil {
		return inputError(err)
	}
	var smp *merge.Sample
	if sample != "" {
		if smp, err = merge.LoadSample(sample); err != nil {
			return inputError(err)
		}
	}
	if out == "" {
		out = filepath.Join("results", shards[0].Run.Shard.Run+"-merged")
	}
	dir, err := result.CreateDir(out)
	if err != nil {
		return usagef("%v", err)
	}
	command := append([]string{"enginebench"}, redactArgs(os.Args[1:])...)
	res, err := merge.Merge(shards, dir, smp, command, registry.Of(shards[0].Run.Workload.Name).Merge)
	if err != nil {
		return fmt.Errorf("merge into %s: %w", out, err)
	}
	if err := dir.WriteFile("summary.md", []byte(report.Markdown(res, registry.Layouts()))); err != nil {
		return err
	}
	if err := report.WriteRunReport(dir, res, registry.Layouts()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shards of run %s (status %s)\nresults: %s\nreport:  %s\n", len(shards), res.RunID,
		res.Status, dir.Path(), filepath.Join(dir.Path(), "report.html"))
	return nil
}
