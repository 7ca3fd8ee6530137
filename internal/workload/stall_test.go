package workload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/runner"
)

// TestKeepAlive watches a phase with a keep-alive on a manual clock, which only the keep-alive
// moves (a quarter of the limit before each ping): while the engine answers, the phase never
// stalls, however much time passes; once it stops answering, the watchdog fires when nothing
// progressed for the limit, with a stall that names the phase, and the keep-alive ends.
func TestKeepAlive(t *testing.T) {
	const limit = 40 * time.Second // a ping every 10 s
	clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	start := clock.Now()
	env := Env{Runner: &runner.Runner{Clock: clock, StallTimeout: limit, Config: "innodb"}}
	ph := env.Watch(context.Background(), nil, "verification after l.i0", false)
	defer ph.Stop()
	answers := make(chan bool)
	ping := func(ctx context.Context) error {
		select {
		case ok := <-answers:
			if ok {
				return nil
			}
			return errors.New("no answer")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	stop := KeepAlive(ph.Ctx, clock, ping, limit, ph.Beat)
	for range 8 { // twice the limit passes, each ping answered
		answers <- true
	}
	if err := ph.Ctx.Err(); err != nil || clock.Now().Sub(start) < 2*limit {
		t.Fatalf("after 8 answered pings at %v: %v (%v), want the phase going on after %v", clock.Now().Sub(start), err, context.Cause(ph.Ctx), 2*limit)
	}
	for range 3 { // the fourth ping is not reached: the watchdog fires before it
		answers <- false
	}
	<-ph.Ctx.Done()
	stop()
	want := "innodb (verification after l.i0) stalled: nothing completed for 40s"
	if err := ph.Err(errors.New("invalid connection")); err == nil || err.Error() != want {
		t.Errorf("phase error %v, want %q", err, want)
	}
	if err := ph.Err(nil); err != nil {
		t.Errorf("a call that succeeded has error %v after the stall", err)
	}
}

// TestLongOpsWithoutServer leaves a step of long operations on an engine in this process,
// which has nothing to ping, without a stall watchdog (insertbench's TestFrozenServer runs
// them on a server).
func TestLongOpsWithoutServer(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{Name: "null", Engine: "null"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if Pinger(eng) != nil {
		t.Fatal("the null engine has a pinger")
	}
	env := Env{Runner: &runner.Runner{StallTimeout: time.Minute}}
	s := runner.Step{Name: "l.x", Workers: []runner.Worker{{Run: func(context.Context, *runner.Recorder) error { return nil }}}}
	env.LongOps(&s, eng)
	if s.StallTimeout >= 0 {
		t.Errorf("step stall limit %v, want none (< 0)", s.StallTimeout)
	}
}
