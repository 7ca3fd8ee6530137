package merge

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

var t0 = time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC)

const seconds = 5

// fakeShard is a shard's run directory made by hand, its logs written by hdrhistogram-go
// itself; the library's histograms of its seconds are kept to compare with.
type fakeShard struct {
	dir  string
	run  *result.Run
	libs map[string][]*hdrhistogram.Histogram // by "op/tag", per second
}

func newLib() *hdrhistogram.Histogram {
	return hdrhistogram.New(measure.LowestNs, measure.HighestNs, measure.SigFigs)
}

// writeShard writes shard i of 2 of run "u": one step, qr100, of 5 seconds from start, with
// random latencies of queries (service time) and inserts (service and response time), its
// ticks late by lag.
func writeShard(t *testing.T, i int, start time.Time, lag time.Duration, verifyOK bool) *fakeShard {
	t.Helper()
	fs := &fakeShard{dir: filepath.Join(t.TempDir(), "shard"), libs: map[string][]*hdrhistogram.Histogram{}}
	dir, err := result.CreateDir(fs.dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(i), 9))
	st := result.Step{Name: "qr100", Status: result.StatusOK, StartedAt: start, Seconds: seconds, Clients: 2, Primary: "query",
		Ops: map[string]*result.Op{}, Intervals: &result.Series{},
		Target:   &result.Target{InsertsPerSec: 200, AchievedInsertsPerSec: 190 + float64(i)},
		Fairness: &result.Fairness{MinSeconds: 4.9 - float64(i)/10, MaxSeconds: 5},
		Verify:   &result.Verify{OK: verifyOK, Detail: "pi" + string(rune('1'+i)) + " ok"},
		Usage:    map[string]float64{measure.KeyClientCPU: 1.5 + float64(i)}}
	for s := range seconds {
		st.Intervals.Append(s+1, start.Add(time.Duration(s+1)*time.Second+lag))
	}
	for _, op := range []string{"query", "insert"} {
		tags := []string{""}
		if op == "insert" {
			tags = append(tags, hdrlog.TagResponse)
		}
		o := &result.Op{}
		st.Ops[op] = o
		f, err := os.Create(hdrlog.Path(filepath.Join(fs.dir, hdrlog.DirName), "pg", "qr100", op))
		if errors.Is(err, os.ErrNotExist) {
			os.MkdirAll(filepath.Join(fs.dir, hdrlog.DirName, "pg", "qr100"), 0o755)
			f, err = os.Create(hdrlog.Path(filepath.Join(fs.dir, hdrlog.DirName), "pg", "qr100", op))
		}
		if err != nil {
			t.Fatal(err)
		}
		lw := hdrhistogram.NewHistogramLogWriter(f)
		lw.OutputLogFormatVersion()
		lw.OutputStartTime(start.UnixMilli())
		lw.OutputLegend()
		for s := range seconds {
			iv := result.IntervalOp{}
			n := 100 + rng.IntN(900) // operations: each has a service and maybe a response time
			for _, tag := range tags {
				h := newLib()
				var maxNs, sum int64
				for range n {
					v := int64(rng.ExpFloat64()*float64(2*time.Millisecond)) + 1000
					if tag != "" {
						v += int64(rng.IntN(1e6))
					}
					h.RecordValue(v)
					maxNs, sum = max(maxNs, v), sum+v
				}
				h.SetTag(tag)
				h.SetStartTimeMs(st.Intervals.Time(s).Add(-time.Second).UnixMilli())
				h.SetEndTimeMs(st.Intervals.Time(s).UnixMilli())
				if err := lw.OutputIntervalHistogram(h); err != nil {
					t.Fatal(err)
				}
				fs.libs[op+"/"+tag] = append(fs.libs[op+"/"+tag], h)
				l := &o.Latency
				if tag != "" {
					if o.Response == nil {
						o.Response = &result.Latency{}
					}
					l = o.Response
					iv.RtMax = max(iv.RtMax, measure.Us(maxNs))
				} else {
					o.Count += int64(n)
					o.Units += int64(n)
					iv.Count, iv.Units, iv.Max = int64(n), int64(n), measure.Us(maxNs)
				}
				l.Max = max(l.Max, measure.Us(maxNs))
				l.Mean += float64(sum) / 1e3 // divided by the count below
			}
			st.Intervals.SetOp(s, op, iv)
		}
		f.Close()
		o.Latency.Mean /= float64(o.Count)
		if o.Response != nil {
			o.Response.Mean /= float64(o.Count)
		}
		o.PerSec = float64(o.Units) / seconds
	}
	fs.run = &result.Run{RunID: "u-shard", Status: result.StatusOK, StartedAt: start,
		Shard:    &result.Shard{Index: i, Count: 2, Run: "u", Clients: []int{i, i + 2}},
		Workload: result.Workload{Name: "insert", Scale: "tiny", Params: map[string]any{"clients": 4}},
		Configs:  []result.Config{{Name: "pg", Engine: "postgres", Status: result.StatusOK, Steps: []result.Step{st}}}}
	if err := dir.WriteRun(fs.run); err != nil {
		t.Fatal(err)
	}
	if err := dir.WriteIntervals(fs.run); err != nil {
		t.Fatal(err)
	}
	return fs
}

