package report

import (
	"math"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// maxPoints is the most points a per-second line has: a longer series keeps each bucket's
// minimum and maximum (chart.Downsample), so stalls and spikes stay visible and the page small.
const maxPoints = 600

// linePoints is the most points each of n lines of one chart keeps: maxPoints for up to three
// lines, then the same total for the chart shared among them (a page of 30 configurations is
// no larger than one of three), but never under minLinePoints.
func linePoints(n int) int {
	if n <= 3 {
		return maxPoints
	}
	return max(minLinePoints, 3*maxPoints/n)
}

// minLinePoints keeps each line of many charts' min and max of every minute of a half-hour
// step: a stall of seconds still shows as a dip.
const minLinePoints = 60

// ivValue returns one second's value of an operation; secs is the second's length. NaN: none.
type ivValue func(o result.IntervalOp, secs float64) float64

// ivRate is the operation's rate in that second (0 in a second without any: a stall).
func ivRate(o result.IntervalOp, secs float64) float64 {
	if o.PerSec > 0 || o.Units == 0 {
		return o.PerSec
	}
	if secs <= 0 {
		return math.NaN()
	}
	return float64(o.Units) / secs
}

// ivLatency returns the value of a latency field in milliseconds, NaN in a second without
// operations (no latency was measured).
func ivLatency(field func(o result.IntervalOp) float64) ivValue {
	return func(o result.IntervalOp, _ float64) float64 {
		if o.Count == 0 {
			return math.NaN()
		}
		return field(o) / 1e3
	}
}

// stepSeries returns a line per configuration that ran the step with intervals: x is seconds
// since the step's start, y is value of each second's op (NaN where the op did not run).
func stepSeries(r *result.Run, step, op string, value ivValue) []chart.Series {
	perOp := func(ivs *result.Series, i int, secs float64) float64 {
		o, ok := ivs.Op(i, op)
		if !ok {
			return math.NaN()
		}
		return value(o, secs)
	}
	var out []chart.Series
	for ci, c := range r.Configs {
		s := findStep(c, step)
		if s == nil || s.Intervals.Len() == 0 {
			continue
		}
		x, y := points(s, s.StartedAt, perOp)
		x, y = chart.Downsample(x, y, linePoints(len(r.Configs)))
		out = append(out, chart.Series{Name: c.Name, Color: ci, X: x, Y: y})
	}
	return out
}

// intervalValue returns the value of interval i of a step's series over its operations,
// given its length; NaN: none.
type intervalValue func(ivs *result.Series, i int, secs float64) float64

// points returns the per-second points of a step: x is seconds since t0 at each interval's end,
// y is value of the interval, given its length. A short last interval is left out (shortTail).
func points(s *result.Step, t0 time.Time, value intervalValue) (x, y []float64) {
	ivs := s.Intervals
	x = make([]float64, 0, ivs.Len())
	y = make([]float64, 0, ivs.Len())
	prev := s.StartedAt
	for i := range ivs.Len() {
		at := ivs.Time(i)
		secs := at.Sub(prev).Seconds()
		prev = at
		if shortTail(s, i, secs) {
			break
		}
		x, y = append(x, at.Sub(t0).Seconds()), append(y, value(ivs, i, secs))
	}
	return x, y
}

// shortTail reports whether interval i is the step's last and lasted under half a second: the
// moment the clients stopped, whose rate would show as a dip that is no stall. Its operations
// are in the step's totals; a step with only one interval keeps it.
func shortTail(s *result.Step, i int, secs float64) bool {
	return i > 0 && i == s.Intervals.Len()-1 && secs < 0.5
}

// hasResponse reports whether any configuration measured response times of op in the step.
func hasResponse(r *result.Run, step, op string) bool {
	for _, c := range r.Configs {
		if s := findStep(c, step); s != nil {
			for i := range s.Intervals.Len() {
				if o, _ := s.Intervals.Op(i, op); o.RtMax > 0 {
					return true
				}
			}
		}
	}
	return false
}

// opUnit is what an operation's rate counts, for chart labels.
func opUnit(op string) string {
	switch {
	case op == "query":
		return "queries/s"
	case op == strings.ToUpper(op):
		return "requests/s" // LinkBench's operations
	case op == "link", op == "load":
		return "links/s"
	case op == "node":
		return "nodes/s"
	case op == "count":
		return "counts/s"
	}
	return "rows/s"
}

// opCharts returns the per-second charts of one operation in one step: its rate, and its p99
// and max latency (response time when the op has one: an open-loop writer's latency from its
// intended start), one line per configuration.
func opCharts(r *result.Run, step, op string) []Chart {
	kind, p99, mx := "service time", func(o result.IntervalOp) float64 { return o.P99 }, func(o result.IntervalOp) float64 { return o.Max }
	if hasResponse(r, step, op) {
		kind, p99, mx = "response time", func(o result.IntervalOp) float64 { return o.RtP99 }, func(o result.IntervalOp) float64 { return o.RtMax }
	}
	line := func(id, title, ylabel string, v ivValue) Chart {
		return Chart{ID: chartID(step, op, id), Series: stepSeries(r, step, op, v), Sync: chartID("step", step),
			Options: chart.Options{Title: title, XLabel: "seconds", YLabel: ylabel, Legend: true}}
	}
	return []Chart{
		line("rate", step+" "+op+": "+opUnit(op)+" each second", opUnit(op), ivRate),
		line("p99", step+" "+op+": p99 "+kind+" each second", "ms", ivLatency(p99)),
		line("max", step+" "+op+": max "+kind+" each second", "ms", ivLatency(mx)),
	}
}

// chartID makes an element id of parts: lower case letters, digits and dashes.
func chartID(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('-')
		}
		for _, r := range strings.ToLower(p) {
			if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}
