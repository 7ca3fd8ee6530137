package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
)

// iiShardArgs are the arguments of a small iiBench run of 2 insert and 2 query threads on the
// existing server srv of engine eng, with extra, and its results directory.
func iiShardArgs(t *testing.T, eng string, srv *server.Server, extra ...string) ([]string, string) {
	args, out := tinyArgsOn(t, eng, srv, append([]string{"--insert-threads", "2", "--query-threads", "2",
		"--max-rows", "6000", "--insert-batch", "500", "--no-calibrate"}, extra...)...)
	return slices.Insert(args, 1, "iibench"), out
}

// iiDigest returns purchases_index's row count and a digest of its rows' generated columns,
// in the order of those columns: the transactionids (the engine's, in the order the threads'
// batches came) and dateandtime (the second each batch was made) differ from run to run.
func iiDigest(t *testing.T, eng string, db *sql.DB) string {
	t.Helper()
	var n int64
	var sum string
	cols := "concat_ws(',', cashregisterid, customerid, productid, price, data)"
	q := "SELECT count(*), md5(string_agg(" + cols + ", ';' ORDER BY " + cols + ")) FROM purchases_index"
	if eng != "postgres" {
		if _, err := db.Exec("SET SESSION group_concat_max_len = 67108864"); err != nil {
			t.Fatal(err)
		}
		q = "SELECT count(*), md5(group_concat(" + cols + " ORDER BY " + cols + " SEPARATOR ';')) FROM purchases_index"
	}
	if err := db.QueryRow(q).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rows, md5 %s", n, sum)
}

// TestShardsIIBenchMatchOneProcess: two iiBench shard processes on one existing server fill
// purchases_index with the same rows as one process running all four threads with the same
// seed; each shard verifies the whole table with both shards' ledgers, with the verification's
// detail of the one process; shard 0 creates the table, and with --keep neither drops it; the
// barrier table holds both shards' arrivals at the step, its end and after verification; the
// shards' results merge into one run with their rows and verification.
func TestShardsIIBenchMatchOneProcess(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachShardServer(t, iiShardsMatch)
}

// iiShardsMatch is TestShardsIIBenchMatchOneProcess on the existing server srv of engine eng.
func iiShardsMatch(t *testing.T, eng string, srv *server.Server) {
	db := onTarget(t, eng, srv)
	outs := runShards(t, "ii", func(shard string) ([]string, string) { return iiShardArgs(t, eng, srv, "--keep", "--shard", shard) })
	var details []string
	var units int64
	for i, out := range outs {
		res := loadRun(t, out)
		if got, want := res.Shard.Clients, []int{i, i + 2}; !slices.Equal(got, want) {
			t.Errorf("shard %d: clients %v, want %v", i, got, want)
		}
		st := res.Configs[0].Steps[0]
		if st.Status != result.StatusOK || st.Verify == nil || !st.Verify.OK {
			t.Fatalf("shard %d: step %s (%s), verification %+v", i, st.Status, st.Error, st.Verify)
		}
		details = append(details, st.Verify.Detail)
		units += st.Ops["insert"].Units
	}
	merged := filepath.Join(t.TempDir(), "merged")
	runOK(t, "merge", outs[0], outs[1], "--out", merged)
	m, err := result.LoadDir(merged)
	if err != nil {
		t.Fatal(err)
	}
	if mst := m.Configs[0].Steps[0]; m.Merged == nil || m.Merged.Count != 2 || mst.Status != result.StatusOK || mst.Verify == nil || !mst.Verify.OK || mst.Ops["insert"].Units != units {
		t.Errorf("merged: %+v, step %s, verification %+v, %d rows inserted, want the shards' %d", m.Merged, mst.Status, mst.Verify, mst.Ops["insert"].Units, units)
	}
	var want []string
	for _, s := range []string{"run", "run.end", "run.verified"} {
		want = append(want, eng+"/"+s+" 0", eng+"/"+s+" 1")
	}
	if got := db.arrivals(t, "ii"); !slices.Equal(got, want) {
		t.Errorf("barrier table: %v, want %v", got, want)
	}
	if got := db.names(t); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable, shard.DataTable, "purchases_index"}) {
		t.Fatalf("tables after the shards: %v", got)
	}
	sharded := db.digests(t, "purchases_index")
	db.drop(t, "purchases_index")
	args, out := iiShardArgs(t, eng, srv, "--keep")
	runOK(t, args...)
	whole := loadRun(t, out).Configs[0].Steps[0]
	if d := whole.Verify.Detail; details[0] != d || details[1] != d {
		t.Errorf("the shards verified %q; one process %q", details, d)
	}
	if !strings.Contains(details[0], "expected 6000,") {
		t.Errorf("the shards' verification is not of the whole table: %q", details[0])
	}
	if u := whole.Ops["insert"].Units; units != u {
		t.Errorf("the shards inserted %d rows; one process %d", units, u)
	}
	if got := db.digests(t, "purchases_index"); !slices.Equal(sharded, got) {
		t.Errorf("two shards made %s; one process %s", sharded, got)
	}
}

