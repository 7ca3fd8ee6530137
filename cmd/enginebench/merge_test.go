package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// mergeArgs are the arguments of a small Insert Benchmark of 2 clients on the existing
// PostgreSQL srv, with a query step whose writers' rows are fixed (the reference variant),
// with extra, and its results directory.
func mergeArgs(t *testing.T, srv *server.Server, extra ...string) ([]string, string) {
	return tinyArgsOn(t, "postgres", srv, append([]string{"--clients", "2", "--rows", "2000", "--rows-l.i1", "500",
		"--steps", "l.i0,l.x,l.i1,qr100,cleanup", "--query-seconds", "2", "--keep", "--no-calibrate"}, extra...)...)
}

// logCount returns the values of the log of op of step in run directory dir (of one
// configuration), by tag.
func logCount(t *testing.T, dir, step, op string) map[string]int64 {
	t.Helper()
	f, err := os.Open(hdrlog.Path(filepath.Join(dir, hdrlog.DirName), loadRun(t, dir).Configs[0].Name, step, op))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	r := hdrlog.NewReader(f)
	for {
		iv, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[iv.Tag] += iv.Hist.Count()
	}
}

// The Insert Benchmark run as 2 shard processes against one PostgreSQL and merged gives the
// rows, the verification and, for every operation whose work is fixed, the counts and the
// histograms' counts of one process running both clients; the merged run's percentiles are
// its merged logs'.
func TestMergeMatchesOneProcess(t *testing.T) {
	integration(t, "starts a server and runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	db := onServer(t, "postgres", srv)
	bin := buildBinary(t)
	// The database host's sampler runs beside the server from before the shards start until
	// after they end.
	sampleDir := filepath.Join(t.TempDir(), "sample")
	sampler := startBinary(t, bin, "sample", "--pid", strconv.Itoa(srv.PID()), "--data-dir", srv.DataDir(), "--out", sampleDir)
	sampler.waitFor(t, "the sampler's first row", func() bool { return len(readSamples(t, sampleDir, false)) > 0 })
	outs := runShards(t, "m", func(shard string) ([]string, string) { return mergeArgs(t, srv, "--shard", shard) })
	if err := sampler.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, sampler); code != 0 {
		t.Fatalf("sample: exit %d; stderr:\n%s", code, sampler.stderr.String())
	}
	merged := filepath.Join(t.TempDir(), "merged")
	stdout, _ := runOK(t, "merge", outs[1], outs[0], "--out", merged)
	if !strings.Contains(stdout, "results: "+merged) {
		t.Errorf("stdout: %s", stdout)
	}
	withSample := filepath.Join(t.TempDir(), "merged-sample")
	runOK(t, "merge", outs[0], outs[1], "--sample", sampleDir, "--out", withSample)
	checkSampleJoined(t, merged, withSample)
	sharded := []string{digest(t, "postgres", db, "pi1"), digest(t, "postgres", db, "pi2")}
	for _, tb := range []string{"pi1", "pi2"} {
		if _, err := db.Exec("DROP TABLE " + tb); err != nil {
			t.Fatal(err)
		}
	}
	args, whole := mergeArgs(t, srv)
	runOK(t, args...)
	if one := []string{digest(t, "postgres", db, "pi1"), digest(t, "postgres", db, "pi2")}; !slices.Equal(sharded, one) {
		t.Errorf("rows: two shards made %v; one process %v", sharded, one)
	}
	m, err := result.LoadDir(merged)
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged == nil || m.Merged.Run != "m" || m.Merged.Count != 2 || !slices.Equal(m.Merged.Shards, outs) || m.Shard != nil {
		t.Errorf("run.json's merged %+v, shard %+v", m.Merged, m.Shard)
	}
	compareMerged(t, m, loadRun(t, whole), merged, whole)
	if _, err := os.Stat(filepath.Join(merged, "summary.md")); err != nil {
		t.Error(err)
	}
	runOK(t, "report", merged, "--out", filepath.Join(t.TempDir(), "r.html"))
}

