package result

import (
	"math"
	"slices"
	"time"
)

// Series is a step's per-second series: one interval per tick of the runner, each with the
// figures of the step's operation types and the metrics sampled in it. It is held in columns
// (one per figure of each operation type, one per metric), the names once for the step, so
// that a second costs a few bytes per figure and no map: an hour-long run keeps every
// second of every step. A figure that was not measured in an interval is not stored as 0:
// an operation absent from an interval has no figures (Op's ok is false), a metric absent
// from it has no value (Metric's ok is false). A column takes memory only once it holds a
// value other than its default (0 for an operation's figures, not measured for a metric), and
// only up to its last such value.
//
// The zero Series is empty and ready to use; a nil *Series is empty. Series is not safe for
// concurrent use.
type Series struct {
	times []time.Time
	// seconds are the intervals' numbers; nil while interval i is second i+1.
	seconds []int
	ops     []opSeries
	metrics []metricSeries
	// metricIndex finds a metric's column by name.
	metricIndex map[string]int
}

// Figures of an operation in an interval, in the order of opSeries.cols.
const (
	fCount = iota
	fUnits
	fPerSec
	fP50
	fP99
	fMax
	fRtP99
	fRtMax
	fErrors
	nFigures
)

// opSeries is one operation type's figures, a column each. The count column holds NaN in
// the intervals the operation is absent from (its default); the others default to 0.
type opSeries struct {
	name string
	cols [nFigures]column
}

// metricSeries is one metric's values; NaN (its default) is not measured.
type metricSeries struct {
	name string
	col  column
}

// column holds one figure of the intervals of a Series: those past its length hold the
// column's default. While every value it holds is a whole number of thousandths from 0 to
// 4,294,967.294 (counts, counters, latencies in microseconds of whole nanoseconds under 4.29
// s) or not measured, it keeps them in 32 bits (milli); the first value that is not makes it
// keep them all as float64 (wide). Either way a value reads back exactly as it was set.
type column struct {
	milli []uint32  // thousandths of each value; noValue: NaN
	wide  []float64 // non-nil once a value did not fit milli
}

// noValue is the milli form of NaN (not measured).
const noValue = math.MaxUint32

// toMilli returns v in thousandths; ok is false when that form does not give v back exactly.
func toMilli(v float64) (m uint32, ok bool) {
	if math.IsNaN(v) {
		return noValue, true
	}
	t := math.Round(v * 1000)
	if !(t >= 0 && t < noValue) {
		return 0, false
	}
	m = uint32(t)
	return m, math.Float64bits(fromMilli(m)) == math.Float64bits(v)
}

// fromMilli returns the value of thousandths m.
func fromMilli(m uint32) float64 {
	if m == noValue {
		return math.NaN()
	}
	return float64(m) / 1000
}

// len returns the number of intervals the column holds.
func (c *column) len() int {
	if c.wide != nil {
		return len(c.wide)
	}
	return len(c.milli)
}

// at returns the value of interval i, def past the column's length.
func (c *column) at(i int, def float64) float64 {
	switch {
	case i >= c.len():
		return def
	case c.wide != nil:
		return c.wide[i]
	}
	return fromMilli(c.milli[i])
}

// set sets the value of interval i to v. A column that holds nothing but def up to i stays
// as short as it is; one that grows from nothing gets room for capacity intervals. def is 0
// or NaN.
func (c *column) set(i int, v, def float64, capacity int) {
	if i >= c.len() {
		if v == def || math.IsNaN(v) && math.IsNaN(def) {
			return
		}
		if c.len() == 0 && c.wide == nil {
			c.milli = make([]uint32, 0, max(i+1, capacity))
		}
		for c.len() < i {
			c.append(def)
		}
		c.append(v)
		return
	}
	m, ok := toMilli(v)
	switch {
	case c.wide != nil:
		c.wide[i] = v
	case ok:
		c.milli[i] = m
	default:
		c.widen()
		c.wide[i] = v
	}
}

// append adds v after the column's last value.
func (c *column) append(v float64) {
	if c.wide == nil {
		if m, ok := toMilli(v); ok {
			c.milli = append(c.milli, m)
			return
		}
		c.widen()
	}
	c.wide = append(c.wide, v)
}

// widen turns the column's values into float64s.
func (c *column) widen() {
	c.wide = make([]float64, len(c.milli), max(cap(c.milli), 1))
	for i, m := range c.milli {
		c.wide[i] = fromMilli(m)
	}
	c.milli = nil
}

// bytes returns the memory the column's values take.
func (c *column) bytes() int { return cap(c.milli)*4 + cap(c.wide)*8 }

// trim gives the column exactly its length as capacity.
func (c *column) trim() {
	if c.wide != nil {
		c.wide = trimmed(c.wide)
	} else {
		c.milli = trimmed(c.milli)
	}
}

// trimmed returns s, or a copy of it without room beyond its length if it has any.
func trimmed[S ~[]E, E any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return slices.Clip(append(make(S, 0, len(s)), s...))
}

// NewSeries returns a series of the given intervals, in order.
func NewSeries(ivs ...Interval) *Series {
	s := &Series{}
	for _, iv := range ivs {
		i := s.Append(iv.Second, iv.Time)
		for name, o := range iv.Ops {
			s.SetOp(i, name, o)
		}
		for name, v := range iv.Metrics {
			s.SetMetric(i, name, v)
		}
	}
	return s
}

// Len returns the number of intervals.
func (s *Series) Len() int {
	if s == nil {
		return 0
	}
	return len(s.times)
}

