package verdict

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Check is one check with a threshold: its name (Verdict.Check, and the name --threshold
// takes), the unit of its value and threshold, what it flags, and its default threshold.
type Check struct {
	Name, Unit, Flags string
	Default           float64
}

// Checks returns the checks that have a threshold, in the order docs/results.md lists them.
func Checks() []Check {
	return []Check{
		{"steal", "%", "CPU time stolen by the hypervisor's other guests during the step, as a percentage of all CPUs' time", 5},
		{"other_cpu", "%", "CPU time of other processes than the client and the DBMS during the step, as a percentage of all CPUs' time", 10},
		{"psi_cpu", "%", "the share of the step's time in which some task waited for a CPU (pressure stall information, cpu some)", 90},
		{"psi_io", "%", "the share of the step's time in which every task waited for IO (io full)", 50},
		{"psi_memory", "%", "the share of the step's time in which some task stalled on memory reclaim (memory some)", 10},
		{"swap", "pages/s", "pages swapped in or out per second during the step", 0},
		{"freq_drop", "%", "how far the CPUs' frequency fell below its level at the step's start", 10},
		{"steady", "%", "how far the primary operation's per-second rate moved over the measured time by its trend (the Theil-Sen slope times the measured seconds, as a percentage of the median rate), where the Mann-Kendall test finds a trend at steady_alpha", 10},
		{"steady_alpha", "p", "not a check: the significance level of the steady check's trend test (a p-value under it is a trend)", 0.05},
		{"settle_band", "%", "not a check: the band around the final rate the settling time counts to (settle_seconds)", 10},
	}
}

// Thresholds are the limits of the checks by name: a verdict flags a value above its check's
// threshold.
type Thresholds map[string]float64

// Defaults returns every check's default threshold.
func Defaults() Thresholds {
	th := Thresholds{}
	for _, c := range Checks() {
		th[c.Name] = c.Default
	}
	return th
}

// Parse returns the defaults with the thresholds given in args changed: each arg is
// CHECK=VALUE, or several of them separated by commas (--threshold steal=3,other_cpu=20).
// An unknown check or a value that is not a number of 0 or more is an error.
func Parse(args []string) (Thresholds, error) {
	th := Defaults()
	for _, arg := range args {
		for part := range strings.SplitSeq(arg, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return nil, fmt.Errorf("--threshold %q: want CHECK=VALUE (checks: %s)", part, names())
			}
			if _, known := th[name]; !known {
				return nil, fmt.Errorf("--threshold %s: unknown check %q (checks: %s)", part, name, names())
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return nil, fmt.Errorf("--threshold %s: want a number of 0 or more", part)
			}
			th[name] = v
		}
	}
	return th, nil
}

// names lists the checks that take a threshold.
func names() string {
	return strings.Join(slices.Sorted(maps.Keys(Defaults())), ", ")
}

// Of returns the threshold of check under th, its default when th does not have it (a nil th
// is the defaults).
func (th Thresholds) Of(check string) float64 {
	if v, ok := th[check]; ok {
		return v
	}
	return Defaults()[check]
}
