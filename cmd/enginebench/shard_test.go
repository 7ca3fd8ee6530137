package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
)

// TestShardBadInput: a bad --shard, a sharded run whose shards cannot meet (an embedded engine,
// a managed server) or that cannot be split, and the shard flags without --shard are refused
// before any work: one line, exit 2.
func TestShardBadInput(t *testing.T) {
	for _, c := range []struct {
		want string
		args []string
	}{
		{`--shard "0/0": want I/N`, []string{"--shard", "0/0"}},
		{`--shard "2/2": want I/N`, []string{"--shard", "2/2"}},
		{`--shard "-1/2": want I/N`, []string{"--shard=-1/2"}},
		{`--shard "x": want I/N`, []string{"--shard", "x"}},
		{"--shard 1/2: give the id every shard of the run shares", []string{"--shard", "1/2", "--clients", "2"}},
		{"--shard 1/2: configuration sqlite: the embedded engine sqlite runs inside one process and cannot be sharded across processes",
			[]string{"--engines", "sqlite", "--shard", "1/2", "--shard-run", "r", "--clients", "2"}},
		{"--shard 0/2: configuration pebble: the embedded engine pebble runs inside one process",
			[]string{"--engines", "pebble", "--shard", "0/2", "--shard-run", "r", "--clients", "2"}},
		{"--shard 1/2: configuration postgres: a managed server is one process's own",
			[]string{"--engines", "postgres", "--shard", "1/2", "--shard-run", "r", "--clients", "2"}},
		{"--shard 1/3: --clients 2: each of the 3 shards needs a client", []string{"--shard", "1/3", "--shard-run", "r", "--clients", "2"}},
		{"--shard 0/2: the Insert Benchmark's shards need one table per client",
			[]string{"--shard", "0/2", "--shard-run", "r", "--clients", "2", "--shared-table"}},
		{"--shard-run is a flag of a sharded run: give --shard I/N", []string{"--shard-run", "r"}},
		{"--shard-timeout 0s: want a duration of more than 0", []string{"--shard", "0/1", "--shard-timeout", "0s"}},
		{`--start-at "noon": want a time in RFC 3339`, []string{"--start-at", "noon"}},
		{"more than 24h0m0s ahead", []string{"--start-at", time.Now().Add(48 * time.Hour).Format(time.RFC3339)}},
	} {
		t.Run(c.want, func(t *testing.T) {
			args, out := tinyArgs(t, "sqlite", c.args...)
			if i := slices.Index(c.args, "--engines"); i >= 0 { // the case's engine, not tinyArgs'
				args = slices.Delete(args, 3, 5)
			}
			runBad(t, c.want, args...)
			if _, err := result.Load(out); err == nil {
				t.Error("the refused run wrote results")
			}
		})
	}
	for _, c := range []struct{ want, flag, value string }{
		{"--shard 1/2: --loaders 1: each of the 2 shards needs a link loader", "--loaders", "1"},
		{"--shard 1/2: --requesters 1: each of the 2 shards needs a requester", "--requesters", "1"},
		{"--shard 1/2: --defer-index cannot be sharded", "--defer-index", "true"},
	} {
		t.Run("linkbench "+c.flag, func(t *testing.T) {
			args, _ := tinyArgs(t, "postgres", "--dsn", "postgres://x@127.0.0.1:1/x", "--shard", "1/2", "--shard-run", "r",
				"--loaders", "2", "--requesters", "2", c.flag+"="+c.value)
			runBad(t, c.want, slices.Insert(args, 1, "linkbench")...)
		})
	}
	t.Run("iibench threads", func(t *testing.T) {
		args, _ := tinyArgs(t, "postgres", "--dsn", "postgres://x@127.0.0.1:1/x", "--shard", "1/2", "--shard-run", "r", "--insert-threads", "1")
		runBad(t, "--shard 1/2: --insert-threads 1: each of the 2 shards needs an insert thread", slices.Insert(args, 1, "iibench")...)
	})
}

// shardArgs are the arguments of a small Insert Benchmark of 2 clients on the existing server
// srv of engine eng, with extra, and its results directory.
func shardArgs(t *testing.T, eng string, srv *server.Server, extra ...string) ([]string, string) {
	return tinyArgsOn(t, eng, srv, append([]string{"--clients", "2", "--rows", "2000", "--rows-l.i1", "500",
		"--steps", "l.i0,l.x,l.i1,cleanup", "--no-calibrate"}, extra...)...)
}

// exitOf waits for run r to end (bounded: a barrier's wait is) and returns its exit status.
func exitOf(t *testing.T, r *bgRun) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitCode()
		}
		t.Fatalf("wait: %v", err)
	case <-time.After(10 * time.Minute): // a safety bound, not a measurement
		t.Fatalf("the run did not end; stderr:\n%s", r.stderr.String())
	}
	return -1
}

