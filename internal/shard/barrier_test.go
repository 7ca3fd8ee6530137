package shard

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/runner"
)

// TestBarrierShards: on each server engine (SQL and document), three shards that create the barrier table at once
// all meet and start a step, and shard 0 sets its start, each shard's heartbeat in the
// heartbeat table; when the others stop beating, a shard alone fails naming them as giving no
// sign of life, and marks its row; a shard that comes later fails at once, naming the shard
// that gave up; an arrival recorded twice (a run id used again) is refused; a shard alone in a
// run whose other shards never started fails naming the shards that did not arrive.
func TestBarrierShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	eachServer(t, func(t *testing.T, ctx context.Context, eng engine.Engine) {
		shard := func(i int, wait time.Duration) Shard {
			return Shard{Index: i, Count: 3, Run: "r1", Timeout: wait}
		}
		errs := make([]error, 3)
		bs := make([]*Barrier, 3)
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, err := NewBarrier(ctx, eng, shard(i, 5*time.Minute), "cfg", runner.SystemClock(), io.Discard)
				if err == nil {
					bs[i] = b
					err = b.Meet(ctx, "s1", 0)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("shard %d: %v", i, err)
			}
		}
		if got := barrierRows(t, ctx, bs[0], "cfg/s1"); got != "0 start, 1, 2" {
			t.Errorf("the rows of s1: %s", got)
		}
		ages, err := bs[0].alive.ages(ctx)
		if err != nil || len(ages) != 3 {
			t.Errorf("heartbeats of run r1: %v (%v), want the 3 shards'", ages, err)
		}
		for _, b := range bs {
			b.Stop() // the shards die
		}
		b0 := testBarrier(t, ctx, eng, shard(0, time.Millisecond))
		err = b0.Meet(ctx, "s2", 0)
		if want := `shard barrier before s2 (run "r1", table enginebench_barrier): shard 1, 2 of 3 gave no sign of life for 1ms (its heartbeat in enginebench_alive): the step fails for every shard`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shard 0 alone: %v, want %q", err, want)
		}
		if got := barrierRows(t, ctx, b0, "cfg/s2"); got != "0 gave up" {
			t.Errorf("the rows of s2: %s", got)
		}
		b2 := testBarrier(t, ctx, eng, shard(2, 5*time.Minute))
		err = b2.Meet(ctx, "s2", 0)
		if want := "shard barrier before s2: shard 0 left the run"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the late shard 2: %v, want %q", err, want)
		}
		err = b2.Meet(ctx, "s1", 0)
		if want := `run "r1" already has shard 2's arrival at cfg/s1`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("an arrival again: %v, want %q", err, want)
		}
		alone := testBarrier(t, ctx, eng, Shard{Index: 0, Count: 3, Run: "r3", Timeout: time.Millisecond})
		err = alone.Meet(ctx, "s1", 0)
		if want := `shard barrier before s1 (run "r3", table enginebench_barrier): shard 1, 2 of 3 did not arrive within 1ms: the step fails for every shard`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shard 0 of a run whose other shards never started: %v, want %q", err, want)
		}
	})
}

// testBarrier returns shard s's barrier of configuration cfg on eng, its heartbeat stopped at
// the test's end.
func testBarrier(t *testing.T, ctx context.Context, eng engine.Engine, s Shard) *Barrier {
	t.Helper()
	b, err := NewBarrier(ctx, eng, s, "cfg", runner.SystemClock(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return b
}

// TestBarrierShares: on each server engine (SQL and document), three shards that share data at a barrier (at once,
// creating the data table at once) each get every shard's data by shard index, a long one
// (parts of 4000 characters) whole; a shard's data that is missing from the table is an error.
func TestBarrierShares(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	eachServer(t, func(t *testing.T, ctx context.Context, eng engine.Engine) {
		data := []string{"", strings.Repeat("0123456789", 1000), "short"} // shard 1's is 10,000 characters
		got := make([][]string, 3)
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, err := NewBarrier(ctx, eng, Shard{Index: i, Count: 3, Run: "r2", Timeout: 5 * time.Minute}, "cfg", runner.SystemClock(), io.Discard)
				if err == nil {
					got[i], errs[i] = b.Share(ctx, "end", data[i], 0)
					b.Stop()
				} else {
					errs[i] = err
				}
			}()
		}
		wg.Wait()
		for i := range 3 {
			if errs[i] != nil || !slices.Equal(got[i], data) {
				t.Errorf("shard %d: %d pieces (%v), want the 3 shards' data", i, len(got[i]), errs[i])
			}
		}
		deleteData(t, ctx, eng, "r2", 2)
		b := testBarrier(t, ctx, eng, Shard{Index: 0, Count: 3, Run: "r2", Timeout: time.Minute})
		if _, err := b.get(ctx, "cfg/end"); err == nil || !strings.Contains(err.Error(), "shard 2 arrived without its data in "+DataTable) {
			t.Errorf("shard 2's data missing: %v", err)
		}
	})
}