// Append adds an interval numbered second that ended at t, with no operation and no metric,
// and returns its index.
func (s *Series) Append(second int, t time.Time) int {
	i := len(s.times)
	s.times = append(s.times, t)
	if s.seconds == nil && second != i+1 {
		s.seconds = make([]int, i, cap(s.times))
		for j := range s.seconds {
			s.seconds[j] = j + 1
		}
	}
	if s.seconds != nil {
		s.seconds = append(s.seconds, second)
	}
	return i
}

// Time returns the end of interval i.
func (s *Series) Time(i int) time.Time { return s.times[i] }

// Second returns the number of interval i (its place in the step, from 1).
func (s *Series) Second(i int) int {
	if s.seconds == nil {
		return i + 1
	}
	return s.seconds[i]
}

// op returns the column set of the operation name, nil if it has none.
func (s *Series) op(name string) *opSeries {
	for k := range s.ops {
		if s.ops[k].name == name {
			return &s.ops[k]
		}
	}
	return nil
}

// SetOp sets the figures of the operation name in interval i (which then has it).
func (s *Series) SetOp(i int, name string, o IntervalOp) {
	op := s.op(name)
	if op == nil {
		s.ops = append(s.ops, opSeries{name: name})
		op = &s.ops[len(s.ops)-1]
	}
	v := [nFigures]float64{fCount: float64(o.Count), fUnits: float64(o.Units), fPerSec: o.PerSec,
		fP50: o.P50, fP99: o.P99, fMax: o.Max, fRtP99: o.RtP99, fRtMax: o.RtMax, fErrors: float64(o.Errors)}
	for f := range op.cols {
		op.cols[f].set(i, v[f], figureDefault(f), cap(s.times))
	}
}

// figureDefault is the value of figure f in an interval its column does not reach.
func figureDefault(f int) float64 {
	if f == fCount {
		return math.NaN()
	}
	return 0
}

// Op returns the figures of the operation name in interval i; ok is false when the
// operation is absent from it.
func (s *Series) Op(i int, name string) (o IntervalOp, ok bool) {
	if s == nil {
		return IntervalOp{}, false
	}
	op := s.op(name)
	if op == nil {
		return IntervalOp{}, false
	}
	return op.at(i)
}

// at returns the operation's figures in interval i; ok is false when it is absent from it.
func (op *opSeries) at(i int) (IntervalOp, bool) {
	count := op.cols[fCount].at(i, math.NaN())
	if math.IsNaN(count) {
		return IntervalOp{}, false
	}
	c := &op.cols
	return IntervalOp{Count: int64(count), Units: int64(c[fUnits].at(i, 0)), PerSec: c[fPerSec].at(i, 0),
		P50: c[fP50].at(i, 0), P99: c[fP99].at(i, 0), Max: c[fMax].at(i, 0),
		RtP99: c[fRtP99].at(i, 0), RtMax: c[fRtMax].at(i, 0), Errors: int64(c[fErrors].at(i, 0))}, true
}

// OpNames returns the names of the operations that some interval has, in the order they
// were first set.
func (s *Series) OpNames() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.ops))
	for k := range s.ops {
		names[k] = s.ops[k].name
	}
	return names
}

// SetMetric sets the metric name of interval i to v. NaN is not a measurement: it leaves the
// metric unmeasured in that interval.
func (s *Series) SetMetric(i int, name string, v float64) {
	k, ok := s.metricIndex[name]
	if !ok {
		if math.IsNaN(v) {
			return
		}
		if s.metricIndex == nil {
			s.metricIndex = map[string]int{}
		}
		k = len(s.metrics)
		s.metricIndex[name] = k
		s.metrics = append(s.metrics, metricSeries{name: name})
	}
	s.metrics[k].col.set(i, v, math.NaN(), cap(s.times))
}

// Metric returns the metric name of interval i; ok is false when it was not measured then.
func (s *Series) Metric(i int, name string) (v float64, ok bool) {
	if s == nil {
		return 0, false
	}
	k, ok := s.metricIndex[name]
	if !ok {
		return 0, false
	}
	v = s.metrics[k].col.at(i, math.NaN())
	return v, !math.IsNaN(v)
}

// Metrics puts the metrics measured in interval i into m, which it empties first (a nil m is
// made), and returns it.
func (s *Series) Metrics(i int, m map[string]float64) map[string]float64 {
	if m == nil {
		m = map[string]float64{}
	}
	clear(m)
	if s == nil {
		return m
	}
	for k := range s.metrics {
		if v := s.metrics[k].col.at(i, math.NaN()); !math.IsNaN(v) {
			m[s.metrics[k].name] = v
		}
	}
	return m
}

// MetricNames returns the names of the metrics that some interval has, in the order they were
// first set.
func (s *Series) MetricNames() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.metrics))
	for k := range s.metrics {
		names[k] = s.metrics[k].name
	}
	return names
}

// Interval returns interval i with its operations and metrics in maps (nil when it has
// none): for tests and tools that handle a few intervals, not for a whole step.
func (s *Series) Interval(i int) Interval {
	iv := Interval{Second: s.Second(i), Time: s.Time(i), Ops: map[string]IntervalOp{}}
	for k := range s.ops {
		if o, ok := s.ops[k].at(i); ok {
			iv.Ops[s.ops[k].name] = o
		}
	}
	if m := s.Metrics(i, nil); len(m) > 0 {
		iv.Metrics = m
	}
	return iv
}

// Trim releases the room the columns have beyond their length, which appending leaves: the
// runner trims a step's series when the step ends. Columns added later (the per-operation
// metrics of measure.Derive) get no more room than the series' length.
func (s *Series) Trim() {
	if s == nil {
		return
	}
	s.times = trimmed(s.times)
	s.seconds = trimmed(s.seconds)
	for k := range s.ops {
		for f := range s.ops[k].cols {
			s.ops[k].cols[f].trim()
		}
	}
	for k := range s.metrics {
		s.metrics[k].col.trim()
	}
}
