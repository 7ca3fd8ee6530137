package shard

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// AliveTable holds the heartbeat of every shard of a run (docs/scale-out.md, The barrier): a
// row per run and shard whose alive_at the shard sets to the database server's time every few
// seconds while it runs a configuration, so that a shard waiting at a barrier tells a dead or
// cut-off shard (no beat for the shard timeout) from a live one that is slower.
const AliveTable = "enginebench_alive"

// liveFactor is how many times longer than a shard that never gave a sign of life a waiting
// shard waits at a barrier for one that beats: ten times the shard timeout and the extra
// wait (the other shard's step may take longer than this one's). A shard that beats but never
// comes (hung with its stall watchdog off) still cannot hold the others for ever.
const liveFactor = 10

// beatEvery returns how often a shard beats with shard timeout: a fifth of it, between 100
// milliseconds and 5 seconds, so that a live shard beats several times within the timeout.
func beatEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/5, 100*time.Millisecond), 5*time.Second)
}

// beatTimeout bounds one beat's statement: a beat that takes longer is a beat missed.
func beatTimeout(every time.Duration) time.Duration { return max(every, time.Second) }

// heartbeat is a shard's beat: it sets the shard's alive_at every few seconds on its own
// connection, from its own goroutine, until stopped.
type heartbeat struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startHeartbeat calls beat every interval on clock (waiting with WaitUntil, so that it never
// makes a virtual clock move) until stop; each call gets a context bounded by timeout. The
// first beat that fails is logged (once): a beat missed is not fatal by itself, the other
// shards judge the beats.
func startHeartbeat(clock runner.Clock, every, timeout time.Duration, beat func(context.Context) error, log func(error)) *heartbeat {
	ctx, cancel := context.WithCancel(context.Background())
	h := &heartbeat{cancel: cancel, done: make(chan struct{})}
	first := clock.Now().Add(every)
	go func() {
		defer close(h.done)
		logged := false
		for next := first; clock.WaitUntil(ctx, next) == nil; {
			bctx, bcancel := context.WithTimeout(ctx, timeout)
			err := beat(bctx)
			bcancel()
			if err != nil && ctx.Err() == nil && !logged {
				log(err)
				logged = true
			}
			next = next.Add(every)
			if now := clock.Now(); next.Before(now) { // beats missed: one now, no burst
				next = now
			}
		}
	}()
	return h
}

// stop ends the heartbeat and waits for its goroutine.
func (h *heartbeat) stop() {
	h.cancel()
	<-h.done
}

// alive is a shard's heartbeat in AliveTable, and what it reads of the other shards' beats.
type alive struct {
	b     board
	shard Shard
	h     *heartbeat
}

// startAlive creates AliveTable on b unless it is there (another shard may create it at the
// same time), records shard s's first beat and starts its heartbeat (on clock, every beatEvery
// of the shard timeout), which stop ends; failures to beat later are logged on log once.
func startAlive(ctx context.Context, b board, s Shard, clock runner.Clock, log io.Writer) (*alive, error) {
	a := &alive{b: b, shard: s}
	if err := b.createAlive(ctx); err != nil {
		return nil, err
	}
	if err := b.firstBeat(ctx, s.Index); err != nil {
		return nil, fmt.Errorf("shard barrier: record the shard's heartbeat in %s: %w", AliveTable, err)
	}
	every := beatEvery(s.Timeout)
	beat := func(ctx context.Context) error { return b.beat(ctx, s.Index) }
	a.h = startHeartbeat(clock, every, beatTimeout(every), beat, func(err error) {
		fmt.Fprintf(log, "\nenginebench: shard %d of %d: the heartbeat in %s failed (%v); it goes on, and the other shards fail at a barrier if it gives no sign of life for %v\n",
			s.Index, s.Count, AliveTable, err, s.Timeout)
	})
	return a, nil
}

// stop ends the shard's heartbeat and returns what its beats held.
func (a *alive) stop() {
	a.h.stop()
	a.b.close()
}

// ages returns the time since the last beat of each shard of the run that has beaten, by
// shard, on the server's clock.
func (a *alive) ages(ctx context.Context) (map[int]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	ms, err := a.b.ages(ctx)
	if err != nil {
		return nil, fmt.Errorf("shard barrier: read the heartbeats: %w", err)
	}
	out := make(map[int]time.Duration, len(ms))
	for shard, age := range ms {
		out[shard] = time.Duration(age) * time.Millisecond
	}
	return out, nil
}

// verdict is what a waiting shard makes of the shards that have not arrived.
type verdict struct {
	dead  []int         // shards that beat once but not for the timeout: fail now
	bound time.Duration // the longest wait for the others, from the arrival
	alive bool          // every missing shard beats: bound is the live one
}

// judge returns the verdict on the shards miss that have not arrived, given the age of each
// shard's last beat (ages: absent when it never beat): a shard that beat but not within
// timeout is dead; the others are waited for timeout+extra from the arrival when one of them
// never beat (it never came), liveFactor times that when every one beats.
func judge(miss []int, ages map[int]time.Duration, timeout, extra time.Duration) verdict {
	v := verdict{bound: timeout + extra, alive: len(miss) > 0}
	for _, m := range miss {
		age, ok := ages[m]
		switch {
		case !ok:
			v.alive = false
		case age > timeout:
			v.dead = append(v.dead, m)
			v.alive = false
		}
	}
	if v.alive {
		v.bound *= liveFactor
	}
	return v
}