// TestBarrierNeedsAServer: an embedded engine has no barrier (it cannot be sharded).
func TestBarrierNeedsAServer(t *testing.T) {
	if _, err := NewBarrier(context.Background(), nil, Shard{Index: 0, Count: 2}, "pebble", runner.SystemClock(), io.Discard); err == nil {
		t.Error("a barrier on an engine that is not a server")
	}
}

// eachServer runs f as a parallel subtest on each SQL server and each document server, which
// it starts.
func eachServer(t *testing.T, f func(t *testing.T, ctx context.Context, eng engine.Engine)) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, s sqldbtest.Server, ctx context.Context) {
		eng, _ := s.Start(t, ctx, false)
		f(t, ctx, eng)
	})
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		eng, _ := s.Start(t, ctx, nil)
		f(t, ctx, eng)
	})
}

// deleteData deletes shard's data of run from DataTable on eng.
func deleteData(t *testing.T, ctx context.Context, eng engine.Engine, run string, shard int) {
	t.Helper()
	var err error
	switch db := eng.(type) {
	case sqldb.DB:
		_, err = db.SQL().ExecContext(ctx, sqldb.Bind(db.Dialect(), "DELETE FROM "+DataTable+" WHERE run = ? AND shard = ?"), run, shard)
	case doc.DB:
		_, err = db.Collection(DataTable).DeleteMany(ctx, bson.D{{Key: "run", Value: run}, {Key: "shard", Value: shard}})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// barrierRows returns the rows of step key of b's run as "shard[ start][ gave up]", by shard.
func barrierRows(t *testing.T, ctx context.Context, b *Barrier, key string) string {
	t.Helper()
	rows, err := b.board.arrivals(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(x, y arrival) int { return x.shard - y.shard })
	var out []string
	for _, a := range rows {
		s := fmt.Sprint(a.shard)
		if a.startAt.Valid {
			s += " start"
		}
		if a.gaveUp.Valid {
			s += " gave up"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// failingStart is a board whose setStart fails, as a statement of shard 0's may.
type failingStart struct{ board }

func (failingStart) setStart(context.Context, string, int64) error {
	return fmt.Errorf("connection reset by peer")
}

// TestBarrierShardThatFailsAfterArriving: on each server engine, shard 0 arrives at a step and
// then fails to set its start (a statement error): its Meet fails with that error and marks
// its row, and shard 1, arrived too, fails naming shard 0 as having left the run instead of
// waiting for a start that will not come (until its shard timeout, a minute, which would fail
// it with another message).
func TestBarrierShardThatFailsAfterArriving(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	eachServer(t, func(t *testing.T, ctx context.Context, eng engine.Engine) {
		bs := make([]*Barrier, 2)
		for i := range bs {
			bs[i] = testBarrier(t, ctx, eng, Shard{Index: i, Count: 2, Run: "failed", Timeout: time.Minute})
		}
		bs[0].board = failingStart{bs[0].board}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, b := range bs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = b.Meet(ctx, "s1", 0)
			}()
		}
		wg.Wait()
		if want := "set the start: connection reset by peer"; errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("shard 0: %v, want %q", errs[0], want)
		}
		if want := "shard barrier before s1: shard 0 left the run"; errs[1] == nil || !strings.Contains(errs[1].Error(), want) {
			t.Errorf("shard 1: %v, want %q", errs[1], want)
		}
		if got := barrierRows(t, ctx, bs[1], "cfg/s1"); got != "0 gave up, 1 gave up" {
			t.Errorf("the rows of s1: %s", got)
		}
	})
}
