package verdict

import (
	"fmt"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// env returns the verdicts of the environment a step ran in, from its usage (package
// measure's environment keys): steal, other processes' CPU, pressure of cpu, io and memory,
// swap, the CPUs' frequency drop and thermal throttling. A step without usage (no OS
// accountant) has none; a sensor the host lacks gives an unmeasured verdict saying so.
func env(s *result.Step, th Thresholds) []result.Verdict {
	u := s.Usage
	if len(u) == 0 {
		return nil
	}
	e := envStep{name: s.Name, u: u, th: th}
	return []result.Verdict{
		e.shareOfCPUs("steal", measure.KeySteal, "steal", "no steal column in /proc/stat"),
		e.shareOfCPUs("other_cpu", measure.KeyOtherCPU, "other processes' CPU",
			"the DBMS's processes are not known (an existing server without --db-pid), so the others' CPU cannot be told from theirs"),
		e.shareOfTime("psi_cpu", measure.KeyPSICPUSome, "CPU pressure (some)"),
		e.shareOfTime("psi_io", measure.KeyPSIIOFull, "IO pressure (full)"),
		e.shareOfTime("psi_memory", measure.KeyPSIMemorySome, "memory pressure (some)"),
		e.swap(), e.freqDrop(), e.throttle(),
	}
}

// envStep is a step's usage and thresholds, judged by envStep's checks.
type envStep struct {
	name string
	u    map[string]float64
	th   Thresholds
}

// judge returns the verdict of check on value: flagged, with a message saying what of what
// during the step, above its threshold; else passed.
func (e envStep) judge(check string, value float64, what string) result.Verdict {
	limit := e.th.Of(check)
	if value > limit {
		return flag(check, value, limit, fmt.Sprintf("%s during %s: figures may be noisy", what, e.name))
	}
	return pass(check, value, limit)
}

// MinShareSeconds is the shortest step whose shares of the CPUs are judged: /proc/stat and a
// process's stat count CPU time in ticks of 10 ms per CPU, and the others' share is the host's
// less the client's and the DBMS's, so a step of a few ticks can read tens of percent that
// nobody used (seen: 46% "other" in a pebble load of 10 ms on an idle host).
const MinShareSeconds = 1.0

// shareOfCPUs judges key, CPU seconds, as a percentage of all CPUs' time in the step.
func (e envStep) shareOfCPUs(check, key, what, absent string) result.Verdict {
	v, ok := e.u[key]
	all, secs := e.u[measure.KeyCPUAll], e.u[measure.KeySeconds]
	switch {
	case !ok && all > 0:
		return unmeasured(check, absent)
	case !ok:
		return unmeasured(check, "/proc/stat was not read")
	case all <= 0:
		return unmeasured(check, "no CPU time passed in the step")
	case secs < MinShareSeconds:
		return unmeasured(check, fmt.Sprintf("the step took %s: CPU time is counted in 10 ms ticks, too coarse for a share of under %s",
			numfmt.Seconds(secs), numfmt.Seconds(MinShareSeconds)))
	}
	pct := v / all * 100
	return e.judge(check, pct, fmt.Sprintf("%s %s of the CPUs", what, percent(pct)))
}

// shareOfTime judges key, seconds of stall, as a percentage of the step's time.
func (e envStep) shareOfTime(check, key, what string) result.Verdict {
	v, ok := e.u[key]
	secs := e.u[measure.KeySeconds]
	switch {
	case !ok:
		return unmeasured(check, "no /proc/pressure on this kernel (before 4.20, or booted without psi)")
	case secs <= 0:
		return unmeasured(check, "the step took no measurable time")
	}
	pct := min(v/secs*100, 100) // two clocks: a stall of the whole step can read 100.1%
	return e.judge(check, pct, fmt.Sprintf("%s %s of the time", what, percent(pct)))
}

// swap judges the pages swapped in and out per second of the step.
func (e envStep) swap() result.Verdict {
	in, okIn := e.u[measure.KeySwapIn]
	out, okOut := e.u[measure.KeySwapOut]
	secs := e.u[measure.KeySeconds]
	switch {
	case !okIn || !okOut:
		return unmeasured("swap", "no pswpin and pswpout in /proc/vmstat")
	case secs <= 0:
		return unmeasured("swap", "the step took no measurable time")
	}
	rate := (in + out) / secs
	return e.judge("swap", rate, fmt.Sprintf("swap %.0f pages in, %.0f out (%.1f a second)", in, out, rate))
}

// freqDrop judges how far the CPUs' mean frequency fell below its level at the step's start.
func (e envStep) freqDrop() result.Verdict {
	start, ok := e.u[measure.KeyFreqStartMHz]
	low := e.u[measure.KeyFreqMinMHz]
	if !ok || start <= 0 {
		return unmeasured("freq_drop", "no cpufreq scaling_cur_freq in /sys (many virtual machines)")
	}
	pct := max((start-low)/start*100, 0)
	return e.judge("freq_drop", pct, fmt.Sprintf("CPU frequency down %s (%.0f to %.0f MHz)", percent(pct), start, low))
}

// throttle judges the CPUs' thermal throttle events in the step.
func (e envStep) throttle() result.Verdict {
	n, ok := e.u[measure.KeyThrottles]
	if !ok {
		return unmeasured("throttle", "no thermal_throttle counters in /sys (only x86 has them)")
	}
	return e.judge("throttle", n, fmt.Sprintf("%.0f thermal throttle events", n))
}

// percent formats a percentage for a message: whole above 10, one decimal below.
func percent(pct float64) string {
	if pct >= 10 {
		return fmt.Sprintf("%.0f%%", pct)
	}
	return fmt.Sprintf("%.1f%%", pct)
}
