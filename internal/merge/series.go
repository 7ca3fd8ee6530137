package merge

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// second is one wall-clock second of the merged step: what every shard did in it.
type second struct {
	end       time.Time
	ops       map[string]*result.IntervalOp
	clientCPU float64
	cpuShards int // the shards that measured their client's CPU in it
}

// secondOf returns the merged step's second (from 1) in which an interval that ended at end
// lies: the nearest whole second after the step's start. The shards' ticks start at the same
// time (the barrier's), a second apart, so that their intervals line up by it.
func secondOf(start, end time.Time) int {
	return max(1, int(math.Round(end.Sub(start).Seconds())))
}

// mergeSeries sets st.Intervals to the shards' per-second series summed by wall-clock second
// (the operations' counts and units, their maxima, the clients' CPU), its periods when the
// shards' step reported them (report seconds long), and each operation's latencies, of every
// second, period and of the step, from the shards' HdrHistogram logs merged bin by bin, which
// it writes under hdrRoot.
func mergeSeries(st *result.Step, config string, active []part, report float64, hdrRoot string) error {
	secs := map[int]*second{}
	for _, p := range active {
		addSeries(secs, st.StartedAt, p.st.Intervals)
	}
	nums := slices.Sorted(maps.Keys(secs))
	st.Intervals = &result.Series{}
	index := map[int]int{}
	for _, n := range nums {
		s := secs[n]
		at := st.StartedAt.Add(time.Duration(n) * time.Second)
		if n == nums[len(nums)-1] {
			at = s.end // the last second ends with the last shard's
		}
		i := st.Intervals.Append(n, at)
		index[n] = i
		for name, o := range s.ops {
			st.Intervals.SetOp(i, name, *o)
		}
		if s.cpuShards == len(active) {
			st.Intervals.SetMetric(i, measure.KeyClientCPU, s.clientCPU)
		}
	}
	per := newPeriods(st, active, report)
	for _, name := range slices.Sorted(maps.Keys(st.Ops)) {
		if err := mergeLogs(st, config, name, active, hdrRoot, index, per); err != nil {
			return err
		}
	}
	if per != nil {
		st.Periods = per.list
	}
	return nil
}

// addSeries adds the intervals of one shard's series ivs to secs.
func addSeries(secs map[int]*second, start time.Time, ivs *result.Series) {
	names := ivs.OpNames()
	for i := range ivs.Len() {
		end := ivs.Time(i)
		n := secondOf(start, end)
		s := secs[n]
		if s == nil {
			s = &second{ops: map[string]*result.IntervalOp{}}
			secs[n] = s
		}
		if end.After(s.end) {
			s.end = end
		}
		for _, name := range names {
			o, ok := ivs.Op(i, name)
			if !ok {
				continue
			}
			m := s.ops[name]
			if m == nil {
				m = &result.IntervalOp{}
				s.ops[name] = m
			}
			m.Count += o.Count
			m.Units += o.Units
			m.Errors += o.Errors
			m.Max, m.RtMax = max(m.Max, o.Max), max(m.RtMax, o.RtMax)
		}
		if v, ok := ivs.Metric(i, measure.KeyClientCPU); ok {
			s.clientCPU += v
			s.cpuShards++
		}
	}
}

// logStream is one shard's log of an operation, read an interval ahead.
type logStream struct {
	f    *os.File
	r    *hdrlog.Reader
	next *hdrlog.Interval
}

// advance reads the stream's next interval (nil at the end).
func (l *logStream) advance() error {
	iv, err := l.r.Next()
	if err == io.EOF {
		l.next = nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", l.f.Name(), err)
	}
	l.next = iv
	return nil
}

// openLogs opens the shards' logs of operation op of the step (those that have one).
func openLogs(config, step, op string, active []part) ([]*logStream, error) {
	var ls []*logStream
	for _, p := range active {
		f, err := os.Open(hdrlog.Path(filepath.Join(p.dir, hdrlog.DirName), config, step, op))
		if errors.Is(err, os.ErrNotExist) {
			continue // it measured no latency (Load checked those that did)
		}
		if err != nil {
			closeLogs(ls)
			return nil, err
		}
		l := &logStream{f: f, r: hdrlog.NewReader(f)}
		ls = append(ls, l)
		if err := l.advance(); err != nil {
			closeLogs(ls)
			return nil, err
		}
	}
	return ls, nil
}

func closeLogs(ls []*logStream) {
	for _, l := range ls {
		l.f.Close()
	}
}

// tags are the lines of a log: service time (untagged) and response time.
var tags = []string{"", hdrlog.TagResponse}

