package stats

import (
	"slices"

	"github.com/enginebench/enginebench/internal/result"
)

// The figures the intervals pair: each repeated configuration's headline rates, round by
// round. The report's at-a-glance table and --repeat auto's stopping rule both read them here,
// so that the interval the page shows is the one the run stopped on.

// Rate is one headline rate of the at-a-glance comparison: an op's rate in a step.
type Rate struct{ Step, Op string }

// GlanceRates are the rates of r the at-a-glance comparison divides by the base's, in the
// order the steps ran: every step's headline rate (its primary op's) and, where a step also
// has foreground queries (iiBench), their rate; not the warmup's, nor a capacity search's
// levels'.
func GlanceRates(r *result.Run) []Rate {
	var out []Rate
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			if s.Primary == "" || s.Name == "warmup" || capacityStep(r, s.Name) {
				continue
			}
			ops := []string{s.Primary}
			if q := s.Ops["query"]; q != nil && !q.Background && s.Primary != "query" {
				ops = append(ops, "query") // iiBench: inserts and queries side by side
			}
			for _, op := range ops {
				if rt := (Rate{s.Name, op}); !slices.Contains(out, rt) {
					out = append(out, rt)
				}
			}
		}
	}
	return out
}

// capacityStep reports whether the named step is a level of a capacity search in some
// configuration of r.
func capacityStep(r *result.Run, step string) bool {
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			if s.Name == step && s.Capacity != nil {
				return true
			}
		}
	}
	return false
}

// Rounds are one configuration's headline rates by round (the index of its repeat), of the
// steps that finished.
type Rounds map[int]map[Rate]float64

// Add adds the rates that rates names of s, the step of the repeat of round, when it
// finished.
func (rs Rounds) Add(round int, s *result.Step, rates []Rate) {
	if s == nil || s.Status != result.StatusOK {
		return
	}
	for _, rt := range rates {
		op := s.Ops[rt.Op]
		if rt.Step != s.Name || op == nil || !(op.PerSec > 0) {
			continue
		}
		if rs[round] == nil {
			rs[round] = map[Rate]float64{}
		}
		rs[round][rt] = op.PerSec
	}
}

// RoundsOf are the rounds of the repeats of configuration config in r (those whose
// Repeat.Config is config).
func RoundsOf(r *result.Run, config string, rates []Rate) Rounds {
	rs := Rounds{}
	for _, c := range r.Configs {
		if c.Repeat == nil || c.Repeat.Config != config {
			continue
		}
		for i := range c.Steps {
			rs.Add(c.Repeat.Index, &c.Steps[i], rates)
		}
	}
	return rs
}

// commonRounds are the rounds both x and y have, in order.
func commonRounds(x, y Rounds) []int {
	var out []int
	for k := range x {
		if y[k] != nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// StepInterval is the interval, at level, of x's rate to y's (RatioInterval), paired over the
// rounds in which both finished the rate's step.
func StepInterval(x, y Rounds, rate Rate, level float64) (Interval, error) {
	var xs, ys []float64
	for _, k := range commonRounds(x, y) {
		xv, xok := x[k][rate]
		yv, yok := y[k][rate]
		if xok && yok {
			xs, ys = append(xs, xv), append(ys, yv)
		}
	}
	return RatioInterval(xs, ys, level)
}

// GlanceInterval is the interval, at level, of the at-a-glance figure of x against y: the
// geometric mean of x's rates divided by y's (GeomeanRatioInterval) over the rates both have
// in some round, paired over the rounds in which both have every one of them (a round in
// which a step failed is left out, not the step).
func GlanceInterval(x, y Rounds, rates []Rate, level float64) (Interval, error) {
	rounds := commonRounds(x, y)
	var used []Rate
	for _, rt := range rates {
		if slices.ContainsFunc(rounds, func(k int) bool { return both(x, y, k, rt) }) {
			used = append(used, rt)
		}
	}
	if len(used) == 0 {
		return Interval{}, ErrTooFew
	}
	xs, ys := make([][]float64, len(used)), make([][]float64, len(used))
	for _, k := range rounds {
		if slices.ContainsFunc(used, func(rt Rate) bool { return !both(x, y, k, rt) }) {
			continue
		}
		for j, rt := range used {
			xs[j], ys[j] = append(xs[j], x[k][rt]), append(ys[j], y[k][rt])
		}
	}
	return GeomeanRatioInterval(xs, ys, level)
}

// both reports whether x and y both have rate rt in round k.
func both(x, y Rounds, k int, rt Rate) bool {
	_, xok := x[k][rt]
	_, yok := y[k][rt]
	return xok && yok
}

// Glance is one configuration's at-a-glance interval against the base: nil Interval when it
// cannot be computed yet (fewer than two rounds in which both finished every step).
type Glance struct {
	Config   string
	Interval *Interval
}

// GlanceIntervals are the at-a-glance intervals, at level, of every repeated configuration of
// r but base against base, in the order they first ran: what --repeat auto judges after each
// round, from the run's repeats as they are (not folded).
func GlanceIntervals(r *result.Run, base string, level float64) []Glance {
	rates := GlanceRates(r)
	baseRounds := RoundsOf(r, base, rates)
	var out []Glance
	var seen []string
	for _, c := range r.Configs {
		if c.Repeat == nil || c.Repeat.Config == base || slices.Contains(seen, c.Repeat.Config) {
			continue
		}
		seen = append(seen, c.Repeat.Config)
		g := Glance{Config: c.Repeat.Config}
		if iv, err := GlanceInterval(RoundsOf(r, c.Repeat.Config, rates), baseRounds, rates, level); err == nil {
			g.Interval = &iv
		}
		out = append(out, g)
	}
	return out
}