// onServer opens the benchmark database of the existing SQL server srv of engine eng.
func onServer(t *testing.T, eng string, srv *server.Server) *sql.DB {
	t.Helper()
	return onTarget(t, eng, srv).sql
}

// digest returns table's row count and a digest of its rows' generated columns in insert
// order (dateandtime, the second each row was made, differs from run to run).
func digest(t *testing.T, eng string, db *sql.DB, table string) string {
	t.Helper()
	var n int64
	var sum string
	cols := "concat_ws(',', cashregisterid, customerid, productid, price, data)"
	q := "SELECT count(*), md5(string_agg(" + cols + ", ';' ORDER BY transactionid)) FROM " + table
	if eng != "postgres" {
		if _, err := db.Exec("SET SESSION group_concat_max_len = 67108864"); err != nil {
			t.Fatal(err)
		}
		q = "SELECT count(*), md5(group_concat(" + cols + " ORDER BY transactionid SEPARATOR ';')) FROM " + table
	}
	if err := db.QueryRow(q).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rows, md5 %s", n, sum)
}

// arrivals returns the barrier table's rows of run as "step shard" strings, sorted.
func arrivals(t *testing.T, db *sql.DB, run string) []string {
	t.Helper()
	rows, err := db.Query("SELECT step, shard, gave_up_at IS NOT NULL FROM " + shard.BarrierTable + " WHERE run = '" + run + "'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var step string
		var shard int
		var gaveUp bool
		if err := rows.Scan(&step, &shard, &gaveUp); err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("%s %d", step, shard)
		if gaveUp {
			s += " gave up"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestShardsMatchOneProcess: two shard processes (the binary) on one existing PostgreSQL make
// the same tables, with the same rows, as one process running both clients with the same seed;
// each verifies its own table; the barrier table holds both shards' arrival at every step; only
// shard 0 runs the cleanup.
func TestShardsMatchOneProcess(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachShardServer(t, shardsMatch)
}

// onEachExistingServer runs f in parallel subtests, one per kind of existing server, on a server
// the subtest starts.
func onEachExistingServer(t *testing.T, f func(t *testing.T, eng string, srv *server.Server)) {
	onEachServerKind(t, func(t *testing.T, s existingServer) { f(t, s.engine, servertest.Start(t, s.kind, s.settings)) })
}

// startShards starts the two shards of run id whose arguments args(shard) gives ("0/2",
// "1/2"; --shard-run id is added), each as a process of the binary, and returns them with
// their results directories.
func startShards(t *testing.T, id string, args func(shard string) ([]string, string)) ([]*bgRun, []string) {
	t.Helper()
	bin := buildBinary(t)
	var runs []*bgRun
	var outs []string
	for i := range 2 {
		a, out := args(fmt.Sprintf("%d/2", i))
		runs, outs = append(runs, startBinary(t, bin, append(a, "--shard-run", id)...)), append(outs, out)
	}
	return runs, outs
}

// runShards runs the two shards of run id (startShards) and returns their results
// directories once both ended ok.
func runShards(t *testing.T, id string, args func(shard string) ([]string, string)) []string {
	t.Helper()
	runs, outs := startShards(t, id, args)
	for i, r := range runs {
		if code := exitOf(t, r); code != 0 {
			t.Fatalf("shard %d: exit %d; stderr:\n%s", i, code, r.stderr.String())
		}
	}
	return outs
}

// shardsMatch is TestShardsMatchOneProcess on the existing server srv of engine eng.
func shardsMatch(t *testing.T, eng string, srv *server.Server) {
	db := onTarget(t, eng, srv)
	outs := runShards(t, "match", func(shard string) ([]string, string) { return shardArgs(t, eng, srv, "--keep", "--shard", shard) })
	for i, out := range outs {
		res := loadRun(t, out)
		want := &result.Shard{Index: i, Count: 2, Run: "match", Clients: []int{i}, TimeoutSeconds: shard.DefaultTimeout.Seconds(), Barrier: shard.BarrierTable}
		if got := res.Shard; got == nil || fmt.Sprint(*got) != fmt.Sprint(*want) {
			t.Errorf("shard %d: run.json's shard %+v, want %+v", i, got, want)
		}
		if note := fmt.Sprintf("shard %d of 2 of run match: clients %d of the run's", i, i); !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, note) }) {
			t.Errorf("shard %d: run notes %q lack %q", i, res.Notes, note)
		}
		steps := res.Configs[0].Steps
		if len(steps) != 4 {
			t.Fatalf("shard %d: %d steps, want 4: %+v", i, len(steps), steps)
		}
		last := steps[3]
		if last.Verify == nil || !last.Verify.OK || !strings.Contains(last.Verify.Detail, fmt.Sprintf("pi%d", i+1)) {
			t.Errorf("shard %d: verification after the last step: %+v", i, last.Verify)
		}
		wantStatus := []string{result.StatusOK, result.StatusSkipped}[i]
		if db.doc != nil {
			wantStatus = result.StatusSkipped // a document server has no cleanup
		}
		if last.Status != wantStatus {
			t.Errorf("shard %d: cleanup %s (%s), want %s", i, last.Status, last.Error, wantStatus)
		}
	}
	var want []string
	for _, s := range []string{"cleanup", "end", "l.i0", "l.i1", "l.x"} {
		want = append(want, eng+"/"+s+" 0", eng+"/"+s+" 1")
	}
	if got := db.arrivals(t, "match"); !slices.Equal(got, want) {
		t.Errorf("barrier table: %v, want %v", got, want)
	}
	if got := db.names(t); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable, "pi1", "pi2"}) {
		t.Fatalf("tables after the shards: %v", got)
	}
	sharded := db.digests(t, "pi1", "pi2")
	db.drop(t, "pi1", "pi2")
	args, _ := shardArgs(t, eng, srv, "--keep")
	runOK(t, args...)
	whole := db.digests(t, "pi1", "pi2")
	if !slices.Equal(sharded, whole) {
		t.Errorf("two shards made %v; one process %v", sharded, whole)
	}
	if sharded[0] == sharded[1] {
		t.Errorf("both tables hold the same rows (%s): the digest does not tell them apart", sharded[0])
	}
}

