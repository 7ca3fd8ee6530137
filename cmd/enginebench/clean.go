package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/killedrun"
)

func newCleanCmd(stdout io.Writer) *cobra.Command {
	var remove bool
	cmd := &cobra.Command{
		Use:   "clean [--remove] [DIR...]",
		Short: "List (and remove) what runs killed while running left: data, socket directories, memory cgroups; mark their results killed",
		Long: `A run killed while running (kill -9, a crash, a power cut, the OOM killer) leaves its data
directory, its managed servers' socket directories, its memory cgroups (--memory-limit) and a
results directory whose run.json says "running". clean lists them: in each DIR (a results or
data directory of a run, or a directory of them; default results and data), in the temporary
directory (the socket directories) and in the cgroup filesystem (the empty groups
enginebench-PID-NAME whose process PID is gone). It marks the status of each killed run's
run.json "killed" (a results directory is never removed); with --remove it removes the data
and socket directories and the groups. A live run is never touched: its directories are
locked, and its groups are named for its running process.`,
		RunE: func(_ *cobra.Command, args []string) error {
			for _, d := range args {
				if _, err := os.Stat(d); err != nil {
					return pathError(err)
				}
			}
			if len(args) == 0 {
				args = []string{"results", "data"} // the defaults of --out and --data-dir
			}
			return clean(stdout, args, remove)
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "remove the killed runs' data directories and the socket directories of servers that are gone")
	return cmd
}

// clean lists what killed runs left in dirs and in the temporary directory, marks killed
// runs' results, and with remove removes their data and socket directories.
func clean(stdout io.Writer, dirs []string, remove bool) error {
	found := killedrun.Find(dirs, true, time.Now())
	if len(found) == 0 {
		fmt.Fprintln(stdout, "nothing left by killed runs")
		return nil
	}
	var errs []error
	for _, l := range found {
		action, err := l.Clean(remove)
		if err != nil {
			errs = append(errs, err)
			action = "NOT cleaned: " + err.Error()
		}
		fmt.Fprintf(stdout, "%s: %s\n", l, action)
	}
	if !remove && slices.ContainsFunc(found, func(l killedrun.Leftover) bool { return l.Kind != killedrun.Results && l.Kind != killedrun.Lock }) {
		fmt.Fprintln(stdout, "enginebench clean --remove removes the data and socket directories and the cgroups")
	}
	return errors.Join(errs...)
}

// reportLeftovers prints what killed runs left beside the run's results directory out and its
// data root, and in the temporary directory.
func reportLeftovers(log io.Writer, out, dataRoot string) {
	dirs := []string{filepath.Dir(filepath.Clean(out))}
	if d := filepath.Dir(filepath.Clean(dataRoot)); dataRoot != "" && d != dirs[0] {
		dirs = append(dirs, d)
	}
	found := killedrun.Find(dirs, false, time.Now())
	if len(found) == 0 {
		return
	}
	fmt.Fprintf(log, "enginebench: runs killed while running left (see `enginebench clean --remove %s`):\n", strings.Join(dirs, " "))
	for _, l := range found {
		fmt.Fprintf(log, "enginebench:   %s\n", l)
	}
}
