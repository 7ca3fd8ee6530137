package main

import (
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
)

// lbShardArgs are the arguments of a tiny LinkBench run of 2 link loaders (and 2 requesters
// when steps has run) on the existing server srv of engine eng (on FerretDB a graph of 400
// nodes), with extra, and its results directory.
func lbShardArgs(t *testing.T, eng string, srv *server.Server, steps string, extra ...string) ([]string, string) {
	if eng == "ferretdb" { // it reads a whole collection for every query: a small graph, in chunks of both shards
		extra = append([]string{"--maxid1", "400", "--load-chunk", "50", "--distribution-file", fewLinks(t)}, extra...)
	}
	args, out := tinyArgsOn(t, eng, srv, append([]string{"--loaders", "2", "--requesters", "2", "--steps", steps,
		"--intervals", "1", "--interval-seconds", "30", "--requests", "300", "--no-calibrate"}, extra...)...)
	return slices.Insert(args, 1, "linkbench"), out
}

// lbDigest returns the row count and a digest of each LinkBench table's columns but the times
// (the load's time is the clock's when it starts), each in its key's order.
func lbDigest(t *testing.T, eng string, db *sql.DB) []string {
	t.Helper()
	var out []string
	for _, tc := range []struct{ table, cols string }{
		{"linktable", "id1, link_type, id2, visibility, version, data"},
		{"counttable", "id, link_type, count, version"},
		{"nodetable", "id, type, version, data"},
	} {
		cols := "concat_ws(',', " + tc.cols + ")"
		q := "SELECT count(*), md5(string_agg(" + cols + ", ';' ORDER BY " + cols + ")) FROM " + tc.table
		if eng != "postgres" {
			if _, err := db.Exec("SET SESSION group_concat_max_len = 1073741824"); err != nil {
				t.Fatal(err)
			}
			q = "SELECT count(*), md5(group_concat(" + cols + " ORDER BY " + cols + " SEPARATOR ';')) FROM " + tc.table
		}
		var n int64
		var sum string
		if err := db.QueryRow(q).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s: %d rows, md5 %s", tc.table, n, sum))
	}
	return out
}

// lbTables are the names that digests takes for LinkBench's tables on db: "linkbench" for the
// SQL tables (lbDigest), each collection on a document server.
func lbTables(db *target) []string {
	if db.doc != nil {
		return []string{"linktable", "counttable", "nodetable"}
	}
	return []string{"linkbench"}
}

// checkedRE reads what a LinkBench verification checked from its detail.
var checkedRE = regexp.MustCompile(`^(\d+) links, (\d+) nodes in all; .*: (\d+) links \(.*\), (\d+) counts and (\d+) nodes match`)

// checked returns the totals and the links, counts and nodes a verification's detail says it
// checked.
func checked(t *testing.T, detail string) [5]int64 {
	t.Helper()
	m := checkedRE.FindStringSubmatch(detail)
	if m == nil {
		t.Fatalf("verification detail %q", detail)
	}
	var out [5]int64
	for i := range out {
		out[i], _ = strconv.ParseInt(m[i+1], 10, 64)
	}
	return out
}

// TestShardsLinkBenchMatchOneProcess: two LinkBench shard processes on one existing server load
// the same graph as one process with the same seed (every table's rows but their times, the
// node ids included); each verifies its own chunks' id1s against the totals of both, and
// together they check the links, counts and nodes one process checks. With requests, each
// shard's verification (of the requests of both shards) passes, and the shards make as many
// requests as one process.
func TestShardsLinkBenchMatchOneProcess(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachShardServer(t, lbShardsMatch)
}

// lbShards runs two shards of run id with steps on srv and returns their last steps.
func lbShards(t *testing.T, eng string, srv *server.Server, id, steps string, extra ...string) []result.Step {
	runs, outs := startShards(t, id, func(shard string) ([]string, string) {
		return lbShardArgs(t, eng, srv, steps, append([]string{"--shard", shard}, extra...)...)
	})
	var last []result.Step
	for i, r := range runs {
		if code := exitOf(t, r); code != 0 {
			t.Fatalf("shard %d: exit %d; stderr:\n%s", i, code, r.stderr.String())
		}
		steps := loadRun(t, outs[i]).Configs[0].Steps
		st := steps[len(steps)-1]
		if st.Status != result.StatusOK || st.Verify == nil || !st.Verify.OK {
			t.Fatalf("shard %d: %s %s (%s), verification %+v", i, st.Name, st.Status, st.Error, st.Verify)
		}
		last = append(last, st)
	}
	return last
}