// TestShardsIIBenchMissingShard: an iiBench shard 0 whose partner never starts creates the
// table, fails the step at the (short) shard timeout naming shard 1, ends (exit 1) and drops
// the table; a shard 1 that comes later fails at once without creating or dropping anything.
func TestShardsIIBenchMissingShard(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachExistingServer(t, iiShardMissing)
}

// iiShardMissing is TestShardsIIBenchMissingShard on the existing server srv of engine eng.
func iiShardMissing(t *testing.T, eng string, srv *server.Server) {
	db := onServer(t, eng, srv)
	args, out := iiShardArgs(t, eng, srv, "--shard", "0/2", "--shard-run", "alone", "--shard-timeout", "2s")
	r := startBinary(t, buildBinary(t), args...)
	if code := exitOf(t, r); code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailed, r.stderr.String())
	}
	want := `shard barrier before run (run "alone", table enginebench_barrier): shard 1 of 2 did not arrive within 2s: the step fails for every shard`
	if res := loadRun(t, out); res.Status != result.StatusFailed || !strings.Contains(res.Error, want) {
		t.Errorf("run %s: %q, want failed with %q", res.Status, res.Error, want)
	}
	if got := tablesOn(t, eng, srv.DSN()); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable}) {
		t.Errorf("tables after the failed shard: %v, want only the barrier tables", got)
	}
	late, out := iiShardArgs(t, eng, srv, "--shard", "1/2", "--shard-run", "alone", "--shard-timeout", "2s")
	code, _, stderr := runCLI(t, late...)
	wantLate := "shard barrier before run: shard 0 left the run"
	if code != exitFailed || !strings.Contains(stderr, wantLate) {
		t.Errorf("the late shard: exit %d, want %d with %q; stderr:\n%s", code, exitFailed, wantLate, stderr)
	}
	if res := loadRun(t, out); res.Status != result.StatusFailed {
		t.Errorf("the late shard's run: %s", res.Status)
	}
	if got := arrivals(t, db, "alone"); !slices.Equal(got, []string{eng + "/run 0 gave up", eng + "/run 1 gave up"}) {
		t.Errorf("barrier table: %v", got)
	}
}

// TestShardsIIBenchKilledShard: an iiBench shard killed (SIGKILL: it leaves no mark) while its
// threads run never arrives at the end barrier and stops beating; shard 0 fails the step there
// as one that gave no sign of life for its shard timeout, naming it, does not verify, ends
// (exit 1) and drops the table.
func TestShardsIIBenchKilledShard(t *testing.T) {
	integration(t, "starts a server and two runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	runs, outs := startShards(t, "killed", func(shard string) ([]string, string) {
		return iiShardArgs(t, "postgres", srv, "--max-rows", "0", "--seconds", "5", "--shard", shard, "--shard-timeout", "5s")
	})
	runs[1].waitForStarted(t, "run")
	if err := runs[1].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	runs[1].cmd.Wait()
	if code := exitOf(t, runs[0]); code != exitFailed {
		t.Fatalf("shard 0: exit %d, want %d; stderr:\n%s", code, exitFailed, runs[0].stderr.String())
	}
	want := `shard barrier before run.end (run "killed", table enginebench_barrier): shard 1 of 2 gave no sign of life for 5s (its heartbeat in enginebench_alive): the step fails for every shard`
	res := loadRun(t, outs[0])
	if st := res.Configs[0].Steps[0]; st.Status != result.StatusFailed || !strings.Contains(st.Error, want) || st.Verify != nil {
		t.Errorf("shard 0: %s %q, verification %+v; want failed with %q, unverified", st.Status, st.Error, st.Verify, want)
	}
	if got := tablesOn(t, "postgres", srv.DSN()); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable, shard.DataTable}) {
		t.Errorf("tables after the shards: %v, want only the barrier tables", got)
	}
}
