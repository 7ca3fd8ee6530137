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
//
// Why the environment's and the declaration's defaults are what they are:
//   - steal 5% and other_cpu 10% of all CPUs: below them a step's rate moves less than the
//     run-to-run spread of a quiet host; other_cpu counts the kernel's own threads too
//     (writeback, kswapd), which a write-heavy step keeps a little busy by itself.
//   - psi_cpu 90% (cpu some): a step whose runnable threads outnumber the CPUs keeps some task
//     waiting for one by itself (a tiny qr100 on this project's 2-core host read 70% with
//     other work beside it), so only near-constant waiting is flagged; raise it when comparing
//     engines at saturation (100 never flags).
//   - psi_io 80% (io full: no task ran, every one waited for IO): a single client that syncs
//     every commit waits on the device much of its time by itself (l.x read 19% here), so only
//     a step that did almost nothing but wait is flagged.
//   - psi_memory 10% (memory some): reclaim stalls are not part of a step unless memory is
//     short; under a memory cap (the iobound presets) the group's reclaim shows here by design.
//   - swap 0 pages/s: any swapping moves latency by orders of magnitude.
//   - freq_drop 10%: the governors and boost move the frequency by more than that only under
//     heat or a power limit; throttle 0: any thermal throttle event is one.
//   - cached_reads and iobound_reads 0.1 reads per operation: a cached point or range query
//     reads nothing from the device (a tiny qr100 read 0.0002 a query here), an IO-bound one at
//     least a leaf block most of the time; one read in ten operations is far from both.
func Checks() []Check {
	return []Check{
		{"steal", "%", "CPU time stolen by the hypervisor's other guests during the step, as a percentage of all CPUs' time", 5},
		{"other_cpu", "%", "CPU time of other processes than the client and the DBMS during the step, as a percentage of all CPUs' time", 10},
		{"psi_cpu", "%", "the share of the step's time in which some task waited for a CPU (pressure stall information, cpu some)", 90},
		{"psi_io", "%", "the share of the step's time in which every task waited for IO (io full)", 80},
		{"psi_memory", "%", "the share of the step's time in which some task stalled on memory reclaim (memory some)", 10},
		{"swap", "pages/s", "pages swapped in or out per second during the step", 0},
		{"freq_drop", "%", "how far the CPUs' frequency fell below its level at the step's start", 10},
		{"throttle", "events", "the CPUs' thermal throttle events during the step (thermal_throttle core and package counts)", 0},
		{"cached_reads", "reads/op", "device reads per operation of a query or request step of the cached preset above this: the data was not cached", 0.1},
		{"iobound_reads", "reads/op", "device reads per operation of a query or request step of the iobound preset below this (flags a value under the threshold): the data was cached", 0.1},
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
