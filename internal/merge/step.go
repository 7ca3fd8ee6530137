package merge

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// part is one shard's run of a step.
type part struct {
	shard int
	dir   string
	st    *result.Step
}

// mergeStep merges the shards' runs of one step of configuration config (steps[i] is shard
// i's; nil when shard i has none).
func mergeStep(shards []Shard, config string, steps []*result.Step, smp *Sample, hdrRoot string, rules Rules) (*result.Step, error) {
	var present, active []part
	for i, st := range steps {
		if st == nil {
			continue
		}
		p := part{shard: i, dir: shards[i].Dir, st: st}
		present = append(present, p)
		if st.Status != result.StatusSkipped {
			active = append(active, p)
		}
	}
	if len(active) == 0 { // every shard skipped it
		active = present
	}
	st := stepHeader(active)
	if n := len(present); n < len(steps) {
		st.Notes = append(st.Notes, fmt.Sprintf("only %d of the %d shards ran this step (the others had ended)", n, len(steps)))
	}
	for _, p := range active {
		for _, n := range p.st.Notes {
			st.Notes = append(st.Notes, fmt.Sprintf("shard %d: %s", p.shard, n))
		}
	}
	st.Ops, st.Retries = sumOps(active, st.Seconds)
	st.Target = target(active, st.Ops)
	st.Fairness = fairness(active, st.StartedAt)
	st.Verify = verify(rules, present)
	st.Phases = phases(active)
	first := active[0].st
	st.Probe, st.EngineStats, st.EngineStatsBefore = first.Probe, first.EngineStats, first.EngineStatsBefore
	st.HTAP = htap(active)
	if err := mergeSeries(st, config, active, reportSeconds(shards[0].Run.Workload.Params, active), hdrRoot); err != nil {
		return nil, err
	}
	ratePercentiles(st)
	usage(st, active, smp)
	st.Cost = cost(st, active)
	return st, nil
}

// stepHeader returns the merged step's name, status, error, times and clients.
func stepHeader(active []part) *result.Step {
	first := active[0].st
	st := &result.Step{Name: first.Name, Status: result.StatusOK, Primary: first.Primary, StartedAt: first.StartedAt}
	var end time.Time
	allSkipped := true
	for _, p := range active {
		s := p.st
		allSkipped = allSkipped && s.Status == result.StatusSkipped
		st.Status = worse(st.Status, s.Status)
		if s.Error != "" {
			st.Error = joinErr(st.Error, fmt.Sprintf("shard %d: %s", p.shard, s.Error))
		}
		st.StartedAt = earlier(st.StartedAt, s.StartedAt)
		if e := stepEnd(s); e.After(end) {
			end = e
		}
		st.Clients += s.Clients
	}
	if allSkipped {
		st.Status = result.StatusSkipped
	}
	st.Seconds = max(end.Sub(st.StartedAt).Seconds(), 0)
	return st
}

// stepEnd is when s ended.
func stepEnd(s *result.Step) time.Time {
	return s.StartedAt.Add(time.Duration(s.Seconds * float64(time.Second)))
}

// sumOps returns the operations' counts summed over the shards, their rates over the merged
// step's seconds, their exact maxima and means (the latencies' percentiles come from the
// logs, mergeSeries), and the retries.
func sumOps(active []part, seconds float64) (map[string]*result.Op, map[string]int64) {
	ops := map[string]*result.Op{}
	var retries map[string]int64
	for _, p := range active {
		for name, o := range p.st.Ops {
			m := ops[name]
			if m == nil {
				m = &result.Op{Background: o.Background}
				ops[name] = m
			}
			m.Count += o.Count
			m.Units += o.Units
			m.Errors += o.Errors
			m.Found += o.Found
		}
		for name, n := range p.st.Retries {
			if retries == nil {
				retries = map[string]int64{}
			}
			retries[name] += n
		}
	}
	for _, m := range ops {
		if seconds > 0 {
			m.PerSec = float64(m.Units) / seconds
		}
	}
	return ops, retries
}

