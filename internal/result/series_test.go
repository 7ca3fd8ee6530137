package result

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// randomIntervals returns n intervals of a step started at start, as the runner makes them:
// every op of ops in every interval (but for the ones a step does not run), latencies only
// with operations, response times only for rt ops, metrics measured in some seconds only; one
// interval has no length (a clock that stood still).
func randomIntervals(rng *rand.Rand, start time.Time, n int, ops []string, rt map[string]bool, metrics []string) []Interval {
	ivs := make([]Interval, n)
	at := start
	for i := range ivs {
		if i != n/2 {
			at = at.Add(time.Duration(500+rng.IntN(1000)) * time.Millisecond)
		}
		iv := Interval{Second: i + 1, Time: at, Ops: map[string]IntervalOp{}}
		for _, op := range ops {
			o := IntervalOp{Count: int64(rng.IntN(3) * rng.IntN(500))}
			o.Units = o.Count * int64(1+rng.IntN(100))
			if rng.IntN(10) == 0 {
				o.Errors = int64(rng.IntN(5))
			}
			if o.Count > 0 {
				o.P50, o.P99, o.Max = float64(rng.IntN(1e6))/1e3, float64(rng.IntN(1e7))/1e3, rng.Float64()*1e7
				if rt[op] {
					o.RtP99, o.RtMax = float64(rng.IntN(1e7))/1e3, float64(1+rng.IntN(1e8))/1e3
				}
			}
			iv.Ops[op] = o
		}
		for _, m := range metrics {
			if rng.IntN(4) > 0 {
				if iv.Metrics == nil {
					iv.Metrics = map[string]float64{}
				}
				iv.Metrics[m] = []float64{0, rng.Float64(), float64(rng.IntN(1e9)), -rng.Float64() * 1e-9}[rng.IntN(4)]
			}
		}
		ivs[i] = iv
	}
	return ivs
}

// randomRun returns a run of two configurations whose names need quoting in a CSV file, with
// steps of different operations and metrics, one step without intervals; ivs holds each
// step's intervals by "config/step".
func randomRun(seed uint64) (r *Run, ivs map[string][]Interval) {
	rng := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 123e6, time.UTC) // the file keeps milliseconds
	r = &Run{RunID: "r", StartedAt: t0, Status: StatusOK, Workload: Workload{Name: "linkbench"}}
	ivs = map[string][]Interval{}
	steps := []struct {
		name    string
		ops     []string
		rt      map[string]bool
		metrics []string
		n       int
	}{
		{"load", []string{"link", "count", "node"}, nil, []string{"cpu_s", "usage_s", "dbgb1"}, 40},
		{"run.1", []string{"ADD_LINK", "GET_NODE", "requests"}, map[string]bool{"ADD_LINK": true}, []string{"cpu_s", "rps", "l0_files"}, 70},
		{"verify", nil, nil, nil, 0},
	}
	for _, name := range []string{"inno,db", `my "rocks"`} {
		c := Config{Name: name, Status: StatusOK}
		at := t0
		for _, st := range steps {
			s := Step{Name: st.name, Status: StatusOK, StartedAt: at}
			if st.n > 0 {
				list := randomIntervals(rng, at, st.n, st.ops, st.rt, st.metrics)
				ivs[name+"/"+st.name] = list
				s.Intervals = NewSeries(list...)
				at = list[len(list)-1].Time
			}
			c.Steps = append(c.Steps, s)
		}
		r.Configs = append(r.Configs, c)
	}
	return r, ivs
}

