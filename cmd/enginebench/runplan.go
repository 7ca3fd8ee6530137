package main

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/plan"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/workload"
)

// plan checks every input of the run (flags, run spec, configurations, paths) before any
// work starts: an error is bad input (exit 2), except where the machine failed. It adds the
// DSNs it learns (run spec, environment) to secrets.
func (f *runFlags) plan(fl *pflag.FlagSet, args []string, secrets *[]string) (*plan.Plan, error) {
	reg, err := registry.Engines()
	if err != nil {
		return nil, err
	}
	sp, warnings, err := readRunSpec(fl, f.config, reg, secrets)
	if err != nil {
		return nil, err
	}
	w, o, err := f.options(fl, args, sp, warnings)
	if err != nil {
		return nil, err
	}
	pl, err := plan.New(reg, w, o)
	if err != nil {
		return nil, inputError(err)
	}
	for _, c := range pl.Configs {
		*secrets = append(*secrets, redact.Secrets(c.DSN)...)
	}
	return pl, nil
}

// options checks the flags of the run with its run spec sp (nil for none) and the spec's
// warnings, builds its workload and returns the options of its plan.
func (f *runFlags) options(fl *pflag.FlagSet, args []string, sp *runspec.Spec, warnings []string) (workload.Benchmark, plan.Options, error) {
	name, err := workloadName(args, sp)
	if err != nil {
		return nil, plan.Options{}, err
	}
	if err := f.checkFlags(fl, sp, name); err != nil {
		return nil, plan.Options{}, usageError{err}
	}
	w, err := f.workload(fl, name)
	if err != nil {
		return nil, plan.Options{}, pathError(err) // a workload's file (--distribution-file) may fail to read
	}
	o := plan.Options{Engines: f.engines, Spec: sp, Warnings: warnings, Set: f.set, DSN: f.dsn, DBPID: f.dbPID,
		JobIndex: f.sh.jobIndex(os.Getenv), Keep: f.keep, DropExisting: f.dropExisting,
		DataDir: f.dataDir, Out: f.out, Repeat: f.repeat, RepeatAuto: f.repeatAuto, Shard: f.sh.parsed, ClientCPULimitPct: f.clientCPULimit, Thresholds: f.thresholds, Warmup: f.excludeWarmup, Getenv: os.Getenv}
	if fl.Changed("memory-limit") {
		o.MemoryLimit = &f.memoryLimit
	}
	if fl.Changed("config-index") {
		o.ConfigIndex = &f.configIndexFlag
	}
	if fl.Changed("shard") {
		o.ShardFlag = f.sh.shard
	}
	return w, o, nil
}

// readRunSpec loads the run spec at path (--config), if given, and adds the DSNs it names (written in
// it, or in the environment variables it names) to secrets, even when it is refused. It
// returns the spec's warnings.
func readRunSpec(fl *pflag.FlagSet, path string, reg *engine.Registry, secrets *[]string) (*runspec.Spec, []string, error) {
	if path == "" {
		return nil, nil, nil
	}
	if fl.Changed("engines") {
		return nil, nil, usagef("--engines and --config cannot be used together: the run spec names the configurations")
	}
	sp, warnings, err := runspec.Load(path, reg)
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
