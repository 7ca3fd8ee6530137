package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/insertbench"
)

// runFlags are the flags of `enginebench run`.
type runFlags struct {
	engines string
	scale   string
	steps   string
	out     string
	dataDir string
	keep    bool
	set     []string
	p       insertbench.Params // sizes and options; applied only where a flag was given
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run [insert]",
		Short: "Run a workload (default: the Insert Benchmark) on one or more engines",
		Long: `Run a workload on each engine configuration in turn and write a run directory
(run.json, intervals.csv, summary.md). The summary is printed at the end.

Sizes come from --scale (tiny, small, cached, iobound); any size flag overrides its preset.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "insert"
			if len(args) == 1 {
				name = args[0]
			}
			return runWorkload(cmd, name, f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.engines, "engines", "sqlite,pebble", "comma-separated engines to run, one configuration each")
	fl.StringVar(&f.scale, "scale", "small", "size preset: tiny, small, cached, iobound")
	fl.StringVar(&f.steps, "steps", "", "comma-separated subset of steps to run (must include l.i0); default all")
	fl.StringVar(&f.out, "out", "", "results directory (default results/<YYYYMMDD-HHMMSS>-<workload>)")
	fl.StringVar(&f.dataDir, "data-dir", "", "where the engines' data goes, a subdirectory per configuration; must be empty (default data/<run id>)")
	fl.BoolVar(&f.keep, "keep", false, "keep the engines' data directories after the run")
	fl.StringArrayVar(&f.set, "set", nil, "engine setting ENGINE.SETTING=VALUE (repeatable); see `enginebench engines ENGINE`")
	p := &f.p
	fl.IntVar(&p.Clients, "clients", 0, "clients, one table each (default from --scale)")
	fl.Int64Var(&p.Rows, "rows", 0, "rows per table loaded by l.i0 (default from --scale)")
	fl.Int64Var(&p.RowsI1, "rows-l.i1", 0, "rows inserted and deleted per table by l.i1 (default from --scale)")
	fl.Int64Var(&p.RowsI2, "rows-l.i2", 0, "rows inserted and deleted per table by l.i2 (default from --scale)")
	fl.Float64Var(&p.QuerySeconds, "query-seconds", 0, "seconds of each qr/qp step (default from --scale)")
	fl.BoolVar(&p.SharedTable, "shared-table", false, "all clients use one table instead of one table each")
	fl.Uint64Var(&p.Seed, "seed", 0, "seed of every random value (default 3221223452)")
	fl.IntVar(&p.BatchI0, "batch-l.i0", 0, "rows per insert in l.i0 (default 100)")
	fl.IntVar(&p.BatchI1, "batch-l.i1", 0, "rows per insert and delete in l.i1 (default 50)")
	fl.IntVar(&p.BatchI2, "batch-l.i2", 0, "rows per insert and delete in l.i2 (default 5)")
	fl.IntVar(&p.BatchQ, "batch-q", 0, "rows per background insert and delete in the qr/qp steps (default 50)")
	fl.IntVar(&p.QueryRows, "query-rows", 0, "rows read by each range query (default 10)")
	fl.IntVar(&p.PointIDs, "point-ids", 0, "primary-key values fetched by each point query (default 10)")
	fl.IntVar(&p.Resync, "resync", 0, "deletes between SELECT min(transactionid) resyncs (default 1000)")
	fl.IntVar(&p.CashRegs, "cashregisters", 0, "cashregisterid domain (default 1000)")
	fl.IntVar(&p.Products, "products", 0, "productid domain (default 10000)")
	fl.IntVar(&p.Customers, "customers", 0, "customerid domain (default 100000)")
	fl.IntVar(&p.MaxPrice, "max-price", 0, "price domain (default 500)")
	fl.IntVar(&p.DataMin, "data-min", 0, "minimum length of the data column (default 10)")
	fl.IntVar(&p.DataMax, "data-max", 0, "maximum length of the data column (default 20)")
	fl.IntVar(&p.DataRandPct, "data-random-pct", 0, "percent of the data column that is random characters (default 37)")
	return cmd
}

// params returns the scale preset overridden by every size flag that was given.
func (f *runFlags) params(fl *pflag.FlagSet) (insertbench.Params, error) {
	p, err := insertbench.DefaultParams(f.scale)
	if err != nil {
		return p, err
	}
	o := &f.p
	set := func(name string, apply func()) {
		if fl.Changed(name) {
			apply()
		}
	}
	set("clients", func() { p.Clients = o.Clients })
	set("rows", func() { p.Rows = o.Rows })
	set("rows-l.i1", func() { p.RowsI1 = o.RowsI1 })
	set("rows-l.i2", func() { p.RowsI2 = o.RowsI2 })
	set("query-seconds", func() { p.QuerySeconds = o.QuerySeconds })
	set("shared-table", func() { p.SharedTable = o.SharedTable })
	set("seed", func() { p.Seed = o.Seed })
	set("batch-l.i0", func() { p.BatchI0 = o.BatchI0 })
	set("batch-l.i1", func() { p.BatchI1 = o.BatchI1 })
	set("batch-l.i2", func() { p.BatchI2 = o.BatchI2 })
	set("batch-q", func() { p.BatchQ = o.BatchQ })
	set("query-rows", func() { p.QueryRows = o.QueryRows })
	set("point-ids", func() { p.PointIDs = o.PointIDs })
	set("resync", func() { p.Resync = o.Resync })
	set("cashregisters", func() { p.CashRegs = o.CashRegs })
	set("products", func() { p.Products = o.Products })
	set("customers", func() { p.Customers = o.Customers })
	set("max-price", func() { p.MaxPrice = o.MaxPrice })
	set("data-min", func() { p.DataMin = o.DataMin })
	set("data-max", func() { p.DataMax = o.DataMax })
	set("data-random-pct", func() { p.DataRandPct = o.DataRandPct })
	if f.steps != "" {
		p.Steps = splitList(f.steps)
	}
	return p, p.Validate()
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// configs builds one engine configuration per engine of --engines with its --set settings.
func (f *runFlags) configs(reg *engine.Registry) ([]engine.Config, error) {
	names := splitList(f.engines)
	if len(names) == 0 {
		return nil, fmt.Errorf("--engines is empty")
	}
	var cfgs []engine.Config
	for _, n := range names {
		if slices.ContainsFunc(cfgs, func(c engine.Config) bool { return c.Name == n }) {
			return nil, fmt.Errorf("engine %q given twice in --engines", n)
		}
		cfgs = append(cfgs, engine.Config{Name: n, Engine: n, Settings: map[string]string{}})
	}
	for _, s := range f.set {
		key, val, ok := strings.Cut(s, "=")
		eng, setting, ok2 := strings.Cut(key, ".")
		if !ok || !ok2 || eng == "" || setting == "" {
			return nil, fmt.Errorf("--set %q: want ENGINE.SETTING=VALUE", s)
		}
		i := slices.IndexFunc(cfgs, func(c engine.Config) bool { return c.Name == eng })
		if i < 0 {
			return nil, fmt.Errorf("--set %q: engine %q is not in --engines", s, eng)
		}
		cfgs[i].Settings[setting] = val
	}
	for _, c := range cfgs {
		if err := reg.Check(c); err != nil {
			return nil, err
		}
	}
	return cfgs, nil
}

func runWorkload(cmd *cobra.Command, name string, f *runFlags, stdout, stderr io.Writer) error {
	if name != "insert" {
		return usagef("unknown workload %q (available: insert; iibench and linkbench are not built yet)", name)
	}
	// Everything is checked before any work starts.
	p, err := f.params(cmd.Flags())
	if err != nil {
		return usageError{err}
	}
	w, err := insertbench.New(p)
	if err != nil {
		return usageError{err}
	}
	reg, err := newRegistry()
	if err != nil {
		return err
	}
	cfgs, err := f.configs(reg)
	if err != nil {
		return usageError{err}
	}
	started := time.Now()
	runID := started.Format("20060102-150405") + "-" + w.Name()
	out := f.out
	if out == "" {
		out = filepath.Join("results", runID)
	}
	dataRoot := f.dataDir
	if dataRoot == "" {
		dataRoot = filepath.Join("data", runID)
	}
	need := w.EstimateBytes() * int64(len(cfgs))
	if err := prepareDataDir(dataRoot, need); err != nil {
		return usageError{err}
	}
	for i := range cfgs {
		cfgs[i].DataDir = filepath.Join(dataRoot, cfgs[i].Name)
		if err := os.MkdirAll(cfgs[i].DataDir, 0o755); err != nil {
			return usagef("data directory: %v", err)
		}
	}
	dir, err := result.CreateDir(out)
	if err != nil {
		if f.dataDir == "" {
			os.RemoveAll(dataRoot)
		}
		return usageError{err}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	progressOut, _ := stderr.(*os.File)
	terminal := progressOut != nil && runner.IsTerminal(progressOut)
	plan := workload.Plan{
		Workload: w, Registry: reg, Configs: cfgs, Dir: dir, Keep: f.keep,
		Run: &result.Run{Tool: toolInfo(), RunID: runID, StartedAt: started,
			Command: append([]string{"enginebench"}, os.Args[1:]...), Host: hostInfo(dataRoot)},
		Env: workload.Env{Log: stderr, Runner: &runner.Runner{Clock: runner.SystemClock(),
			Progress: runner.NewProgress(stderr, terminal)}},
	}
	fmt.Fprintf(stderr, "enginebench: %s benchmark, scale %s, engines %s; results in %s\n",
		w.Name(), p.Scale, f.engines, out)
	res, execErr := workload.Execute(ctx, plan)
	if !f.keep && f.dataDir == "" {
		os.Remove(dataRoot) // the per-configuration directories are already gone
	}
	if err := dir.WriteFile("summary.md", []byte(report.Markdown(res))); err != nil {
		execErr = errors.Join(execErr, err)
	}
	fmt.Fprintln(stdout)
	if err := report.WriteText(stdout, res); err != nil {
		execErr = errors.Join(execErr, err)
	}
	fmt.Fprintf(stdout, "\nresults: %s\n", dir.Path())
	switch {
	case execErr != nil:
		return exitError{exitFailed, fmt.Sprintf("writing results: %v", execErr)}
	case res.Status == result.StatusInterrupted:
		return exitError{exitInterrupted, "interrupted; results so far are in " + dir.Path()}
	case res.Status == result.StatusFailed:
		return exitError{exitFailed, "run failed: " + res.Error}
	}
	return nil
}
