// Package verdict judges whether a run's figures can be trusted: the host it ran on, the
// environment of each step (steal, pressure, swap, other processes' CPU, the CPU's frequency),
// what a step declared against what it measured, and whether its rate was steady. Each check
// becomes a result.Verdict in run.json, held to a threshold that --threshold can change
// (docs/results.md, Verdicts).
package verdict

import (
	"github.com/enginebench/enginebench/internal/result"
)

// stepChecks are the checks of a step, each given the step with its usage, resources and
// per-second series, in the order their verdicts are listed.
var stepChecks = []func(s *result.Step, th Thresholds) []result.Verdict{env, steady}

// hostChecks are the checks of the host a run ran on.
var hostChecks = []func(h *result.Host, th Thresholds) []result.Verdict{hostSettings}

// Step returns the verdicts of step s, ended with its samplers' figures, under th.
func Step(s *result.Step, th Thresholds) []result.Verdict {
	var out []result.Verdict
	for _, check := range stepChecks {
		out = append(out, check(s, th)...)
	}
	return out
}

// Host returns the verdicts of the host h under th.
func Host(h *result.Host, th Thresholds) []result.Verdict {
	var out []result.Verdict
	for _, check := range hostChecks {
		out = append(out, check(h, th)...)
	}
	return out
}

// flag returns a flagged verdict of check with its value, threshold and message.
func flag(check string, value, threshold float64, msg string) result.Verdict {
	return result.Verdict{Check: check, State: result.VerdictFlag, Value: &value, Threshold: &threshold, Unit: unitOf(check), Message: msg}
}

// unitOf returns the unit of check's figures, "" for a check without a threshold.
func unitOf(check string) string {
	for _, c := range Checks() {
		if c.Name == check {
			return c.Unit
		}
	}
	return ""
}

// pass returns a passed verdict of check with its value and threshold.
func pass(check string, value, threshold float64) result.Verdict {
	return result.Verdict{Check: check, State: result.VerdictOK, Value: &value, Threshold: &threshold, Unit: unitOf(check)}
}

// unmeasured returns the verdict of a check whose sensor is absent, saying why.
func unmeasured(check, why string) result.Verdict {
	return result.Verdict{Check: check, State: result.VerdictUnmeasured, Message: why}
}