// referenceIntervalsCSV is intervals.csv as encoding/csv writes it from the intervals' maps,
// one record per interval: the form the file had before the series were columns.
func referenceIntervalsCSV(t *testing.T, r *Run, ivs map[string][]Interval) []byte {
	t.Helper()
	var ops, metrics []string
	for _, list := range ivs {
		for _, iv := range list {
			for op := range iv.Ops {
				ops = append(ops, op)
			}
			for m := range iv.Metrics {
				metrics = append(metrics, m)
			}
		}
	}
	slices.Sort(ops)
	slices.Sort(metrics)
	ops, metrics = slices.Compact(ops), slices.Compact(metrics)
	header := []string{"config", "step", "second", "time"}
	for _, op := range ops {
		for _, col := range intervalOpColumns {
			header = append(header, op+"_"+col)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(append(header, metrics...))
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			prev := s.StartedAt
			for _, iv := range ivs[c.Name+"/"+s.Name] {
				secs := iv.Time.Sub(prev).Seconds()
				prev = iv.Time
				row := []string{c.Name, s.Name, strconv.Itoa(iv.Second), iv.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
				for _, op := range ops {
					o, ok := iv.Ops[op]
					cells := make([]string, len(intervalOpColumns))
					if ok {
						cells[0], cells[7] = strconv.FormatInt(o.Count, 10), strconv.FormatInt(o.Errors, 10)
						if secs > 0 {
							cells[1] = num(float64(o.Units) / secs)
						}
						if o.Count != 0 {
							cells[2], cells[3], cells[4] = num(o.P50), num(o.P99), num(o.Max)
						}
						if o.RtMax != 0 {
							cells[5], cells[6] = num(o.RtP99), num(o.RtMax)
						}
					}
					row = append(row, cells...)
				}
				for _, m := range metrics {
					cell := ""
					if v, ok := iv.Metrics[m]; ok {
						cell = num(v)
					}
					row = append(row, cell)
				}
				w.Write(row)
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The file written from the columns is the one encoding/csv writes from the intervals' maps,
// byte for byte, and reads back into the same series: unmeasured cells stay unmeasured.
func TestIntervalsCSVRoundTrip(t *testing.T) {
	for seed := range uint64(4) {
		r, ivs := randomRun(seed)
		d, err := CreateDir(filepath.Join(t.TempDir(), "run"))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteIntervals(r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(d.Path(), "intervals.csv")
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceIntervalsCSV(t, r, ivs); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: intervals.csv differs from encoding/csv's:\n%s\nwant\n%s", seed, got, want)
		}

		back, _ := randomRun(seed)
		if err := ReadIntervals(path, back); err != nil {
			t.Fatal(err)
		}
		for _, c := range back.Configs {
			for _, s := range c.Steps {
				checkReadBack(t, c.Name+"/"+s.Name, s, ivs[c.Name+"/"+s.Name])
			}
		}
		// What was read writes the same file again.
		if err := d.WriteIntervals(back); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
			t.Errorf("seed %d: the file read back and written again differs", seed)
		}
	}
}

// checkReadBack compares the intervals read into step s with those written, want: the same
// figures, each operation's rate set from the file, and what was not measured absent.
func checkReadBack(t *testing.T, name string, s Step, want []Interval) {
	t.Helper()
	if s.Intervals.Len() != len(want) {
		t.Fatalf("%s: %d intervals read, want %d", name, s.Intervals.Len(), len(want))
	}
	prev := s.StartedAt
	for i, w := range want {
		secs := w.Time.Sub(prev).Seconds()
		prev = w.Time
		g := s.Intervals.Interval(i)
		if g.Second != w.Second || !g.Time.Equal(w.Time) || len(g.Ops) != len(w.Ops) || len(g.Metrics) != len(w.Metrics) {
			t.Fatalf("%s interval %d: read %+v, want %+v", name, i, g, w)
		}
		for op, wo := range w.Ops {
			if secs > 0 {
				wo.PerSec = float64(wo.Units) / secs
			} else {
				wo.Units = 0 // no rate to read it from
			}
			if g.Ops[op] != wo {
				t.Errorf("%s interval %d %s: read %+v, want %+v", name, i, op, g.Ops[op], wo)
			}
		}
		for m, v := range w.Metrics {
			if got, ok := s.Intervals.Metric(i, m); !ok || got != v {
				t.Errorf("%s interval %d %s: read %v (measured %v), want %v", name, i, m, got, ok, v)
			}
		}
		for _, m := range s.Intervals.MetricNames() {
			if _, measured := w.Metrics[m]; !measured {
				if v, ok := s.Intervals.Metric(i, m); ok {
					t.Errorf("%s interval %d %s: not measured, read %v", name, i, m, v)
				}
			}
		}
	}
}

func TestSeriesColumns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s Series
	for i := range 10 {
		second := i + 1
		if i >= 6 {
			second = i + 3 // numbers that do not follow the places (a file written by hand)
		}
		if got := s.Append(second, t0.Add(time.Duration(i)*time.Second)); got != i {
			t.Fatalf("Append returned %d, want %d", got, i)
		}
	}
	s.SetMetric(4, "dbgb1", 0) // a measured zero
	s.SetMetric(6, "dbgb1", 2.5)
	s.SetMetric(7, "dbgb1", math.NaN()) // not a measurement
	s.SetMetric(3, "never", math.NaN()) // no column for it
	s.SetOp(2, "query", IntervalOp{})   // present, nothing done
	s.SetOp(5, "query", IntervalOp{Count: 3, Units: 30, P99: 1.5, Errors: 1})
	s.Trim()

	for i := range 10 {
		if want := map[bool]int{true: i + 3, false: i + 1}[i >= 6]; s.Second(i) != want {
			t.Errorf("Second(%d) = %d, want %d", i, s.Second(i), want)
		}
		v, ok := s.Metric(i, "dbgb1")
		if wantOK := i == 4 || i == 6; ok != wantOK || ok && v != map[int]float64{4: 0, 6: 2.5}[i] {
			t.Errorf("dbgb1 at %d = %v, %v", i, v, ok)
		}
		o, ok := s.Op(i, "query")
		if wantOK := i == 2 || i == 5; ok != wantOK {
			t.Errorf("query at %d present %v, want %v", i, ok, wantOK)
		}
		if i == 5 && o != (IntervalOp{Count: 3, Units: 30, P99: 1.5, Errors: 1}) {
			t.Errorf("query at 5 = %+v", o)
		}
	}
	if names := s.MetricNames(); !slices.Equal(names, []string{"dbgb1"}) {
		t.Errorf("metric names %v: an unmeasured metric has a column", names)
	}
	if iv := s.Interval(0); len(iv.Ops) != 0 || iv.Metrics != nil {
		t.Errorf("interval 0 = %+v, want nothing measured", iv)
	}
	// Only the columns that hold a value other than their default take room, up to the last,
	// 4 bytes a value for whole thousandths.
	q := s.op("query")
	for f, want := range map[int]int{fCount: 6, fUnits: 6, fP99: 6, fErrors: 6, fP50: 0, fRtMax: 0} {
		if got := q.cols[f].len(); got != want || q.cols[f].bytes() != 4*want {
			t.Errorf("query figure %d: %d values in %d bytes, want %d in %d", f, got, q.cols[f].bytes(), want, 4*want)
		}
	}

	var none *Series
	if none.Len() != 0 || none.OpNames() != nil || len(none.Metrics(0, nil)) != 0 {
		t.Error("a nil series is not empty")
	}
	if _, ok := none.Op(0, "query"); ok {
		t.Error("a nil series has an op")
	}
}

// A second appended to a series whose names are known allocates nothing but the columns'
// growth: no map.
func TestSeriesAppendAllocates(t *testing.T) {
	var s Series
	ops := []string{"a", "b", "c", "d"}
	metrics := []string{"cpu_s", "reads", "usage_s", "dbgb1", "cpupq", "rps"}
	second := func() {
		i := s.Append(s.Len()+1, time.Time{})
		for _, op := range ops {
			s.SetOp(i, op, IntervalOp{Count: 5, Units: 50, P50: 1, P99: 2, Max: 3})
		}
		for _, m := range metrics {
			s.SetMetric(i, m, 1.5)
		}
	}
	second()
	// 27 columns grow by doubling: about 27 x 11 allocations in 2,000 seconds, where maps
	// would take at least two a second (AllocsPerRun rounds the average down).
	if n := testing.AllocsPerRun(2000, second); n != 0 {
		t.Errorf("%.2f allocations per second appended", n)
	}
}

// A column keeps whole thousandths in 32 bits and turns to float64 at the first value that
// is not one, every value reading back exactly as it was set, -0 and not measured included.
func TestColumnForms(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		v     float64
		milli bool
	}{
		{0, true}, {1, true}, {0.001, true}, {1234.567, true}, {4294967.294, true}, {nan, true},
		{4294967.295, false}, {1e12, false}, {-1, false}, {math.Copysign(0, -1), false}, {0.0005, false},
		{math.Nextafter(0.3, 1), false}, {math.Inf(1), false}, {1.0 / 3, false},
	} {
		var col column
		col.set(0, 7, nan, 0)
		col.set(1, c.v, nan, 0)
		col.set(3, 2.5, nan, 0)
		if got := col.wide == nil; got != c.milli {
			t.Errorf("%v: kept in thousandths %v, want %v", c.v, got, c.milli)
		}
		want := []float64{7, c.v, nan, 2.5}
		for i, w := range want {
			if g := col.at(i, nan); math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("%v: value %d reads %v, want %v", c.v, i, g, w)
			}
		}
		if g := col.at(4, 0); g != 0 {
			t.Errorf("%v: past the end %v, want the default", c.v, g)
		}
	}
}

// BenchmarkWriteIntervals writes the intervals.csv of a step of 3,600 seconds of 11
// operation types and 52 metrics (LinkBench's shape, BenchmarkSeriesMemory in
// internal/runner): B/op is what the write allocates, file-MB the file's size.
func BenchmarkWriteIntervals(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	ops := []string{"requests"}
	for i := range 10 {
		ops = append(ops, "op"+strconv.Itoa(i))
	}
	var metrics []string
	for i := range 52 {
		metrics = append(metrics, "m"+strconv.Itoa(i))
	}
	list := randomIntervals(rng, t0, 3600, ops, nil, metrics)
	r := &Run{Configs: []Config{{Name: "innodb", Steps: []Step{{Name: "run.1", StartedAt: t0, Intervals: NewSeries(list...)}}}}}
	d, err := CreateDir(filepath.Join(b.TempDir(), "run"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := d.WriteIntervals(r); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(filepath.Join(d.Path(), "intervals.csv"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
}
