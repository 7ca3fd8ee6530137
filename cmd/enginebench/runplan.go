package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/workload"
)

// runPlan is a run whose every input has been checked: what execute needs to run it.
type runPlan struct {
	w       workload.Benchmark
	reg     *engine.Registry
	sp      *runspec.Spec // nil without --config
	cps     []configPlan
	notices []string // printed when the run starts
	runID   string
	started time.Time
	out     string // the results directory
	// dataRoot holds a subdirectory per managed configuration; "" when every configuration
	// uses an existing server.
	dataRoot string
	// need is what the data root needs free, in bytes.
	need int64
	// hostDir is the directory whose device and filesystem run.json describes; "" for none.
	hostDir string
	// matrix marks a run of one configuration of the run spec (--config-index); nil otherwise.
	matrix *result.Matrix
	// shard marks a run of one shard of the clients (--shard); nil otherwise.
	shard *result.Shard
}

// plan checks every input of the run (flags, run spec, configurations, paths) before any
// work starts: an error is bad input (exit 2), except where the machine failed. It adds the
// DSNs it learns (run spec, environment) to secrets.
func (f *runFlags) plan(fl *pflag.FlagSet, args []string, secrets *[]string) (*runPlan, error) {
	reg, err := newRegistry()
	if err != nil {
		return nil, err
	}
	pl := &runPlan{reg: reg}
	if pl.sp, pl.notices, err = f.readRunSpec(fl, reg, secrets); err != nil {
		return nil, err
	}
	name, err := workloadName(args, pl.sp)
	if err != nil {
		return nil, err
	}
	if err := f.checkFlags(fl, pl.sp, name); err != nil {
		return nil, usageError{err}
	}
	if pl.w, err = f.workload(fl, name); err != nil {
		return nil, pathError(err) // a workload's file (--distribution-file) may fail to read
	}
	if err := f.planConfigs(fl, pl, secrets); err != nil {
		return nil, err
	}
	pl.started = time.Now()
	pl.runID = pl.started.Format("20060102-150405") + "-" + pl.w.Name()
	if pl.matrix != nil { // the runs of a matrix may start in one second, beside each other
		pl.runID += "-" + pl.matrix.Config
	}
	pl.shard = f.sh.mark(fl, pl.w.Clients())
	if s := f.sh.parsed; s.Sharded() { // so are the shards of one run on one host
		pl.runID += fmt.Sprintf("-shard%dof%d", s.Index, s.Count)
	}
	if pl.out = f.out; pl.out == "" {
		pl.out = filepath.Join("results", pl.runID)
	}
	if err := f.placeData(pl); err != nil {
		return nil, err
	}
	if !f.dropExisting {
		if err := pl.checkExistingTables(); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// planConfigs resolves the run's configurations (the run spec's, or its --config-index one),
// their memory caps and their engines' checks into pl, and adds their DSNs to secrets.
func (f *runFlags) planConfigs(fl *pflag.FlagSet, pl *runPlan, secrets *[]string) error {
	var memLimit *string
	if fl.Changed("memory-limit") {
		memLimit = &f.memoryLimit
	}
	var notice string
	var err error
	if f.matrix, notice, err = f.configIndex(fl, pl.sp, f.sh.configIndexEnv(os.Getenv)); err != nil {
		return usageError{err}
	}
	pl.matrix = f.matrix
	cps, more, err := f.configs(pl.reg, pl.sp, os.Getenv, memLimit, pl.w)
	if err != nil {
		return usageError{err}
	}
	if notice != "" {
		more = append(more, notice)
	}
	if err := checkMemoryCaps(cps); err != nil {
		return usageError{err}
	}
	pl.cps, pl.notices = cps, append(pl.notices, more...)
	for _, c := range cps {
		*secrets = append(*secrets, redact.Secrets(c.DSN)...)
	}
	if err := checkEngines(pl.w, pl.reg, cps); err != nil {
		return usageError{err}
	}
	if err := f.sh.checkShardConfigs(pl.reg, cps); err != nil {
		return usageError{err}
	}
	if err := f.repeatConfigs(pl); err != nil {
		return usageError{err}
	}
	return nil
}

// readRunSpec loads the run spec of --config, if given, and adds the DSNs it names (written in
// it, or in the environment variables it names) to secrets, even when it is refused. It
// returns the spec's warnings.
func (f *runFlags) readRunSpec(fl *pflag.FlagSet, reg *engine.Registry, secrets *[]string) (*runspec.Spec, []string, error) {
	if f.config == "" {
		return nil, nil, nil
	}
	if fl.Changed("engines") {
		return nil, nil, usagef("--engines and --config cannot be used together: the run spec names the configurations")
	}
	sp, warnings, err := runspec.Load(f.config, reg)
	if sp != nil {
		for _, e := range sp.Configs {
			*secrets = append(*secrets, redact.Secrets(e.DSN)...)
			if e.DSNEnv != "" {
				*secrets = append(*secrets, redact.Secrets(os.Getenv(e.DSNEnv))...)
			}
		}
	}
	if err != nil {
		return nil, nil, pathError(err)
	}
	return sp, warnings, nil
}

// workloadName returns the workload the run runs: the command line's, else the run spec's,
// else insert.
func workloadName(args []string, sp *runspec.Spec) (string, error) {
	name := registry.Default().Name
	switch {
	case len(args) == 1:
		name = args[0]
	case sp != nil && sp.Workload != "":
		name = sp.Workload
	}
	if _, ok := registry.Lookup(name); !ok {
		return "", usagef("unknown workload %q (available: %s)", name, strings.Join(registry.Names(), ", "))
	}
	return name, nil
}

// existingCheckTimeout bounds the look for a workload's tables on an existing server.
const existingCheckTimeout = time.Minute

// checkExistingTables refuses a run on an existing server that already has the workload's
// tables (an earlier run left them), with the SQL that drops them.
func (pl *runPlan) checkExistingTables() error {
	for _, c := range pl.cps {
		if c.DSN == "" {
			continue
		}
		at := fmt.Sprintf("%sconfiguration %s (DSN from %s)", c.at, c.Name, c.dsnFrom)
		found, drop, err := existingTables(pl.reg, c.Config, pl.w.Tables())
		if err != nil {
			return usagef("%s: %v", at, err)
		}
		if len(found) > 0 {
			return usagef("%s: the existing server already has the %s workload's tables %s (an earlier run left them?): drop them (%s) or give --drop-existing",
				at, pl.w.Name(), strings.Join(found, ", "), strings.Join(drop, "; "))
		}
	}
	return nil
}

// existingTables opens cfg's existing server and returns which of tables it has, and the SQL
// that drops them.
func existingTables(reg *engine.Registry, cfg engine.Config, tables []string) (found, drop []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), existingCheckTimeout)
	defer cancel()
	eng, err := reg.Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer func() { err = errors.Join(err, eng.Close()) }()
	db, ok := eng.(sqldb.DB)
	if !ok {
		return nil, nil, nil
	}
	if found, err = sqldb.ExistingTables(ctx, db, tables); err != nil {
		return nil, nil, err
	}
	return found, sqldb.DropTablesSQL(db.Dialect(), found), nil
}