// exact returns the exact maximum and sum, in nanoseconds, of the latencies of operation op
// over the shards (response times when rt): the maximum of their maxima and the sum of their
// means times their counts.
func exact(active []part, op string, rt bool) (maxNs, sumNs int64) {
	for _, p := range active {
		o := p.st.Ops[op]
		if o == nil {
			continue
		}
		l := &o.Latency
		if rt {
			if l = o.Response; l == nil {
				continue
			}
		}
		maxNs = max(maxNs, int64(math.Round(l.Max*1e3)))
		sumNs += int64(math.Round(l.Mean * 1e3 * float64(o.Count)))
	}
	return maxNs, sumNs
}

// target returns the merged step's target: the shards' targets summed, and the achieved rates
// the merged step's inserts and deletes a second (every shard's over the merged step's time,
// as a run computes its own), the SLA judged over them; nil when no shard had one.
func target(active []part, ops map[string]*result.Op) *result.Target {
	var t *result.Target
	for _, p := range active {
		s := p.st.Target
		if s == nil {
			continue
		}
		if t == nil {
			t = &result.Target{}
		}
		t.InsertsPerSec += s.InsertsPerSec
		t.DeletesPerSec += s.DeletesPerSec
	}
	if t == nil {
		return nil
	}
	rate := func(op string) float64 {
		if o := ops[op]; o != nil {
			return o.PerSec
		}
		return 0
	}
	sla := runner.SLA(t.InsertsPerSec, rate("insert"))
	if t.DeletesPerSec > 0 {
		sla.DeletesPerSec, sla.AchievedDeletesPerSec = t.DeletesPerSec, rate("delete")
	}
	return sla
}

// fairness returns the fairness over every client of every shard: the earliest and the latest
// end of a client, from the merged step's start, each shard's from its own start.
func fairness(active []part, start time.Time) *result.Fairness {
	var f *result.Fairness
	for _, p := range active {
		s := p.st.Fairness
		if s == nil {
			continue
		}
		off := p.st.StartedAt.Sub(start).Seconds()
		lo, hi := s.MinSeconds+off, s.MaxSeconds+off
		if f == nil {
			f = &result.Fairness{MinSeconds: lo, MaxSeconds: hi}
		}
		f.MinSeconds, f.MaxSeconds = min(f.MinSeconds, lo), max(f.MaxSeconds, hi)
	}
	if f == nil {
		return nil
	}
	f.DiffSeconds = f.MaxSeconds - f.MinSeconds
	if f.MinSeconds > 0 {
		f.Pct = f.DiffSeconds / f.MinSeconds * 100
	}
	return f
}

// phases sums the shards' phases of the step by name: rows summed, over the longest.
func phases(active []part) []result.Phase {
	var out []result.Phase
	at := map[string]int{}
	for _, p := range active {
		for _, ph := range p.st.Phases {
			i, ok := at[ph.Name]
			if !ok {
				i = len(out)
				at[ph.Name] = i
				out = append(out, result.Phase{Name: ph.Name})
			}
			out[i].Rows += ph.Rows
			out[i].Seconds = max(out[i].Seconds, ph.Seconds)
		}
	}
	for i := range out {
		if out[i].Seconds > 0 {
			out[i].PerSec = float64(out[i].Rows) / out[i].Seconds
		}
	}
	return out
}

// ratePercentiles sets the p50 and p99 of each operation's per-second rate over the merged
// step's whole seconds (every one but the last), as the runner does.
func ratePercentiles(st *result.Step) {
	ivs := st.Intervals
	if ivs.Len() < 2 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(st.Ops)) {
		var rates []float64
		from := st.StartedAt
		for i := range ivs.Len() - 1 {
			if secs := ivs.Time(i).Sub(from).Seconds(); secs > 0 {
				o, _ := ivs.Op(i, name)
				rates = append(rates, float64(o.Units)/secs)
			}
			from = ivs.Time(i)
		}
		op := st.Ops[name]
		if v, ok := measure.RatePercentile(rates, 50); ok {
			op.RateP50 = &v
		}
		if v, ok := measure.RatePercentile(rates, 99); ok {
			op.RateP99 = &v
		}
	}
}
