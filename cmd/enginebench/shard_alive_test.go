package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/testwait"
)

// TestShardSlowButAliveIsWaitedFor: a shard that is late at a barrier but beats (its arrival
// at l.x held back by a row lock the test holds in the barrier table, while its heartbeat goes
// on) is waited for beyond the other's --shard-timeout, the whole bound of a barrier before a
// step without the heartbeat; both end ok and verified.
func TestShardSlowButAliveIsWaitedFor(t *testing.T) {
	integration(t, "starts servers and runs of the binary")
	onEachExistingServer(t, shardSlowButAlive)
}

// shardSlowButAlive is TestShardSlowButAliveIsWaitedFor on the existing server srv of engine
// eng.
func shardSlowButAlive(t *testing.T, eng string, srv *server.Server) {
	const timeout = 3 * time.Second
	db := onServer(t, eng, srv)
	runs, outs := startShards(t, "slow", func(shard string) ([]string, string) {
		return shardArgs(t, eng, srv, "--rows", "20000", "--steps", "l.i0,l.x", "--shard", shard, "--shard-timeout", timeout.String())
	})
	testwait.Until(t, "the barrier table", 3*time.Minute, func() bool {
		return slices.Contains(tablesOn(t, eng, srv.DSN()), shard.BarrierTable)
	})
	// Shard 1's arrival at l.x waits for this transaction's row of the same key.
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO " + shard.BarrierTable + " (run, step, shard, arrived_at) VALUES ('slow', '" + eng + "/l.x', 1, 0)"); err != nil {
		t.Fatal(err)
	}
	arrivedAt := func(index int) (ms int64) {
		db.QueryRow(fmt.Sprintf("SELECT arrived_at FROM %s WHERE run = 'slow' AND step = '%s/l.x' AND shard = %d", shard.BarrierTable, eng, index)).Scan(&ms)
		return ms
	}
	testwait.Until(t, "shard 0 to wait at l.x beyond its timeout", 3*time.Minute, func() bool {
		at := arrivedAt(0)
		return at > 0 && time.Since(time.UnixMilli(at)) > timeout+time.Second
	})
	if err := tx.Rollback(); err != nil { // shard 1 arrives now, beyond shard 0's timeout
		t.Fatal(err)
	}
	for i, r := range runs {
		if code := exitOf(t, r); code != 0 {
			t.Fatalf("shard %d: exit %d; stderr:\n%s", i, code, r.stderr.String())
		}
		steps := loadRun(t, outs[i]).Configs[0].Steps
		if len(steps) != 2 {
			t.Fatalf("shard %d: %d steps, want l.i0 and l.x", i, len(steps))
		}
		for _, st := range steps {
			if st.Status != result.StatusOK {
				t.Errorf("shard %d: %s %s (%s)", i, st.Name, st.Status, st.Error)
			}
		}
		if v := steps[1].Verify; v == nil || !v.OK {
			t.Errorf("shard %d: verification after l.x %+v", i, v)
		}
	}
}

// TestShardFrozenFailsTheOthers: a shard frozen (SIGSTOP) in its step stops beating; the other
// shard fails at the next barrier as soon as it has given no sign of life for the shard timeout,
// naming it, and drops its table; the frozen shard, continued, fails at that barrier (the other
// left), drops its table, and both end with exit status 1.
func TestShardFrozenFailsTheOthers(t *testing.T) {
	integration(t, "starts a server and two runs of the binary")
	srv := servertest.Start(t, server.Postgres, map[string]string{"shared_buffers": "128MB"})
	runs, outs := startShards(t, "frozen", func(shard string) ([]string, string) {
		return shardArgs(t, "postgres", srv, "--rows", "200000", "--shard", shard, "--shard-timeout", "3s")
	})
	runs[1].waitForStarted(t, "l.i0")
	if err := runs[1].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, runs[0]); code != exitFailed {
		t.Fatalf("shard 0: exit %d, want %d; stderr:\n%s", code, exitFailed, runs[0].stderr.String())
	}
	want := `shard barrier before l.x (run "frozen", table enginebench_barrier): shard 1 of 2 gave no sign of life for 3s (its heartbeat in enginebench_alive): the step fails for every shard`
	if res := loadRun(t, outs[0]); res.Status != result.StatusFailed || !strings.Contains(res.Error, want) {
		t.Errorf("shard 0: %s %q, want failed with %q", res.Status, res.Error, want)
	}
	if err := runs[1].cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, runs[1]); code != exitFailed {
		t.Fatalf("shard 1: exit %d, want %d; stderr:\n%s", code, exitFailed, runs[1].stderr.String())
	}
	if res := loadRun(t, outs[1]); !strings.Contains(res.Error, "shard barrier before l.x: shard 0 left the run") {
		t.Errorf("the frozen shard: %s %q, want failed at l.x, shard 0 having left", res.Status, res.Error)
	}
	if got := tablesOn(t, "postgres", srv.DSN()); !slices.Equal(got, []string{shard.AliveTable, shard.BarrierTable}) {
		t.Errorf("tables after the shards: %v, want only the barrier tables", got)
	}
}