// mergeLogs merges the shards' logs of operation name of step st a second at a time (each
// log is in time order): it writes the merged second's lines to the merged log, sets the
// second's percentiles in st.Intervals (index maps a second to its interval) and, at the
// end, the step's latencies of the operation, and those of its periods per (nil: none).
// Memory holds one second, a period and the step's totals.
func mergeLogs(st *result.Step, config, name string, active []part, hdrRoot string, index map[int]int, per *periods) error {
	ls, err := openLogs(config, st.Name, name, active)
	if err != nil {
		return err
	}
	defer closeLogs(ls)
	out := &mergedLog{path: hdrlog.Path(hdrRoot, config, st.Name, name), start: st.StartedAt}
	defer out.close()
	cur := [2]*measure.Histogram{measure.NewHistogram(), measure.NewHistogram()}
	tot := [2]*measure.Histogram{measure.NewHistogram(), measure.NewHistogram()}
	per.start()
	for {
		n := -1
		for _, l := range ls {
			if l.next != nil && (n < 0 || secondOf(st.StartedAt, l.next.End) < n) {
				n = secondOf(st.StartedAt, l.next.End)
			}
		}
		if n < 0 {
			break
		}
		for _, l := range ls {
			for l.next != nil && secondOf(st.StartedAt, l.next.End) == n {
				if k := slices.Index(tags, l.next.Tag); k >= 0 { // another tag is none of ours
					cur[k].Merge(l.next.Hist)
				}
				if err := l.advance(); err != nil {
					return err
				}
			}
		}
		i, ok := index[n]
		if !ok {
			i = -1
		}
		per.add(st, name, i, cur[0])
		if err := emitSecond(st, name, n, index, cur, tot, out); err != nil {
			return err
		}
	}
	per.finish(st, name)
	setLatency(st, name, active, tot)
	return out.close()
}

// emitSecond writes second n's merged histograms cur to the merged log, sets its percentiles
// in st.Intervals, adds them to the totals tot and empties them.
func emitSecond(st *result.Step, name string, n int, index map[int]int, cur, tot [2]*measure.Histogram, out *mergedLog) error {
	i, ok := index[n]
	start, end := st.StartedAt, st.StartedAt.Add(time.Duration(n)*time.Second)
	if ok {
		end = st.Intervals.Time(i)
		if i > 0 {
			start = st.Intervals.Time(i - 1)
		}
	}
	for k, h := range cur {
		if h.Count() == 0 {
			continue
		}
		if err := out.write(tags[k], start, end, h); err != nil {
			return err
		}
		tot[k].Merge(h)
	}
	if ok {
		o, _ := st.Intervals.Op(i, name)
		if cur[0].Count() > 0 {
			o.P50 = capped(cur[0], 50, o.Max)
			o.P99 = capped(cur[0], 99, o.Max)
		}
		if cur[1].Count() > 0 {
			o.RtP99 = capped(cur[1], 99, o.RtMax)
		}
		st.Intervals.SetOp(i, name, o)
	}
	cur[0].Reset()
	cur[1].Reset()
	return nil
}

// capped returns h's percentile p in microseconds, at most maxUs, the second's exact maximum
// (the logs keep bins, not values): as the runner computes it from the values.
func capped(h *measure.Histogram, p, maxUs float64) float64 {
	return min(measure.Us(h.ValueAtPercentile(p)), maxUs)
}

// setLatency sets operation name's latencies in st from the merged logs' totals tot, with the
// exact maxima and means of the shards' runs.
func setLatency(st *result.Step, name string, active []part, tot [2]*measure.Histogram) {
	op := st.Ops[name]
	if tot[0].Count() > 0 {
		tot[0].SetExact(exact(active, name, false))
		op.Latency = measure.Summarize(tot[0])
	}
	if tot[1].Count() > 0 {
		tot[1].SetExact(exact(active, name, true))
		rt := measure.Summarize(tot[1])
		op.Response = &rt
	}
}

// mergedLog is the merged log of one operation, created with its first line.
type mergedLog struct {
	path  string
	start time.Time
	f     *os.File
	w     *hdrlog.Writer
}

func (m *mergedLog) write(tag string, start, end time.Time, h *measure.Histogram) error {
	if m.w == nil {
		if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		m.f = f
		if m.w, err = hdrlog.NewWriter(f, m.start, "enginebench merge: the shards' logs merged by wall-clock second; "+
			"values in nanoseconds; untagged lines: service time, Tag="+hdrlog.TagResponse+": response time"); err != nil {
			return fmt.Errorf("%s: %w", m.path, err)
		}
	}
	if err := m.w.Write(tag, start, end, h); err != nil {
		return fmt.Errorf("%s: %w", m.path, err)
	}
	return nil
}

func (m *mergedLog) close() error {
	if m.f == nil {
		return nil
	}
	err := m.f.Close()
	m.f = nil
	return err
}
