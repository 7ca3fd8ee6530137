package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/workload"
)

// maxRepeat bounds --repeat: far beyond any useful number of repeats, it stops a typo (300
// for 3) from planning a run of days.
const maxRepeat = 100

// repeatAuto is the value of --repeat that repeats until the intervals are narrow enough.
const repeatAuto = "auto"

// Defaults of --repeat auto: the target half-width of the intervals (--confidence) and the
// most rounds (--repeat-max).
const (
	defaultConfidence = "5%"
	defaultRepeatMax  = 10
)

// parseRepeat returns the K of --repeat K (a run spec's repeat: when the flag was not given),
// the times each configuration runs: a whole number from 1 to maxRepeat; auto is true for
// --repeat auto (k is then 0).
func parseRepeat(value string) (k int, auto bool, err error) {
	if strings.TrimSpace(value) == repeatAuto {
		return 0, true, nil
	}
	k, err = strconv.Atoi(strings.TrimSpace(value))
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("--repeat %q: want the number of times each configuration runs, a whole number from 1 to %d, or auto", value, maxRepeat)
	case k < 1 || k > maxRepeat:
		return 0, false, fmt.Errorf("--repeat %d: want the number of times each configuration runs, from 1 to %d, or auto", k, maxRepeat)
	}
	return k, false, nil
}

// parseConfidence returns the percentage of --confidence PCT ("5%" or "5"): the largest
// relative half-width of the 95% intervals --repeat auto repeats until.
func parseConfidence(value string) (float64, error) {
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), "%"), 64)
	if err != nil || math.IsNaN(pct) || pct <= 0 || pct > 100 {
		return 0, fmt.Errorf("--confidence %q: want the largest half-width of the 95%% interval of each configuration's ratio to the first, a percentage more than 0 and at most 100 (%s)", value, defaultConfidence)
	}
	return pct, nil
}

// checkRepeat sets f.repeat and f.repeatAuto from --repeat (f.repeatFlag, as given or from the
// run spec), --confidence and --repeat-max, and refuses the combinations a repeated run does
// not support: --confidence or --repeat-max without --repeat auto, and --shard (the shards of
// one run meet in a barrier named by configuration, once per step, so --shard runs each
// configuration once).
func (f *runFlags) checkRepeat(fl *pflag.FlagSet) error {
	k, auto, err := parseRepeat(f.repeatFlag)
	if err != nil {
		return err
	}
	f.repeat, f.repeatAuto = k, nil
	switch {
	case !auto && fl.Changed("confidence"):
		return fmt.Errorf("--confidence %s without --repeat auto: it is the target --repeat auto repeats until", f.confidenceFlag)
	case !auto && fl.Changed("repeat-max"):
		return fmt.Errorf("--repeat-max %d without --repeat auto: it bounds the rounds --repeat auto runs", f.repeatMax)
	case auto:
		pct, err := parseConfidence(f.confidenceFlag)
		if err != nil {
			return err
		}
		if f.repeatMax < workload.MinAutoRounds || f.repeatMax > maxRepeat {
			return fmt.Errorf("--repeat-max %d: want the most rounds --repeat auto runs, from %d (the rounds it runs before judging) to %d", f.repeatMax, workload.MinAutoRounds, maxRepeat)
		}
		f.repeat, f.repeatAuto = f.repeatMax, &workload.AutoRepeat{TargetPct: pct}
	}
	if f.repeat > 1 && fl.Changed("shard") {
		return fmt.Errorf("--repeat %s with --shard: a sharded run runs each configuration once; repeat the whole sharded run instead (docs/scale-out.md)", f.repeatFlag)
	}
	return nil
}