// TestShardMissingFailsTheStep: a shard whose partner never starts fails its first step within
// the (short) shard timeout, naming the missing shard, ends (exit 1) and drops its tables; a
// shard that arrives after that fails at once, naming the shard that gave up.
func TestShardMissingFailsTheStep(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachShardServer(t, shardMissing)
}

// shardMissing is TestShardMissingFailsTheStep on the existing server srv of engine eng.
func shardMissing(t *testing.T, eng string, srv *server.Server) {
	db := onTarget(t, eng, srv)
	args, out := shardArgs(t, eng, srv, "--shard", "0/2", "--shard-run", "lonely", "--shard-timeout", "2s")
	r := startBinary(t, buildBinary(t), args...)
	if code := exitOf(t, r); code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailed, r.stderr.String())
	}
	res := loadRun(t, out)
	want := `shard barrier before l.i0 (run "lonely", table enginebench_barrier): shard 1 of 2 did not arrive within 2s: the step fails for every shard`
	if res.Status != result.StatusFailed || !strings.Contains(res.Error, want) {
		t.Errorf("run %s: %q, want failed with %q", res.Status, res.Error, want)
	}
	if !strings.Contains(r.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
	}
	if got := db.names(t); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable}) {
		t.Errorf("tables after the failed shard: %v, want only the barrier tables", got)
	}
	if got := db.arrivals(t, "lonely"); !slices.Equal(got, []string{eng + "/l.i0 0 gave up"}) {
		t.Errorf("barrier table: %v", got)
	}
	late, out := shardArgs(t, eng, srv, "--shard", "1/2", "--shard-run", "lonely", "--shard-timeout", "2s")
	code, _, stderr := runCLI(t, late...)
	wantLate := "shard barrier before l.i0: shard 0 left the run (it gave up waiting for the others, failed or was interrupted): the step fails for every shard"
	if code != exitFailed || !strings.Contains(stderr, wantLate) {
		t.Errorf("the late shard: exit %d, want %d with %q; stderr:\n%s", code, exitFailed, wantLate, stderr)
	}
	if res := loadRun(t, out); res.Status != result.StatusFailed {
		t.Errorf("the late shard's run: %s", res.Status)
	}
}

// TestShardInterruptedFailsTheOthers: a shard interrupted (Ctrl-C) during a run leaves a mark at
// the step it will not come to, and the other shard fails that step as soon as it arrives,
// naming it (its shard timeout, the default five minutes, is not waited out); both drop their
// tables.
func TestShardInterruptedFailsTheOthers(t *testing.T) {
	integration(t, "starts a server and two runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	runs, outs := startShards(t, "cut", func(shard string) ([]string, string) {
		return shardArgs(t, "postgres", srv, "--rows", "200000", "--shard", shard)
	})
	runs[1].waitForStarted(t, "l.i0")
	if res := runs[1].interrupt(t, outs[1]); res.Status != result.StatusInterrupted {
		t.Errorf("shard 1: %s", res.Status)
	}
	if code := exitOf(t, runs[0]); code != exitFailed {
		t.Fatalf("shard 0: exit %d, want %d; stderr:\n%s", code, exitFailed, runs[0].stderr.String())
	}
	want := "shard 1 left the run (it gave up waiting for the others, failed or was interrupted): the step fails for every shard"
	if res := loadRun(t, outs[0]); !strings.Contains(res.Error, want) {
		t.Errorf("shard 0: %q, want %q", res.Error, want)
	}
	if got := tablesOn(t, "postgres", srv.DSN()); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable}) {
		t.Errorf("tables after the shards: %v, want only the barrier tables", got)
	}
}
