package shard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/runner"
)

// BarrierTable is the table of the target database in which the shards of a run meet before
// each step (docs/scale-out.md, Shards): a row per run, step and shard that arrived.
const BarrierTable = "enginebench_barrier"

// startLead is how far ahead of the last arrival shard 0 sets a step's start, so that every
// shard sees it before it comes.
const startLead = 300 * time.Millisecond

// pollEvery is how often a shard waiting at a barrier reads the barrier table.
const pollEvery = 50 * time.Millisecond

// Barrier is a run's meeting point in the database of an existing server: each shard records
// its arrival at a step, waits until all have arrived, and every shard starts the step at the
// time shard 0 chose. A shard that gives up waiting marks its row, and every shard that sees
// the mark fails too, so one missing shard fails the step for all.
type Barrier struct {
	board  board // where the rows are kept: SQL tables or collections (board.go)
	shard  Shard
	config string // the configuration's name: a step's key is "config/step"
	alive  *alive // the shard's heartbeat, and the others' beats
}

// setupTimeout bounds the creation of the shards' tables and each statement of a barrier or
// on the heartbeats.
const setupTimeout = time.Minute

// NewBarrier returns shard s's barrier of configuration config on eng, which must be an SQL
// or a document server engine (board.go): it creates the barrier table unless it is there
// (another shard may create it at the same time), and starts the shard's heartbeat on clock
// (heartbeat.go), which Stop ends; a failed beat is logged on log.
func NewBarrier(ctx context.Context, eng engine.Engine, s Shard, config string, clock runner.Clock, log io.Writer) (*Barrier, error) {
	bd, err := boardOf(eng, s, config)
	if err != nil {
		return nil, err
	}
	b := &Barrier{board: bd, shard: s, config: config}
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	if err := bd.createBarrier(ctx); err != nil {
		return nil, err
	}
	if b.alive, err = startAlive(ctx, bd, s, clock, log); err != nil {
		return nil, err
	}
	return b, nil
}

// Stop stops the shard's heartbeat: the shard leaves the configuration.
func (b *Barrier) Stop() { b.alive.stop() }

// Meet records the shard's arrival at step and returns at the step's start, once every shard
// has arrived: the time shard 0 set (startLead after the last arrival, or the run's StartAt
// if later). It fails at once when a shard that has not arrived gave no sign of life (its
// heartbeat) for the shard timeout. It waits for the others at most the shard timeout plus
// extra (what the others may take longer: a step only shard 0 does before it, this shard's
// step), liveFactor times that while each of them beats, and until ctx ends; then it fails,
// naming the shards that did not arrive. A Meet that fails once the shard has arrived (a wait
// that ends, a statement that fails, an interrupt) marks the shard's row given up, so that the
// others fail at once instead of waiting for a start that shard 0 will not set.
func (b *Barrier) Meet(ctx context.Context, step string, extra time.Duration) error {
	key := b.config + "/" + step
	if err := b.arrive(ctx, key); err != nil {
		return err
	}
	if err := b.wait(ctx, key, step, extra); err != nil {
		return errors.Join(err, b.mark(key))
	}
	return nil
}

// wait is Meet's wait at key, once the shard has arrived.
func (b *Barrier) wait(ctx context.Context, key, step string, extra time.Duration) error {
	arrived := time.Now()
	for {
		rows, err := b.read(ctx, key)
		if err != nil {
			return err
		}
		if err := gaveUp(rows, b.shard.Index, step); err != nil {
			return err
		}
		start, done, err := b.startOf(ctx, key, rows)
		if err != nil {
			return err
		}
		if done {
			return runner.SystemClock().SleepUntil(ctx, start)
		}
		if err := b.overdue(ctx, step, rows, time.Since(arrived), extra); err != nil {
			return err
		}
		if err := runner.SystemClock().SleepUntil(ctx, time.Now().Add(pollEvery)); err != nil {
			return err // interrupted: Meet marks the row, and the others need not wait for this shard
		}
	}
}

// arrive records the shard's arrival at key.
func (b *Barrier) arrive(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	err := b.board.arrive(ctx, key, b.shard.Index, time.Now().UnixMilli(), false)
	switch {
	case errors.Is(err, errArrived):
		return fmt.Errorf("shard barrier: run %q already has shard %d's arrival at %s in %s: give each run its own --shard-run",
			b.shard.Run, b.shard.Index, key, BarrierTable)
	case err != nil:
		return fmt.Errorf("shard barrier at %s: record the arrival: %w", key, err)
	}
	return nil
}