// writeSample writes an enginebench sample directory of the database host: a row per second
// from before start to after its end, cpu_s 0.5 and reads 10 each, dbgb1 growing.
func writeSample(t *testing.T, start time.Time) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sample")
	os.MkdirAll(dir, 0o755)
	meta := `{"kind":"enginebench-sample","version":1,"host":{"hostname":"dbhost","cpus":48},"data_dir":"/db","device":"nvme0n1",` +
		`"started":"2026-11-24T14:59:00Z","ended":"2026-11-24T15:01:00Z"}`
	if err := os.WriteFile(filepath.Join(dir, "sample.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("time_unix_ms,cpu_s,reads,write_kb,dbgb1\n")
	for s := -3; s <= seconds+3; s++ {
		at := start.Add(time.Duration(s) * time.Second)
		b.WriteString(strings.Join([]string{itoa(at.UnixMilli()), "0.5", "10", "", ftoa(1 + float64(s)/100)}, ",") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The merge of two shards whose logs hdrhistogram-go wrote: percentiles of the library's own
// merge (capped at the exact maximum), counts and rates summed per wall-clock second though
// the shards' ticks differ by milliseconds, fairness over both shards' clients, the SLA over
// the summed targets, a shard's failed verification, the database host's costs from the
// sample and the clients' CPU summed; the merged logs read back by the library give its merge.
func TestMergeShardsLoggedByTheLibrary(t *testing.T) {
	a := writeShard(t, 0, t0, 2*time.Millisecond, true)
	b := writeShard(t, 1, t0.Add(3*time.Millisecond), 7*time.Millisecond, false)
	shards, err := Load([]string{b.dir, a.dir})
	if err != nil {
		t.Fatal(err)
	}
	smp, err := LoadSample(writeSample(t, t0))
	if err != nil {
		t.Fatal(err)
	}
	out, err := result.CreateDir(filepath.Join(t.TempDir(), "merged"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(shards, out, smp, []string{"enginebench", "merge"}, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged == nil || m.Merged.Run != "u" || m.Merged.Shards[0] != a.dir || m.Host.Hostname != "dbhost" || m.RunID != "u" {
		t.Errorf("merged run: %+v, host %+v", m.Merged, m.Host)
	}
	st := &m.Configs[0].Steps[0]
	for _, key := range []string{"query/", "insert/", "insert/rt"} {
		op, tag, _ := strings.Cut(key, "/")
		lib := newLib()
		for _, s := range [][]*hdrhistogram.Histogram{a.libs[key], b.libs[key]} {
			for _, h := range s {
				lib.Merge(h)
			}
		}
		o := st.Ops[op]
		l := o.Latency
		if tag != "" {
			l = *o.Response
		}
		maxNs := int64(max(a.run.Configs[0].Steps[0].Ops[op].Latency.Max, b.run.Configs[0].Steps[0].Ops[op].Latency.Max) * 1e3)
		if tag != "" {
			maxNs = int64(max(a.run.Configs[0].Steps[0].Ops[op].Response.Max, b.run.Configs[0].Steps[0].Ops[op].Response.Max) * 1e3)
		}
		if o.Count != lib.TotalCount() || l.Max != measure.Us(maxNs) {
			t.Errorf("%s: count %d max %v; the library merged %d, max %d ns", key, o.Count, l.Max, lib.TotalCount(), maxNs)
		}
		for _, c := range []struct{ p, got float64 }{{50, l.P50}, {90, l.P90}, {99, l.P99}, {99.9, l.P999}} {
			if want := measure.Us(min(lib.ValueAtPercentile(c.p), maxNs)); c.got != want {
				t.Errorf("%s p%v: merged %vus, the library's merge %vus", key, c.p, c.got, want)
			}
		}
		checkQuartiles(t, key, l, lib, maxNs)
		checkMergedLog(t, out.Path(), op, tag, lib)
	}
	checkSeconds(t, st, a, b)
	if ins := st.Ops["insert"].PerSec; st.Target == nil || st.Target.InsertsPerSec != 400 || st.Target.AchievedInsertsPerSec != ins || !st.Target.SLAMet {
		t.Errorf("target %+v: want 400 aimed at, the merged %v inserts a second achieved, met", st.Target, ins)
	}
	if f := st.Fairness; f == nil || math.Abs(f.MinSeconds-4.803) > 1e-9 || math.Abs(f.MaxSeconds-5.003) > 1e-9 {
		t.Errorf("fairness %+v: want from 4.803 s (shard 1, which started 3 ms later) to 5.003 s", f)
	}
	if v := st.Verify; v == nil || v.OK || !strings.HasPrefix(v.Detail, "shard 1: FAILED: pi2 ok; shard 0: pi1 ok") {
		t.Errorf("verify %+v", v)
	}
	checkUsage(t, st)
}

// checkQuartiles checks a merged latency's p25 and p75 (the report's box): those of one
// histogram of all the shards' values, lib.
func checkQuartiles(t *testing.T, key string, l result.Latency, lib *hdrhistogram.Histogram, maxNs int64) {
	t.Helper()
	if l.P25 == nil || l.P75 == nil {
		t.Errorf("%s: merged without p25 and p75", key)
		return
	}
	for _, c := range []struct{ p, got float64 }{{25, *l.P25}, {75, *l.P75}} {
		if want := measure.Us(min(lib.ValueAtPercentile(c.p), maxNs)); c.got != want {
			t.Errorf("%s p%v: merged %vus, one histogram of all values %vus", key, c.p, c.got, want)
		}
	}
}

// checkMergedLog reads the merged log of op with hdrhistogram-go's reader: its lines of tag
// hold the values of lib.
func checkMergedLog(t *testing.T, root, op, tag string, lib *hdrhistogram.Histogram) {
	t.Helper()
	f, err := os.Open(hdrlog.Path(filepath.Join(root, hdrlog.DirName), "pg", "qr100", op))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdrhistogram.NewHistogramLogReader(f)
	got := newLib()
	lines := 0
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if h.Tag() == tag {
			got.Merge(h)
			lines++
		}
	}
	if lines != seconds || got.TotalCount() != lib.TotalCount() || got.ValueAtPercentile(99) != lib.ValueAtPercentile(99) {
		t.Errorf("merged log of %s tag %q: %d lines, %d values, p99 %d; the library's merge %d values, p99 %d", op, tag, lines,
			got.TotalCount(), got.ValueAtPercentile(99), lib.TotalCount(), lib.ValueAtPercentile(99))
	}
}

// checkSeconds checks the merged per-second series: a second per second of the shards, each
// with their counts summed and their maxima's maximum.
func checkSeconds(t *testing.T, st *result.Step, a, b *fakeShard) {
	t.Helper()
	ivs := st.Intervals
	if ivs.Len() != seconds {
		t.Fatalf("%d merged seconds, want %d", ivs.Len(), seconds)
	}
	sa, sb := a.run.Configs[0].Steps[0].Intervals, b.run.Configs[0].Steps[0].Intervals
	for i := range seconds {
		for _, op := range []string{"query", "insert"} {
			got, _ := ivs.Op(i, op)
			x, _ := sa.Op(i, op)
			y, _ := sb.Op(i, op)
			if got.Count != x.Count+y.Count || got.Max != max(x.Max, y.Max) || got.RtMax != max(x.RtMax, y.RtMax) || got.P99 > got.Max || got.P99 == 0 {
				t.Errorf("second %d %s: %+v; shards %+v and %+v", i+1, op, got, x, y)
			}
		}
		if ivs.Second(i) != i+1 {
			t.Errorf("interval %d is second %d", i, ivs.Second(i))
		}
	}
}

// checkUsage checks the merged step's costs: the sample's 5 seconds of the step (ends in
// (start, end]), the clients' CPU summed.
func checkUsage(t *testing.T, st *result.Step) {
	t.Helper()
	u := st.Usage
	if u[measure.KeyCPU] != 2.5 || u[measure.KeyReads] != 50 || u[measure.KeyClientCPU] != 4 || u[measure.KeyDBGB1] != 1.05 {
		t.Errorf("usage %v: want cpu_s 2.5, reads 50, client_cpu_s 4 (1.5 + 2.5), dbgb1 1.05", u)
	}
	if _, ok := u[measure.KeyWriteKB]; ok {
		t.Errorf("write_kb was not sampled, yet usage has it: %v", u)
	}
	q := st.Ops["query"].Units
	if e := st.Efficiency; e == nil || e.CPUpq == nil || *e.CPUpq != 2.5e6/float64(q) {
		t.Errorf("efficiency %+v: want cpupq 2.5 s/%d queries in us", e, q)
	}
	if st.Size == nil || st.Size.DBGB1 == nil || *st.Size.DBGB1 != 1.05 {
		t.Errorf("size %+v", st.Size)
	}
	if st.Resources != nil && st.Resources.ClientCPUPct != nil {
		t.Errorf("client CPU %% of the database host's CPUs: %v", *st.Resources.ClientCPUPct)
	}
	if v, ok := st.Intervals.Metric(0, measure.KeyCPU); !ok || v != 0.5 {
		t.Errorf("the first second's cpu_s: %v %v", v, ok)
	}
}

// Without a sample the merged run has no server-side costs, only the clients' CPU.
func TestMergeWithoutSampleHasNoServerCosts(t *testing.T) {
	shards, err := Load([]string{writeShard(t, 0, t0, 0, true).dir, writeShard(t, 1, t0, 0, true).dir})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := result.CreateDir(filepath.Join(t.TempDir(), "merged"))
	m, err := Merge(shards, out, nil, nil, rulesOf(shards))
	if err != nil {
		t.Fatal(err)
	}
	st := &m.Configs[0].Steps[0]
	if len(st.Usage) != 1 || st.Usage[measure.KeyClientCPU] != 4 || st.Size != nil || st.Resources != nil {
		t.Errorf("usage %v, size %+v, resources %+v: want only client_cpu_s 4", st.Usage, st.Size, st.Resources)
	}
	if e := st.Efficiency; e == nil || e.CPUpq != nil || e.ClientCPUpq == nil {
		t.Errorf("efficiency %+v: want client CPU per query only", e)
	}
	if !st.Verify.OK {
		t.Errorf("verify %+v", st.Verify)
	}
}

// Bad input is refused before any work, with one line saying what is wrong.
func TestLoadBadInput(t *testing.T) {
	a, b := writeShard(t, 0, t0, 0, true), writeShard(t, 1, t0, 0, true)
	edit := func(s *fakeShard, f func(r *result.Run)) string {
		r, err := result.LoadDir(s.dir)
		if err != nil {
			t.Fatal(err)
		}
		f(r)
		dir := filepath.Join(t.TempDir(), "edited")
		os.CopyFS(dir, os.DirFS(s.dir))
		if err := result.OpenDir(dir).WriteRun(r); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	notShard := edit(a, func(r *result.Run) { r.Shard = nil })
	otherRun := edit(b, func(r *result.Run) { r.Shard.Run = "v" })
	otherParams := edit(b, func(r *result.Run) { r.Workload.Params["clients"] = 6 })
	noLogs := edit(b, func(r *result.Run) {})
	os.RemoveAll(filepath.Join(noLogs, hdrlog.DirName))
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{a.dir, filepath.Join(t.TempDir(), "none")}, "is not a run directory (no run.json)"},
		{[]string{notShard, b.dir}, notShard + " is not a shard's run"},
		{[]string{a.dir, otherRun}, `shards of different runs: ` + a.dir + ` is of run "u", ` + otherRun + ` of run "v"`},
		{[]string{a.dir}, `run "u" has 2 shards: shard 1 missing`},
		{[]string{a.dir, b.dir, a.dir}, `shard 0 of run "u" given twice: ` + a.dir + ` and ` + a.dir},
		{[]string{a.dir, otherParams}, "unlike params: " + a.dir + " has param clients 4, " + otherParams + " has 6"},
		{[]string{a.dir, noLogs}, noLogs + ": no latency log"},
	} {
		_, err := Load(tc.dirs)
		var ie *badinput.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%v): %v, want an InputError with %q", tc.dirs, err, tc.want)
		}
	}
	if _, err := LoadSample(a.dir); err == nil || !strings.Contains(err.Error(), "is not an enginebench sample directory") {
		t.Errorf("LoadSample of a run directory: %v", err)
	}
}

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
