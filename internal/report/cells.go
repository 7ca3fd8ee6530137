package report

import (
	"maps"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// The cells every workload's tables share: a missing value, an operation's latency and response
// time, a step's rate with its marks and spread; and the lookups they stand on (steps, their
// operations, a rate's unit).

// missing is what a cell shows when there is no value.
const missing = "-"

// latencyCells are an operation's p50, p90, p99, p99.9, max and mean, or missing when it ran
// no operation.
func latencyCells(op *result.Op) []string {
	if op.Count == 0 {
		return []string{missing, missing, missing, missing, missing, missing}
	}
	l := op.Latency
	return []string{numfmt.Duration(l.P50), numfmt.Duration(l.P90), numfmt.Duration(l.P99), numfmt.Duration(l.P999), numfmt.Duration(l.Max), numfmt.Duration(l.Mean)}
}

// responseCells are op's response time p50, p99 and max (an open-loop writer's, from when each
// operation was due), missing where it has none or did no operation.
func responseCells(op *result.Op) []string {
	if op.Response == nil || op.Count == 0 {
		return []string{missing, missing, missing}
	}
	rt := op.Response
	return []string{numfmt.Duration(rt.P50), numfmt.Duration(rt.P99), numfmt.Duration(rt.Max)}
}

// opLabel names an operation in a table, marking a background writer's.
func opLabel(name string, op *result.Op) string {
	if op.Background {
		return name + " (bg)"
	}
	return name
}

// rateSteps returns, in the order they ran, the names of steps that have a headline rate.
func rateSteps(r *result.Run) []string {
	return stepsWith(r, func(s *result.Step) bool { return s.Primary != "" })
}

// stepsWith returns, in the order they ran, the names of the steps for which has holds in at
// least one configuration.
func stepsWith(r *result.Run, has func(*result.Step) bool) []string {
	var names []string
	for _, c := range r.Configs {
		for i := range c.Steps {
			if s := &c.Steps[i]; has(s) && !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

func findStep(c result.Config, name string) *result.Step {
	for i := range c.Steps {
		if c.Steps[i].Name == name {
			return &c.Steps[i]
		}
	}
	return nil
}

// unit is what a step's headline rate counts.
func unit(step string) string {
	if strings.HasPrefix(step, "q") || strings.HasPrefix(step, "run.") || step == "warmup" {
		return "qps"
	}
	return "ips"
}

// rateCell is a step's headline rate with its marks (SLA missed, client-bound), or why there
// is none.
func rateCell(s *result.Step) string { return rateSpanCell(s, nil) }

// rateSpanCell is rateCell with the rate's spread over the configuration's repeats (sr; none
// when nil): "20.1k (19.5k-20.8k) (SLA missed)".
func rateSpanCell(s *result.Step, sr *spread) string {
	if s == nil {
		return missing
	}
	if s.Status != result.StatusOK {
		return s.Status
	}
	op := s.Ops[s.Primary]
	if op == nil {
		return missing
	}
	var marks []string
	if s.Target != nil && !s.Target.SLAMet {
		marks = append(marks, "SLA missed")
	}
	if s.ClientBound {
		marks = append(marks, clientBoundMark)
	}
	v := numfmt.Num(op.PerSec)
	if sr != nil {
		lo, lok := stepRate(sr.min)
		hi, hok := stepRate(sr.max)
		if lok && hok {
			v += spreadText(numfmt.Num(lo), numfmt.Num(hi), sr)
		}
	}
	if len(marks) > 0 {
		v += " (" + strings.Join(marks, ", ") + ")"
	}
	return v
}

// opNames returns a step's ops: the headline op first, then the others by name.
func opNames(s result.Step) []string {
	names := slices.Sorted(maps.Keys(s.Ops))
	if i := slices.Index(names, s.Primary); i > 0 {
		names = append([]string{s.Primary}, slices.Delete(names, i, i+1)...)
	}
	return names
}

// opCells are the cells cells makes of the named op of a step, all missing (n of them) where
// the step has no such op.
func opCells(name string, cells func(*result.Op) []string) func(*result.Step) []string {
	return func(s *result.Step) []string {
		if op := s.Ops[name]; op != nil {
			return cells(op)
		}
		return allMissing(cells(&result.Op{}))
	}
}

// allMissing returns cells, each set to missing.
func allMissing(cells []string) []string {
	for i := range cells {
		cells[i] = missing
	}
	return cells
}

func statCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return missing
	}
	return numfmt.Num(v)
}

// optNum formats v, or shows it missing.
func optNum(v *float64) string {
	if v == nil {
		return missing
	}
	return numfmt.Num(*v)
}

// slaAchieved is a step's achieved background inserts/s (its repeats share the target, so the
// spread of the percentage is that of the rate).
func slaAchieved(s *result.Step) string {
	if s.Target == nil {
		return missing
	}
	return numfmt.Num(s.Target.AchievedInsertsPerSec)
}

// stepOps returns the operations any configuration ran in the step, the headline op first.
func stepOps(r *result.Run, step string) []string {
	var out []string
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			for _, op := range opNames(*s) {
				if !slices.Contains(out, op) {
					out = append(out, op)
				}
			}
		}
	}
	return out
}
