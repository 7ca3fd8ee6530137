package merge

import (
	"maps"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// periods are the merged step's over-time reports (iiBench's periods), cut from the merged
// seconds as the runner cuts a step's own: a period ends at the first second at least its
// length (within half a second) after the last one's end, the last at the step's end, and a
// last period shorter than half the length joins the one before. Each operation's counts are
// the merged seconds' summed; its latencies are set from the merged logs (periods.latency).
type periods struct {
	list []result.Period
	of   []int // the period of each merged second (interval index)
	// The operation being merged from the logs: its histograms of the current period and
	// since the start, and the period they hold.
	cur, cum *measure.Histogram
	at       int
}

// newPeriods returns the periods of length secs of step st, whose merged series is set, with
// each operation's counts and the rows every shard's period (active) had at its end; nil
// when secs is 0 (the step reported none).
func newPeriods(st *result.Step, active []part, secs float64) *periods {
	ivs := st.Intervals
	if secs <= 0 || ivs.Len() == 0 {
		return nil
	}
	length := time.Duration(secs * float64(time.Second))
	var ends []int
	last := st.StartedAt
	for i := range ivs.Len() {
		d := ivs.Time(i).Sub(last)
		final := i == ivs.Len()-1
		switch {
		case !final && d < length-time.Second/2, final && d <= 0:
			continue
		case final && d < length/2 && len(ends) > 0:
			ends[len(ends)-1] = i
			continue
		}
		ends = append(ends, i)
		last = ivs.Time(i)
	}
	p := &periods{of: make([]int, ivs.Len()), cur: measure.NewHistogram(), cum: measure.NewHistogram()}
	from := 0
	for k, end := range ends {
		for i := from; i <= end; i++ {
			p.of[i] = k
		}
		p.list = append(p.list, p.period(st, active, from, end))
		from = end + 1
	}
	return p
}

// period returns the period of the merged seconds from to end (interval indexes) of st.
func (p *periods) period(st *result.Step, active []part, from, end int) result.Period {
	ivs := st.Intervals
	start := st.StartedAt
	if from > 0 {
		start = ivs.Time(from - 1)
	}
	at := ivs.Time(end)
	per := result.Period{End: at.Sub(st.StartedAt).Seconds(), Seconds: at.Sub(start).Seconds(),
		Ops: map[string]result.PeriodOp{}, Rows: rowsAt(active, st.StartedAt, ivs.Second(end))}
	for _, name := range slices.Sorted(maps.Keys(st.Ops)) {
		var po result.PeriodOp
		if k := len(p.list); k > 0 {
			po.CumUnits = p.list[k-1].Ops[name].CumUnits
		}
		for i := from; i <= end; i++ {
			o, _ := ivs.Op(i, name)
			po.Count += o.Count
			po.Units += o.Units
			po.Errors += o.Errors
		}
		po.CumUnits += po.Units
		if per.Seconds > 0 {
			po.PerSec = float64(po.Units) / per.Seconds
		}
		if per.End > 0 {
			po.CumPerSec = float64(po.CumUnits) / per.End
		}
		per.Ops[name] = po
	}
	return per
}

// rowsAt returns the rows every shard had inserted by the merged second n: the sum of each
// shard's rows at its last period that ended by then.
func rowsAt(active []part, start time.Time, n int) int64 {
	var rows int64
	for _, pt := range active {
		var r int64
		for _, per := range pt.st.Periods {
			end := pt.st.StartedAt.Add(time.Duration(per.End * float64(time.Second)))
			if secondOf(start, end) <= n {
				r = per.Rows
			}
		}
		rows += r
	}
	return rows
}

// start begins the merge of operation name's logs.
func (p *periods) start() {
	if p == nil {
		return
	}
	p.cur.Reset()
	p.cum.Reset()
	p.at = 0
}

// add adds the service times h of merged second i (an interval index; -1 when the series has
// no such second) of operation name, ending the periods before it.
func (p *periods) add(st *result.Step, name string, i int, h *measure.Histogram) {
	if p == nil || i < 0 {
		return
	}
	for p.at < p.of[i] {
		p.end(st, name)
	}
	p.cur.Merge(h)
	p.cum.Merge(h)
}

// finish ends the remaining periods of operation name.
func (p *periods) finish(st *result.Step, name string) {
	if p == nil {
		return
	}
	for p.at < len(p.list) {
		p.end(st, name)
	}
}

// end sets the latencies of operation name in the current period, over the period and since
// the start, and goes on to the next period. The percentiles are the merged bins', capped at
// the exact maximum of the period's seconds (the shards' exact maxima of each second).
func (p *periods) end(st *result.Step, name string) {
	per := &p.list[p.at]
	po := per.Ops[name]
	po.Latency = capLatency(p.cur, p.maxUs(st, name, p.at, p.at))
	po.CumLatency = capLatency(p.cum, p.maxUs(st, name, 0, p.at))
	per.Ops[name] = po
	p.cur.Reset()
	p.at++
}

// maxUs returns the largest exact maximum of operation name over the seconds of periods from
// to to.
func (p *periods) maxUs(st *result.Step, name string, from, to int) float64 {
	var m float64
	for i, k := range p.of {
		if k >= from && k <= to {
			o, _ := st.Intervals.Op(i, name)
			m = max(m, o.Max)
		}
	}
	return m
}

// capLatency summarizes h without the distribution buckets and the quartiles (as a period's
// latencies are), its percentiles and maximum at most maxUs.
func capLatency(h *measure.Histogram, maxUs float64) result.Latency {
	l := measure.Summarize(h)
	l.Buckets, l.P25, l.P75 = nil, nil, nil
	if h.Count() == 0 || maxUs <= 0 {
		return l
	}
	l.P50, l.P90, l.P99, l.P999 = min(l.P50, maxUs), min(l.P90, maxUs), min(l.P99, maxUs), min(l.P999, maxUs)
	l.Max = maxUs
	return l
}

// reportSeconds returns the length of the shards' periods of the step: the workload's
// report_seconds parameter when any shard's step reported periods, else 0.
func reportSeconds(params map[string]any, active []part) float64 {
	for _, p := range active {
		if len(p.st.Periods) > 0 {
			if v, ok := params["report_seconds"].(float64); ok {
				return v
			}
		}
	}
	return 0
}

// cost returns the merged step's cost at the shards' price per machine hour: its run over
// the merged seconds, and a billion inserts at the merged rate (as iiBench computes a
// step's); nil when no shard's step had one.
func cost(st *result.Step, active []part) *result.Cost {
	for _, p := range active {
		if c := p.st.Cost; c != nil {
			out := &result.Cost{PerHour: c.PerHour, Run: st.Seconds / 3600 * c.PerHour}
			if op := st.Ops["insert"]; op != nil && op.Units > 0 && st.Seconds > 0 {
				v := 1e9 / (float64(op.Units) / st.Seconds) / 3600 * c.PerHour
				out.PerBillionInserts = &v
			}
			return out
		}
	}
	return nil
}
