package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/verdict"
	"github.com/enginebench/enginebench/internal/workload"
)

// checkFlags applies the run spec's scale and params (the command line wins) and checks the
// flags of workload name.
func (f *runFlags) checkFlags(fl *pflag.FlagSet, sp *runspec.Spec, name string) error {
	if sp != nil {
		if err := f.applySpec(fl, sp, name); err != nil {
			return err
		}
	}
	if err := f.owner.check(fl, name); err != nil {
		return err
	}
	if err := f.sh.check(fl, name); err != nil {
		return err
	}
	if err := f.checkRepeat(fl); err != nil {
		return err
	}
	var err error
	if f.profiling, err = workload.ParseProfiling(f.cpuProfile, f.cpuProfileHz, f.counters); err != nil {
		return err
	}
	f.profiling.Perf = f.perf
	if f.thresholds, err = verdict.Parse(f.thresholdFlag); err != nil {
		return err
	}
	if f.summary != summaryBrief && f.summary != summaryFull {
		return fmt.Errorf("--summary %q: want %s (the top summary, the throughput table and the flags) or %s (every table)", f.summary, summaryBrief, summaryFull)
	}
	if math.IsNaN(f.excludeWarmup) || f.excludeWarmup < 0 {
		return fmt.Errorf("--exclude-warmup %v: want 0 (none) or more seconds", f.excludeWarmup)
	}
	if f.stallTimeout < 0 {
		return fmt.Errorf("--stall-timeout %v: want a duration of 0 (no watchdog) or more", f.stallTimeout)
	}
	return checkClientCPULimit(f.clientCPULimit)
}

// The values of --summary: what the summary printed at the end of a run shows.
const (
	summaryBrief = "brief"
	summaryFull  = "full"
)

// notParam reports the flags of `run` that a run spec's params cannot set: the spec has keys
// of its own for them, or they name where the run's files go, or they are per-invocation.
func notParam(flag string) bool {
	switch flag {
	case "config", "engines", "scale", "out", "data-dir", "keep", "drop-existing", "set", "dsn", "db-pid", "help", "workload", "config-index", "repeat",
		"shard", "shard-run", "shard-timeout", "start-at", "summary":
		return true
	}
	return false
}

// checkClientCPULimit refuses a --client-cpu-limit that is not a percentage of the CPUs.
func checkClientCPULimit(pct float64) error {
	if math.IsNaN(pct) || pct <= 0 || pct > 100 {
		return fmt.Errorf("--client-cpu-limit %v: want a percentage of all CPUs, more than 0 and at most 100", pct)
	}
	return nil
}

// applySpec applies the run spec's scale and params to the flags that were not given on the
// command line: flags given explicitly override the spec. A param must be a flag of the
// workload (or common to every workload).
func (f *runFlags) applySpec(fl *pflag.FlagSet, sp *runspec.Spec, workload string) error {
	if sp.Scale != "" && !fl.Changed("scale") {
		if err := fl.Set("scale", sp.Scale); err != nil {
			return fmt.Errorf("%s: scale: %w", sp.Path, err)
		}
	}
	if sp.Repeat != "" && !fl.Changed("repeat") {
		if _, _, err := parseRepeat(sp.Repeat); err != nil {
			return fmt.Errorf("%s: repeat: %w", sp.Path, err)
		}
		f.repeatFlag = sp.Repeat
	}
	accepted := func(name string) bool {
		owners, ok := f.owner[name]
		return !notParam(name) && fl.Lookup(name) != nil && (!ok || slices.Contains(owners, workload))
	}
	for _, p := range sp.Params {
		at := fmt.Sprintf("%s:%d", sp.Path, p.Line)
		if !accepted(p.Flag) {
			var names []string
			fl.VisitAll(func(fg *pflag.Flag) {
				if accepted(fg.Name) {
					names = append(names, fg.Name)
				}
			})
			return fmt.Errorf("%s: params: unknown %s parameter %q (accepted: %s)", at, workload, p.Flag, strings.Join(names, ", "))
		}
		if fl.Changed(p.Flag) {
			continue // the command line wins
		}
		if err := fl.Set(p.Flag, p.Value); err != nil {
			return fmt.Errorf("%s: params: %s: %q is not valid: %w", at, p.Flag, p.Value, err)
		}
	}
	return nil
}
