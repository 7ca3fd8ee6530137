package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// maxRepeat bounds --repeat: far beyond any useful number of repeats, it stops a typo (300
// for 3) from planning a run of days.
const maxRepeat = 100

// parseRepeat returns the K of --repeat K (a run spec's repeat: when the flag was not given),
// the times each configuration runs: a whole number from 1 to maxRepeat.
func parseRepeat(value string) (int, error) {
	k, err := strconv.Atoi(strings.TrimSpace(value))
	switch {
	case err != nil:
		return 0, fmt.Errorf("--repeat %q: want the number of times each configuration runs, a whole number from 1 to %d", value, maxRepeat)
	case k < 1 || k > maxRepeat:
		return 0, fmt.Errorf("--repeat %d: want the number of times each configuration runs, from 1 to %d", k, maxRepeat)
	}
	return k, nil
}

// checkRepeat returns the K of --repeat (value, as given or from the run spec) and refuses the
// combinations a repeated run does not support: the shards of one run meet in a barrier named
// by configuration, once per step, so --shard runs each configuration once.
func checkRepeat(fl *pflag.FlagSet, value string) (int, error) {
	k, err := parseRepeat(value)
	if err != nil {
		return 0, err
	}
	if k > 1 && fl.Changed("shard") {
		return 0, fmt.Errorf("--repeat %d with --shard: a sharded run runs each configuration once; repeat the whole sharded run instead (docs/scale-out.md)", k)
	}
	return k, nil
}