// checkFlags applies the run spec's scale and params (the command line wins) and checks the
// flags of workload name.
func (f *runFlags) checkFlags(fl *pflag.FlagSet, sp *runspec.Spec, name string) error {
	if sp != nil {
		if err := f.applySpec(fl, sp, name); err != nil {
			return err
		}
	}
	if err := f.checkWorkloadFlags(fl, name); err != nil {
		return err
	}
	if err := f.sh.check(fl, name); err != nil {
		return err
	}
	if err := f.checkRepeat(fl); err != nil {
		return err
	}
	if f.stallTimeout < 0 {
		return fmt.Errorf("--stall-timeout %v: want a duration of 0 (no watchdog) or more", f.stallTimeout)
	}
	return checkClientCPULimit(f.clientCPULimit)
}

// placeData decides where each configuration's data goes: an existing server's data directory
// is measured, never created, written or removed (its data_dir, else --data-dir when no
// configuration keeps its data under --data-dir); the managed configurations' data goes under
// the data root, --data-dir or data/<run id>.
func (f *runFlags) placeData(pl *runPlan) error {
	managed := 0
	for _, c := range pl.cps {
		if c.DSN == "" {
			managed++
		}
	}
	for i := range pl.cps {
		c := &pl.cps[i]
		if c.DSN == "" {
			continue
		}
		if c.DataDir = c.dataDir; c.DataDir == "" && managed == 0 {
			c.DataDir = f.dataDir
		}
		if c.DataDir != "" {
			if st, err := os.Stat(c.DataDir); err != nil || !st.IsDir() {
				return usagef("%sconfiguration %s: the existing server's data directory %s is not a directory", c.at, c.Name, c.DataDir)
			}
		}
		if pl.hostDir == "" {
			pl.hostDir = c.DataDir
		}
	}
	if managed == 0 {
		return nil
	}
	if pl.dataRoot = f.dataDir; pl.dataRoot == "" {
		pl.dataRoot = filepath.Join("data", pl.runID)
	} else if parent := filepath.Dir(filepath.Clean(pl.dataRoot)); !isDir(parent) {
		return usagef("data directory %s: its parent %s is not an existing directory (create it first)", pl.dataRoot, parent)
	}
	// Execute removes each configuration's data once it is done, unless --keep.
	if pl.need = pl.w.EstimateBytes(); f.keep {
		pl.need = satMul(pl.need, int64(managed*max(1, f.repeat)))
	}
	for i := range pl.cps {
		if pl.cps[i].DSN == "" {
			pl.cps[i].DataDir = filepath.Join(pl.dataRoot, pl.cps[i].Name)
		}
	}
	pl.hostDir = pl.dataRoot
	return nil
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// newRun returns the run's record as Execute starts it, and writes the run spec's copy into
// dir.
func (pl *runPlan) newRun(f *runFlags, dir *result.Dir, secrets []string) (*result.Run, error) {
	run := &result.Run{Tool: toolInfo(), RunID: pl.runID, StartedAt: pl.started,
		Command: append([]string{"enginebench"}, redactArgs(os.Args[1:])...), Host: host.Read(pl.hostDir),
		ClientCPULimitPct: f.clientCPULimit, Matrix: pl.matrix, Shard: pl.shard}
	if pl.sp != nil {
		if err := dir.WriteFile("run-spec.yaml", pl.sp.Copy(secrets)); err != nil {
			return nil, exitError{exitFailed, err.Error()}
		}
		run.Notes = append(run.Notes, fmt.Sprintf("run spec: %s (a copy is run-spec.yaml)", pl.sp.Path))
	}
	if sh := pl.shard; sh != nil && sh.Count > 1 {
		run.Notes = append(run.Notes, fmt.Sprintf("shard %d of %d of run %s: clients %s of the run's; every figure is this shard's clients' (docs/scale-out.md, Shards)",
			sh.Index, sh.Count, sh.Run, joinInts(sh.Clients)))
	}
	return run, nil
}

// announce prints what the run runs and where its results go.
func (pl *runPlan) announce(log io.Writer, engines string) {
	what := "engines " + engines
	if pl.sp != nil {
		names := make([]string, len(pl.cps))
		for i, c := range pl.cps {
			names[i] = c.Name
		}
		what = fmt.Sprintf("configurations %s (%s)", strings.Join(names, ", "), pl.sp.Path)
	}
	fmt.Fprintf(log, "enginebench: %s benchmark, scale %s, %s; results in %s\n", pl.w.Name(), pl.w.Scale(), what, pl.out)
	for _, n := range pl.notices {
		fmt.Fprintf(log, "enginebench: %s\n", n)
	}
	for _, c := range pl.cps {
		if c.DSN != "" {
			fmt.Fprintf(log, "enginebench: configuration %s runs on an existing server (DSN from %s)\n", c.Name, c.dsnFrom)
		}
		if c.MemoryLimit > 0 {
			fmt.Fprintf(log, "enginebench: configuration %s: memory capped at %s (from %s), page cache included\n",
				c.Name, numfmt.Bytes(float64(c.MemoryLimit)), c.capFrom)
		}
	}
}

// satMul returns a*b for non-negative a and b, or math.MaxInt64 where that overflows.
func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// joinInts returns xs as "1, 3, 5".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
