package main

import (
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
)

// mergeAndReport merges the shards' directories outs, checks that the report reads the merged
// run, and returns it and its directory.
func mergeAndReport(t *testing.T, outs []string) (*result.Run, string) {
	t.Helper()
	merged := filepath.Join(t.TempDir(), "merged")
	runOK(t, append(append([]string{"merge"}, outs...), "--out", merged)...)
	runOK(t, "report", merged, "--out", filepath.Join(t.TempDir(), "r.html"))
	m := loadRun(t, merged)
	if m.Status != result.StatusOK || m.Merged == nil || m.Merged.Count != 2 || len(m.Configs) != 1 {
		t.Fatalf("merged run %s (%s), merged %+v", m.Status, m.Error, m.Merged)
	}
	return m, merged
}

// iiMergeArgs are the arguments of the iiBench runs merged: 2 insert and 2 query threads, a
// fixed row count inserted at 2000 rows a second (3 s: 3 periods of a second), and a
// machine price.
func iiMergeArgs(t *testing.T, srv *server.Server, extra ...string) ([]string, string) {
	return iiShardArgs(t, "postgres", srv, append([]string{"--report-seconds", "1", "--cost-per-hour", "3.6", "--max-insert-rate", "2000"}, extra...)...)
}

// iiBench run as 2 shard processes against one PostgreSQL and merged gives the inserts, the
// verification (once, word for word) and the histogram counts of the inserts of one process
// running all the threads; its periods are the merged seconds', their inserts adding up to
// the run's, its rows at the end every shard's; its target is one process's, its cost the
// merged run's; the report reads it.
func TestMergeIIBenchMatchesOneProcess(t *testing.T) {
	integration(t, "starts a server and runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	outs := runShards(t, "mii", func(shard string) ([]string, string) { return iiMergeArgs(t, srv, "--shard", shard) })
	m, merged := mergeAndReport(t, outs)
	args, whole := iiMergeArgs(t, srv)
	runOK(t, args...)
	a, w := &m.Configs[0].Steps[0], &loadRun(t, whole).Configs[0].Steps[0]
	if a.Name != "run" || a.Status != result.StatusOK || a.Clients != w.Clients {
		t.Fatalf("merged step %s %s, %d clients; one process %s, %d", a.Name, a.Status, a.Clients, w.Name, w.Clients)
	}
	compareOp(t, a, "insert", w.Ops["insert"], merged, whole)
	if a.Verify == nil || w.Verify == nil || a.Verify.OK != w.Verify.OK || a.Verify.Detail != w.Verify.Detail || !a.Verify.OK {
		t.Errorf("verification: merged %+v, one process %+v", a.Verify, w.Verify)
	}
	var q int64
	for _, out := range outs {
		q += loadRun(t, out).Configs[0].Steps[0].Ops["query"].Count
	}
	if a.Ops["query"].Count != q {
		t.Errorf("merged queries %d, the shards' %d", a.Ops["query"].Count, q)
	}
	checkPeriods(t, a, 6000)
	if len(a.Periods) < 2 {
		t.Errorf("%d periods in %v s", len(a.Periods), a.Seconds)
	}
	if a.Target == nil || w.Target == nil || a.Target.InsertsPerSec != w.Target.InsertsPerSec || a.Target.InsertsPerSec != 2000 {
		t.Errorf("target: merged %+v, one process %+v", a.Target, w.Target)
	}
	if c := a.Cost; c == nil || c.PerHour != 3.6 || math.Abs(c.Run-a.Seconds/1000) > 1e-12 || c.PerBillionInserts == nil {
		t.Errorf("cost %+v: want 3.6 an hour over the merged %v s", c, a.Seconds)
	}
}

// checkPeriods checks the merged periods of iiBench's step st: contiguous, each op's units
// the sum of its merged seconds', cumulative units adding up to the step's, the rows of the
// last one rows, latencies within the step's maximum.
func checkPeriods(t *testing.T, st *result.Step, rows int64) {
	t.Helper()
	ps := st.Periods
	if len(ps) == 0 {
		t.Fatalf("no periods")
	}
	var end float64
	units := map[string]int64{}
	for i, p := range ps {
		if math.Abs(p.End-p.Seconds-end) > 1e-6 || p.Seconds <= 0 {
			t.Errorf("period %d: ends at %v after %v s; the one before ended at %v", i, p.End, p.Seconds, end)
		}
		end = p.End
		for name, o := range p.Ops {
			units[name] += o.Units
			if o.CumUnits != units[name] {
				t.Errorf("period %d %s: cum units %d, the periods' sum %d", i, name, o.CumUnits, units[name])
			}
			if o.Units > 0 && (o.Latency.P99 <= 0 || o.Latency.P99 > o.Latency.Max || o.Latency.Max > st.Ops[name].Latency.Max) {
				t.Errorf("period %d %s: latency %+v, the step's max %v", i, name, o.Latency, st.Ops[name].Latency.Max)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st.Ops)) {
		if units[name] != st.Ops[name].Units {
			t.Errorf("%s: the periods have %d units, the step %d", name, units[name], st.Ops[name].Units)
		}
	}
	if last := ps[len(ps)-1]; last.Rows != rows || math.Abs(last.End-st.Seconds) > 0.5 {
		t.Errorf("the last period: %d rows at %v s; want %d at the step's end, %v s (within the last tick)", last.Rows, last.End, rows, st.Seconds)
	}
}

// LinkBench run as 2 shard processes against one PostgreSQL and merged: the load gives the
// rows of each kind of one process loading it all (and the histogram counts of its counts and
// nodes; the links' batches are cut by the chunks each loader takes), a verification
// ok whose checked links, counts and nodes are one process's; with a request phase limited
// by --requests, every operation's count and histogram count are one process's (each
// requester's choices are seeded by its index). The report reads both merged runs.
func TestMergeLinkBenchMatchesOneProcess(t *testing.T) {
	integration(t, "starts a server and runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	for _, steps := range []string{"load", "load,run"} {
		id := "mlb-" + strings.ReplaceAll(steps, ",", "-")
		outs := runShards(t, id, func(shard string) ([]string, string) {
			return lbShardArgs(t, "postgres", srv, steps, "--shard", shard)
		})
		m, merged := mergeAndReport(t, outs)
		args, whole := lbShardArgs(t, "postgres", srv, steps)
		runOK(t, args...)
		compareLinkBench(t, m, loadRun(t, whole), merged, whole)
	}
}

// compareLinkBench compares the merged LinkBench run m (in mergedDir) with the run of one
// process w (in wholeDir), step by step.
func compareLinkBench(t *testing.T, m, w *result.Run, mergedDir, wholeDir string) {
	t.Helper()
	ms, ws := m.Configs[0].Steps, w.Configs[0].Steps
	if names := func(s []result.Step) string {
		var n []string
		for _, st := range s {
			n = append(n, st.Name+" "+st.Status)
		}
		return strings.Join(n, ", ")
	}; names(ms) != names(ws) {
		t.Fatalf("merged steps %s; one process %s", names(ms), names(ws))
	}
	for i := range ms {
		a, b := &ms[i], &ws[i]
		for name, wo := range b.Ops {
			switch {
			case a.Name == "warmup":
				continue // as many requests as its time allowed
			case a.Name == "load" && name == "link":
				compareLinks(t, a.Ops[name], wo, mergedDir)
			default:
				compareOp(t, a, name, wo, mergedDir, wholeDir)
			}
		}
		if (a.Verify == nil) != (b.Verify == nil) {
			t.Errorf("%s: verification merged %+v, one process %+v", a.Name, a.Verify, b.Verify)
			continue
		}
		if v := a.Verify; v != nil && (!v.OK || !maps.Equal(v.Checked, b.Verify.Checked) || v.Checked["links"] == 0 ||
			!strings.Contains(v.Detail, "shard 0: ") || !strings.Contains(v.Detail, "shard 1: ")) {
			t.Errorf("%s: verification merged %+v; one process checked %v", a.Name, v, b.Verify.Checked)
		}
	}
}

// compareLinks compares the merged load's links mo with one process's wo: the same rows, and
// as many latencies in the merged log as the shards' batches (a loader's batches are cut by
// the chunks it takes, which differ from one process's).
func compareLinks(t *testing.T, mo, wo *result.Op, mergedDir string) {
	t.Helper()
	if mo == nil || mo.Units != wo.Units || mo.Errors != wo.Errors || mo.Units == 0 {
		t.Errorf("load link: merged %+v; one process %d rows, %d errors", mo, wo.Units, wo.Errors)
		return
	}
	if c := logCount(t, mergedDir, "load", "link"); c[""] != mo.Count {
		t.Errorf("load link: the merged log has %v latencies, the merged run %d batches", c, mo.Count)
	}
}
