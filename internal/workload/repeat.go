package workload

import (
	"context"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/stats"
)

// MinAutoRounds are the rounds --repeat auto runs before it first judges the intervals: two
// rounds make an interval, but one so wide or so narrow by chance that a third is needed
// before stopping on it means anything.
const MinAutoRounds = 3

// AutoRepeat is --repeat auto: repeat every configuration, interleaved, round after round,
// until the confidence interval of every configuration's at-a-glance ratio to the base (the
// plan's first configuration) is narrower than the target, or Plan.Repeat rounds have run.
type AutoRepeat struct {
	// TargetPct is --confidence: the largest relative half-width, in percent, of every
	// interval (stats.Interval.HalfWidthPct) at stats.Level.
	TargetPct float64
}

// autoRun judges, after each round of a run with --repeat auto, whether to go on; it keeps
// its record in the run (result.RepeatAuto).
type autoRun struct {
	rec *result.RepeatAuto
}

// startAuto records in run that it repeats automatically, when the plan does; nil when not.
func (p Plan) startAuto(run *result.Run) *autoRun {
	if p.Auto == nil || len(p.Configs) == 0 {
		return nil
	}
	run.RepeatAuto = &result.RepeatAuto{TargetPct: p.Auto.TargetPct, Level: stats.Level, MinRounds: MinAutoRounds,
		MaxRounds: p.Repeat, Base: p.Configs[0].Name}
	return &autoRun{rec: run.RepeatAuto}
}

// begin notes that round k begins, in the record and in every repeat's count so far, so that
// run.json holds the rounds run even if the run is killed.
func (a *autoRun) begin(run *result.Run, k int) {
	if a == nil {
		return
	}
	a.rec.Rounds = k
	for i := range run.Configs {
		if rp := run.Configs[i].Repeat; rp != nil {
			rp.Count = k
		}
	}
}

// mark is a repeat's mark as run.json holds it: with --repeat auto, its count is the rounds
// begun so far (begin updates it), not the maximum.
func (a *autoRun) mark(m *result.Repeat) *result.Repeat {
	if a == nil || m == nil {
		return m
	}
	cp := *m
	cp.Count = a.rec.Rounds
	return &cp
}

// judge is the stopping rule, after round k of run: from MinAutoRounds on, the run stops
// when every configuration but the base has an at-a-glance interval against the base
// (stats.GlanceIntervals, the one the report shows) narrower than the target. It records the
// widths it judged and returns whether to stop.
func (a *autoRun) judge(run *result.Run, k int) bool {
	if a == nil || k < MinAutoRounds {
		return false
	}
	met := true
	a.rec.Widths = map[string]*float64{}
	for _, g := range stats.GlanceIntervals(run, a.rec.Base, a.rec.Level) {
		if g.Interval == nil {
			a.rec.Widths[g.Config], met = nil, false
			continue
		}
		w := g.Interval.HalfWidthPct()
		a.rec.Widths[g.Config] = &w
		met = met && w < a.rec.TargetPct
	}
	if met {
		a.rec.Stopped = result.StoppedConfidenceMet
	}
	return met
}

// finish records why the run stopped repeating when the rule did not stop it: an interrupt, or
// the maximum count of rounds.
func (a *autoRun) finish(ctx context.Context) {
	switch {
	case a == nil || a.rec.Stopped != "":
	case ctx.Err() != nil:
		a.rec.Stopped = result.StoppedInterrupted
	default:
		a.rec.Stopped = result.StoppedMaximumReached
	}
}