// lbShardsMatch is TestShardsLinkBenchMatchOneProcess on the existing server srv of engine eng.
func lbShardsMatch(t *testing.T, eng string, srv *server.Server) {
	db := onTarget(t, eng, srv)
	shards := lbShards(t, eng, srv, "lb", "load", "--keep")
	tables := []string{"linktable", "counttable", "nodetable"}
	sharded := db.digests(t, lbTables(db)...)
	db.drop(t, tables...)
	args, out := lbShardArgs(t, eng, srv, "load", "--keep")
	runOK(t, args...)
	whole := loadRun(t, out).Configs[0].Steps[0]
	if got := db.digests(t, lbTables(db)...); !slices.Equal(sharded, got) {
		t.Errorf("two shards loaded %v; one process %v", sharded, got)
	}
	w := checked(t, whole.Verify.Detail)
	c0, c1 := checked(t, shards[0].Verify.Detail), checked(t, shards[1].Verify.Detail)
	if c0[0] != w[0] || c0[1] != w[1] || c1[0] != w[0] || c1[1] != w[1] {
		t.Errorf("totals: shards %v %v, one process %v", c0[:2], c1[:2], w[:2])
	}
	for i := 2; i < 5; i++ {
		if c0[i] == 0 || c1[i] == 0 || c0[i]+c1[i] != w[i] {
			t.Errorf("the shards checked %d and %d (links, counts, nodes: %d), one process %d:\n%s\n%s\n%s",
				c0[i], c1[i], i-2, w[i], shards[0].Verify.Detail, shards[1].Verify.Detail, whole.Verify.Detail)
		}
	}
	db.drop(t, tables...)
	if db.doc != nil {
		return // FerretDB loses concurrent updates: the shards' requests are refused on it (TestDocBadInput)
	}
	shards = lbShards(t, eng, srv, "lb-run", "load,run")
	var n int64
	for _, st := range shards {
		n += st.Ops["requests"].Count
	}
	if n != 600 {
		t.Errorf("the shards made %d requests, want 2 x 300", n)
	}
	if got := db.names(t); slices.Contains(got, "linktable") {
		t.Errorf("tables after the shards without --keep: %v", got)
	}
}

// TestShardsLinkBenchKilledShard: a LinkBench shard killed (SIGKILL: it leaves no mark) during
// its request interval never arrives at the interval's end barrier and stops beating; the
// other shard fails there as one that gave no sign of life for its shard timeout, naming it,
// ends (exit 1) and, as shard 0, drops the tables. (The load before, whose shards' parts
// differ, the top-ranked node's million links in one of them, passes its end barrier: the
// shard still loading beats, and is waited for beyond the timeout, up to ten times the timeout
// and the other's load; on a busy machine that part takes over 25 times the other's, and
// under CI's parallel packages shard 0 once took 21 s to set the start after both had
// arrived, hence 45s.)
func TestShardsLinkBenchKilledShard(t *testing.T) {
	integration(t, "starts a server and two runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	runs, outs := startShards(t, "killed", func(shard string) ([]string, string) {
		return lbShardArgs(t, "postgres", srv, "load,run", "--requests", "0", "--interval-seconds", "5", "--shard", shard, "--shard-timeout", "45s")
	})
	t.Cleanup(func() {
		if t.Failed() { // what the other shard said, when one of them ended too soon
			t.Logf("shard 0's output:\n%s", runs[0].stderr.String())
		}
	})
	runs[1].waitForStarted(t, "run.1")
	if err := runs[1].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	runs[1].cmd.Wait()
	if code := exitOf(t, runs[0]); code != exitFailed {
		t.Fatalf("shard 0: exit %d, want %d; stderr:\n%s", code, exitFailed, runs[0].stderr.String())
	}
	want := `shard barrier before run.1.end (run "killed", table enginebench_barrier): shard 1 of 2 gave no sign of life for 45s (its heartbeat in enginebench_alive): the step fails for every shard`
	if res := loadRun(t, outs[0]); res.Status != result.StatusFailed || !strings.Contains(res.Error, want) {
		t.Errorf("shard 0: %s %q, want failed with %q", res.Status, res.Error, want)
	}
	if got := tablesOn(t, "postgres", srv.DSN()); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable, shard.DataTable}) {
		t.Errorf("tables after the shards: %v, want only the barrier tables", got)
	}
}
