package merge

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// rewrite sets the workload of shard s's run and lets edit change its step, and writes its
// run.json again.
func rewrite(t *testing.T, s *fakeShard, name string, params map[string]any, edit func(st *result.Step)) {
	t.Helper()
	s.run.Workload = result.Workload{Name: name, Scale: "tiny", Params: params}
	edit(&s.run.Configs[0].Steps[0])
	if err := result.OpenDir(s.dir).WriteRun(s.run); err != nil {
		t.Fatal(err)
	}
}

// mergeShards merges the shards a and b and returns the merged step.
func mergeShards(t *testing.T, a, b *fakeShard) *result.Step {
	t.Helper()
	shards, err := Load([]string{a.dir, b.dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := result.CreateDir(filepath.Join(t.TempDir(), "merged"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(shards, out, nil, nil, rulesOf(shards))
	if err != nil {
		t.Fatal(err)
	}
	return &m.Configs[0].Steps[0]
}

// iiShards writes two iiBench shards of the 5-second step whose periods are report seconds
// long (as the runner cuts them: ends, in seconds from the start) with rows 100 times the
// period's number plus the shard's, and a cost at 3.6 an hour; shard 1's ticks are 7 ms late.
func iiShards(t *testing.T, report float64, ends []float64, detail [2]string) (a, b *fakeShard) {
	a, b = writeShard(t, 0, t0, 2*time.Millisecond, true), writeShard(t, 1, t0.Add(3*time.Millisecond), 7*time.Millisecond, true)
	for i, s := range []*fakeShard{a, b} {
		rewrite(t, s, "iibench", map[string]any{"report_seconds": report}, func(st *result.Step) {
			for k, e := range ends {
				st.Periods = append(st.Periods, result.Period{End: e, Rows: int64(100*(k+1) + i)})
			}
			st.Cost = &result.Cost{PerHour: 3.6, Run: 1}
			st.Verify.Detail = detail[i]
		})
	}
	return a, b
}

// The merged iiBench step's periods are cut from the merged seconds as the runner cuts a
// step's: their counts are the seconds' summed, their latencies the library's merge of both
// shards' seconds in the period (capped at its exact maximum), since the start too, their rows
// every shard's at the period's end; a last period shorter than half the length joins the one
// before. The cost is the merged step's.
func TestMergeIIBenchPeriods(t *testing.T) {
	for _, tc := range []struct {
		report float64
		ends   []float64
		want   [][2]int // each period's first and last second
	}{
		{2, []float64{2, 4, 5}, [][2]int{{1, 2}, {3, 4}, {5, 5}}},
		{4, []float64{5}, [][2]int{{1, 5}}},
	} {
		a, b := iiShards(t, tc.report, tc.ends, [2]string{"6000 rows ok", "6000 rows ok"})
		st := mergeShards(t, a, b)
		if len(st.Periods) != len(tc.want) {
			t.Fatalf("report %v: %d periods %+v, want %d", tc.report, len(st.Periods), st.Periods, len(tc.want))
		}
		var cum int64
		for k, w := range tc.want {
			p := st.Periods[k]
			if end := float64(w[1]); math.Abs(p.End-end) > 0.02 || math.Abs(p.Seconds-float64(w[1]-w[0]+1)) > 0.02 {
				t.Errorf("report %v period %d: ends at %v after %v s, want seconds %v", tc.report, k, p.End, p.Seconds, w)
			}
			if want := int64(100*(k+1))*2 + 1; k == len(tc.want)-1 && p.Rows != int64(100*len(tc.ends))*2+1 || k < len(tc.want)-1 && p.Rows != want {
				t.Errorf("report %v period %d: %d rows", tc.report, k, p.Rows)
			}
			for _, op := range []string{"query", "insert"} {
				lib, cumLib := newLib(), newLib()
				var maxUs, cumMax float64
				var units int64
				for s := 1; s <= w[1]; s++ {
					for _, f := range []*fakeShard{a, b} {
						h := f.libs[op+"/"][s-1]
						o, _ := f.run.Configs[0].Steps[0].Intervals.Op(s-1, op)
						cumLib.Merge(h)
						cumMax = max(cumMax, o.Max)
						if s >= w[0] {
							lib.Merge(h)
							maxUs = max(maxUs, o.Max)
							units += o.Units
						}
					}
				}
				cum += units
				po := p.Ops[op]
				if po.Units != units || po.Count != units || po.CumUnits != cumLib.TotalCount() {
					t.Errorf("report %v period %d %s: units %d count %d cum %d; want %d, cum %d", tc.report, k, op, po.Units, po.Count, po.CumUnits, units, cumLib.TotalCount())
				}
				checkPeriodLatency(t, po.Latency, lib, maxUs)
				checkPeriodLatency(t, po.CumLatency, cumLib, cumMax)
			}
		}
		if c := st.Cost; c == nil || c.PerHour != 3.6 || c.Run != st.Seconds/1000 || c.PerBillionInserts == nil ||
			math.Abs(*c.PerBillionInserts-1e9/st.Ops["insert"].PerSec/1000) > 1e-6 {
			t.Errorf("cost %+v: want 3.6 an hour over %v s at %v inserts/s", c, st.Seconds, st.Ops["insert"].PerSec)
		}
		if v := st.Verify; v == nil || !v.OK || v.Detail != "6000 rows ok" {
			t.Errorf("verification %+v: want the shards' one detail, once", v)
		}
	}
}

// checkPeriodLatency checks a period's latency l against the library's merge lib of its
// seconds, whose exact maximum is maxUs.
func checkPeriodLatency(t *testing.T, l result.Latency, lib *hdrhistogram.Histogram, maxUs float64) {
	t.Helper()
	if l.Max != maxUs || l.Buckets != nil {
		t.Errorf("max %v, want %v; buckets %v", l.Max, maxUs, l.Buckets)
	}
	for _, c := range []struct{ p, got float64 }{{50, l.P50}, {99, l.P99}, {99.9, l.P999}} {
		if want := min(measure.Us(lib.ValueAtPercentile(c.p)), maxUs); c.got != want {
			t.Errorf("p%v: %v, the library's merge %v", c.p, c.got, want)
		}
	}
}

// A step without periods, or whose shards had none, has none merged, nor a cost without one.
func TestMergeWithoutPeriods(t *testing.T) {
	a, b := writeShard(t, 0, t0, 0, true), writeShard(t, 1, t0, 0, true)
	rewrite(t, a, "iibench", map[string]any{"report_seconds": 2.0}, func(*result.Step) {})
	rewrite(t, b, "iibench", map[string]any{"report_seconds": 2.0}, func(*result.Step) {})
	if st := mergeShards(t, a, b); st.Periods != nil || st.Cost != nil {
		t.Errorf("periods %+v, cost %+v: want none", st.Periods, st.Cost)
	}
}

// The verification of iiBench's shards that differ (one failed, or their details differ) lists
// each shard's; LinkBench's sums what each shard checked of its part and lists each shard's
// detail after the sums.
func TestMergeVerificationByWorkload(t *testing.T) {
	a, b := iiShards(t, 2, []float64{2, 4, 5}, [2]string{"6000 rows ok", "5999 rows ok"})
	if v := mergeShards(t, a, b).Verify; !v.OK || v.Detail != "shard 0: 6000 rows ok; shard 1: 5999 rows ok" {
		t.Errorf("iiBench shards with unlike details: %+v", v)
	}
	a, b = iiShards(t, 2, []float64{2, 4, 5}, [2]string{"6000 rows ok", "6000 rows ok"})
	b.run.Configs[0].Steps[0].Verify.OK = false
	if err := result.OpenDir(b.dir).WriteRun(b.run); err != nil {
		t.Fatal(err)
	}
	if v := mergeShards(t, a, b).Verify; v.OK || v.Detail != "shard 1: FAILED: 6000 rows ok; shard 0: 6000 rows ok" {
		t.Errorf("an iiBench shard failed: %+v", v)
	}
	a, b = writeShard(t, 0, t0, 0, true), writeShard(t, 1, t0, 0, true)
	for i, s := range []*fakeShard{a, b} {
		rewrite(t, s, "linkbench", map[string]any{"loaders": 2.0}, func(st *result.Step) {
			st.Verify.Checked = map[string]int64{"links": 100 + int64(i), "counts": 10, "nodes": 7}
		})
	}
	v := mergeShards(t, a, b).Verify
	if !v.OK || v.Checked["links"] != 201 || v.Checked["counts"] != 20 || v.Checked["nodes"] != 14 ||
		!strings.HasPrefix(v.Detail, "checked by the 2 shards together: 20 counts, 201 links, 14 nodes; shard 0: pi1 ok; shard 1: pi2 ok") {
		t.Errorf("LinkBench shards: %+v", v)
	}
}

// The SLA is judged over the summed targets with the merged step's rate: every shard's inserts
// over the merged step's time, not the shards' own rates summed (a shard that ended early had
// a higher one).
func TestMergeSLAOverMergedRate(t *testing.T) {
	a, b := writeShard(t, 0, t0, 0, true), writeShard(t, 1, t0, 0, true)
	rewrite(t, a, "iibench", nil, func(st *result.Step) {
		st.Target = &result.Target{InsertsPerSec: 1000, AchievedInsertsPerSec: 5000}
	})
	rewrite(t, b, "iibench", nil, func(st *result.Step) {
		st.Target = &result.Target{InsertsPerSec: 1000, AchievedInsertsPerSec: 5000}
	})
	st := mergeShards(t, a, b)
	ins := st.Ops["insert"].PerSec
	if tg := st.Target; tg == nil || tg.InsertsPerSec != 2000 || tg.AchievedInsertsPerSec != ins || tg.SLAMet != (ins >= 1900) || tg.DeletesPerSec != 0 {
		t.Errorf("target %+v: want 2000 aimed at, %v achieved", tg, ins)
	}
}

// rulesOf returns the merge rules the registry gives the shards' workload (the registry
// imports this package, so the test names them itself).
func rulesOf(shards []Shard) Rules {
	return Rules{WholeVerify: shards[0].Run.Workload.Name == "iibench"}
}
