package workload

import (
	"fmt"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// Profiling is what a run profiles and counts in every step (--cpu-profile, --counters;
// docs/efficiency.md): off unless asked.
type Profiling struct {
	// CPU is "" (off), result.ModeStep or result.ModeWindows.
	CPU string
	// Hz is perf's sampling frequency; runtime/pprof's is fixed at 100.
	Hz int
	// Counters is "" (off), CountersSoftware or CountersAll.
	Counters string
	// Perf is perf's binary; "" finds it on PATH.
	Perf string
}

// The counter sets of --counters.
const (
	// CountersSoftware are the events every machine has (task-clock, context switches, CPU
	// migrations, page faults).
	CountersSoftware = "software"
	// CountersAll are the reference's groups and the software events.
	CountersAll = "all"
)

// DefaultProfileHz is --cpu-profile-hz's default (docs/performance.md, the profilers'
// overhead).
const DefaultProfileHz = 99

// The windows of ModeWindows, the reference's (mytools bench/ibench/np.sh: the doperf2 loop
// sleeps perf_loop_sleep=50 s, then records perf_get_secs=10 s, again and again).
const (
	windowGap    = 50 * time.Second
	windowLength = 10 * time.Second
)

// ParseProfiling checks --cpu-profile, --cpu-profile-hz and --counters (the flags' names in
// its errors) and returns them.
func ParseProfiling(cpu string, hz int, counters string) (Profiling, error) {
	p := Profiling{Hz: hz}
	switch cpu {
	case "", "off":
	case result.ModeStep, result.ModeWindows:
		p.CPU = cpu
	default:
		return Profiling{}, fmt.Errorf("--cpu-profile %q: want off, step (the whole measured time) or windows (%v every %v, as the reference's scripts)", cpu, windowLength, windowGap+windowLength)
	}
	if hz < 1 || hz > 10000 {
		return Profiling{}, fmt.Errorf("--cpu-profile-hz %d: want 1 to 10000 samples a second", hz)
	}
	switch counters {
	case "", "off":
	case CountersSoftware, CountersAll:
		p.Counters = counters
	default:
		return Profiling{}, fmt.Errorf("--counters %q: want off, software or all", counters)
	}
	return p, nil
}

// On reports whether anything is profiled or counted.
func (p Profiling) On() bool { return p.CPU != "" || p.Counters != "" }

// String says what is profiled, for the run's announcement.
func (p Profiling) String() string {
	var parts []string
	if p.CPU != "" {
		parts = append(parts, fmt.Sprintf("CPU profile (%s, %d Hz)", p.CPU, p.Hz))
	}
	if p.Counters != "" {
		parts = append(parts, "counters ("+p.Counters+")")
	}
	return strings.Join(parts, ", ")
}

// schedule is the windows of a windowed sampling: when the next one opens or the open one
// closes, from the step's start.
type schedule struct {
	start time.Time
	n     int // windows opened so far
}

// opens returns the start of window n.
func (s schedule) opens(n int) time.Time {
	return s.start.Add(windowGap + time.Duration(n)*(windowGap+windowLength))
}