// read returns the rows of key.
func (b *Barrier) read(ctx context.Context, key string) ([]arrival, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	rows, err := b.board.arrivals(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("shard barrier at %s: read the arrivals: %w", key, err)
	}
	return rows, nil
}

// gaveUp returns the error of a step that another shard left: it gave up waiting for the
// others, or will not come (Leave).
func gaveUp(rows []arrival, self int, step string) error {
	for _, a := range rows {
		if a.gaveUp.Valid && a.shard != self {
			return fmt.Errorf("shard barrier before %s: shard %d left the run (it gave up waiting for the others, failed or was interrupted): the step fails for every shard", step, a.shard)
		}
	}
	return nil
}

// leaveTimeout bounds Leave's one statement.
const leaveTimeout = 10 * time.Second

// Leave records, best effort, that the shard will not come to step: a row given up at once.
func (b *Barrier) Leave(step string) {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	b.board.arrive(ctx, b.config+"/"+step, b.shard.Index, time.Now().UnixMilli(), true)
}

// mark marks the shard's row of key given up; the error is the statement's.
func (b *Barrier) mark(key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	return b.board.markGaveUp(ctx, key, b.shard.Index, time.Now().UnixMilli())
}

// startOf returns the step's start once every shard has arrived and shard 0 has set it (done);
// shard 0 sets it when it sees every arrival.
func (b *Barrier) startOf(ctx context.Context, key string, rows []arrival) (start time.Time, done bool, err error) {
	if len(missing(rows, b.shard.Count)) > 0 {
		return time.Time{}, false, nil
	}
	for _, a := range rows {
		if a.shard == 0 && a.startAt.Valid {
			return time.UnixMilli(a.startAt.Int64), true, nil
		}
	}
	if !b.shard.Leader() {
		return time.Time{}, false, nil
	}
	start = time.Now().Add(startLead)
	if b.shard.StartAt.After(start) {
		start = b.shard.StartAt
	}
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	if err := b.board.setStart(ctx, key, start.UnixMilli()); err != nil {
		return time.Time{}, false, fmt.Errorf("shard barrier at %s: set the start: %w", key, err)
	}
	return time.UnixMilli(start.UnixMilli()), true, nil
}

// overdue returns the error of a wait at step (rows read) that must end, having waited so far:
// a shard that has not arrived and gave no sign of life for the shard timeout, or a wait
// beyond its bound (judge); nil while the wait goes on.
func (b *Barrier) overdue(ctx context.Context, step string, rows []arrival, waited, extra time.Duration) error {
	miss := missing(rows, b.shard.Count)
	var ages map[int]time.Duration
	if len(miss) > 0 {
		var err error
		if ages, err = b.alive.ages(ctx); err != nil {
			return err
		}
	}
	v := judge(miss, ages, b.shard.Timeout, extra)
	var what string
	switch {
	case len(v.dead) > 0:
		what = fmt.Sprintf("shard %s gave no sign of life for %v (its heartbeat in %s)", shardList(v.dead, b.shard.Count), b.shard.Timeout, AliveTable)
	case waited <= v.bound:
		return nil
	case len(miss) == 0:
		what = fmt.Sprintf("shard 0 did not set the start within %v", v.bound)
	case v.alive:
		what = fmt.Sprintf("shard %s did not arrive within %v, though alive (the longest wait for a live shard: %d times the shard timeout and the step's time)",
			shardList(miss, b.shard.Count), v.bound, liveFactor)
	default:
		what = fmt.Sprintf("shard %s did not arrive within %v", shardList(miss, b.shard.Count), v.bound)
	}
	return fmt.Errorf("shard barrier before %s (run %q, table %s): %s: the step fails for every shard",
		step, b.shard.Run, BarrierTable, what)
}

// missing returns the shards of n that have no row among rows, in order.
func missing(rows []arrival, n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		if !slices.ContainsFunc(rows, func(a arrival) bool { return a.shard == i }) {
			out = append(out, i)
		}
	}
	return out
}

// shardList returns "1, 2 of 3": the shards of a run of n.
func shardList(shards []int, n int) string {
	names := make([]string, len(shards))
	for i, s := range slices.Sorted(slices.Values(shards)) {
		names[i] = fmt.Sprint(s)
	}
	return fmt.Sprintf("%s of %d", strings.Join(names, ", "), n)
}