// compareMerged compares the merged run m (in mergedDir) with the run of one process w (in
// wholeDir).
func compareMerged(t *testing.T, m, w *result.Run, mergedDir, wholeDir string) {
	t.Helper()
	if m.Status != result.StatusOK || len(m.Configs) != 1 {
		t.Fatalf("merged run %s (%s), %d configurations", m.Status, m.Error, len(m.Configs))
	}
	ms, ws := m.Configs[0].Steps, w.Configs[0].Steps
	if len(ms) != len(ws) {
		t.Fatalf("%d merged steps, %d of one process", len(ms), len(ws))
	}
	for i := range ms {
		a, b := &ms[i], &ws[i]
		if a.Name != b.Name || a.Status != b.Status || a.Clients != b.Clients {
			t.Errorf("step %d: merged %s %s, %d clients; one process %s %s, %d", i, a.Name, a.Status, a.Clients, b.Name, b.Status, b.Clients)
			continue
		}
		if (a.Verify == nil) != (b.Verify == nil) || a.Verify != nil && a.Verify.OK != b.Verify.OK {
			t.Errorf("%s: verification merged %+v, one process %+v", a.Name, a.Verify, b.Verify)
		}
		for name, wo := range b.Ops {
			compareOp(t, a, name, wo, mergedDir, wholeDir)
		}
		if a.Intervals.Len() == 0 && a.Ops[a.Primary] != nil && a.Ops[a.Primary].Count > 0 {
			t.Errorf("%s: no per-second series", a.Name)
		}
	}
	last := ms[len(ms)-1].Verify
	if last == nil || !last.OK || !strings.Contains(last.Detail, "shard 0") || !strings.Contains(last.Detail, "shard 1") {
		t.Errorf("the last step's verification: %+v", last)
	}
	q := &ms[slices.IndexFunc(ms, func(s result.Step) bool { return s.Name == "qr100" })]
	wq := &ws[slices.IndexFunc(ws, func(s result.Step) bool { return s.Name == "qr100" })]
	if q.Target == nil || q.Target.InsertsPerSec != wq.Target.InsertsPerSec {
		t.Errorf("qr100 target: merged %+v, one process %+v", q.Target, wq.Target)
	}
	if q.Fairness == nil {
		t.Errorf("qr100: no fairness")
	}
}

// compareOp compares operation name of merged step a with the one process's wo.
func compareOp(t *testing.T, a *result.Step, name string, wo *result.Op, mergedDir, wholeDir string) {
	t.Helper()
	mo := a.Ops[name]
	if mo == nil {
		t.Errorf("%s: merged step lacks %s", a.Name, name)
		return
	}
	if a.Name[0] == 'q' && name == "query" {
		return // as many queries as the step's time allowed
	}
	if mo.Count != wo.Count || mo.Units != wo.Units || mo.Errors != wo.Errors {
		t.Errorf("%s %s: merged count %d units %d errors %d; one process %d %d %d", a.Name, name, mo.Count, mo.Units, mo.Errors, wo.Count, wo.Units, wo.Errors)
	}
	if wo.Count == 0 {
		return
	}
	mc, wc := logCount(t, mergedDir, a.Name, name), logCount(t, wholeDir, a.Name, name)
	if mc[""] != wc[""] || mc[""] != wo.Count || mc[hdrlog.TagResponse] != wc[hdrlog.TagResponse] {
		t.Errorf("%s %s: histogram counts merged %v, one process %v (%d operations)", a.Name, name, mc, wc, wo.Count)
	}
	if mo.Latency.P99 <= 0 || mo.Latency.P99 > mo.Latency.Max || mo.Latency.P50 > mo.Latency.P99 {
		t.Errorf("%s %s: merged latency %+v", a.Name, name, mo.Latency)
	}
	if (mo.Response == nil) != (wo.Response == nil) {
		t.Errorf("%s %s: response time merged %v, one process %v", a.Name, name, mo.Response, wo.Response)
	}
}

// checkSampleJoined checks that the query step of a merge without a sample (plain) has no
// costs of the database host, and that one with the sample of the server (withSample) has its
// CPU and its costs per operation, from the sample's rows within the step.
func checkSampleJoined(t *testing.T, plain, withSample string) {
	t.Helper()
	qr100 := func(dir string) *result.Step {
		r, err := result.LoadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Configs[0].Steps
		return &st[slices.IndexFunc(st, func(s result.Step) bool { return s.Name == "qr100" })]
	}
	p, s := qr100(plain), qr100(withSample)
	if _, ok := p.Usage[measure.KeyDBCPU]; ok || p.Efficiency != nil && p.Efficiency.DBCPUpq != nil {
		t.Errorf("qr100 merged without a sample has the server's CPU: usage %v", p.Usage)
	}
	if s.Usage[measure.KeyDBCPU] <= 0 || s.Efficiency == nil || s.Efficiency.DBCPUpq == nil || *s.Efficiency.DBCPUpq <= 0 {
		t.Errorf("qr100 merged with the server's sample: usage %v, efficiency %+v; want the server's CPU and its cost per query", s.Usage, s.Efficiency)
	}
}

// A merge's bad input exits 2 with one line before any work: no results directory.
func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "merged")
	runBad(t, "merge needs the run directories of a run's shards", "merge")
	runBad(t, filepath.Join(dir, "none")+" is not a run directory (no run.json)", "merge", filepath.Join(dir, "none"), "--out", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge left %s: %v", out, err)
	}
}
