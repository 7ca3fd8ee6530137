package workload

import (
	"context"
	"errors"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// Phase is work of a step outside the runner's loop (a setup, a verification, statements
// between steps) under the stall watchdog of the run's runner: see Env.Watch.
type Phase struct {
	// Ctx is the context of the phase's engine calls: the watchdog cancels it, with a
	// *runner.StallError as its cause, once nothing progressed for the stall limit.
	Ctx context.Context
	// Beat tells the watchdog that the phase progresses (a statement answered, a batch of rows
	// read); safe for concurrent use.
	Beat  func()
	stop  func()
	alive func() // stops the keep-alive, if any
}

// Watch starts the stall watchdog of env's runner (Runner.StallTimeout on its clock; none when
// 0) over a phase of the configuration's work named what ("verification after l.i0"): see
// runner.Watch. A stall's error names the configuration and the phase. With keepAlive, the
// phase's statements may each be long by nature (a count of a large table): the phase then
// also progresses whenever the engine answers a ping (KeepAlive), and on an engine in this
// process, which has nothing to ping, it is not watched (as Env.LongOps). Stop ends the phase.
func (env Env) Watch(ctx context.Context, eng engine.Engine, what string, keepAlive bool) *Phase {
	r := env.Runner
	clock := r.Clock
	if clock == nil {
		clock = runner.SystemClock()
	}
	name := what
	if r.Config != "" {
		name = r.Config + " (" + what + ")"
	}
	limit := r.StallTimeout
	var ping func(context.Context) error
	if keepAlive {
		if ping = Pinger(eng); ping == nil {
			limit = 0
		}
	}
	p := &Phase{}
	p.Ctx, p.Beat, p.stop = runner.Watch(ctx, clock, limit, name)
	p.alive = KeepAlive(p.Ctx, clock, ping, limit, p.Beat)
	return p
}

// Stop releases the phase's watchdog and cancels Ctx.
func (p *Phase) Stop() {
	p.alive()
	p.stop()
}

// Err returns err, the error of an engine call of the phase, or the *runner.StallError of the
// watchdog when it cut the phase short (err is then its doing: a cancelled statement, a cut
// connection). A nil err stays nil.
func (p *Phase) Err(err error) error {
	if err == nil {
		return nil
	}
	if se := Stall(p.Ctx); se != nil {
		return se
	}
	return err
}

// Stall returns the *runner.StallError that cancelled ctx, or nil.
func Stall(ctx context.Context) error {
	var se *runner.StallError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	return nil
}

// Pinger returns the function that asks eng's server for a round trip (a ping on a connection
// of its pool), or nil when eng runs inside this process and has nothing to ask.
func Pinger(eng engine.Engine) func(ctx context.Context) error {
	db, ok := eng.(sqldb.DB)
	if _, server := eng.(engine.Server); !ok || !server {
		return nil
	}
	return func(ctx context.Context) error { return db.SQL().PingContext(ctx) }
}

// maxPingEvery bounds the time between two pings of KeepAlive.
const maxPingEvery = 10 * time.Second

// KeepAlive calls beat every time the engine answers ping, pinging every quarter of limit (at
// most every maxPingEvery) on clock, each ping bounded by that period, until ctx ends or the
// returned stop is called (which waits for the pinger to end). It keeps the stall watchdog from
// failing work whose one operation is long by nature (an index build, a full count, the
// cleanup's wait) while the engine answers; a frozen server answers no ping, and the watchdog
// fires. With a nil ping or a limit of 0 or less it does nothing.
func KeepAlive(ctx context.Context, clock runner.Clock, ping func(context.Context) error, limit time.Duration, beat func()) (stop func()) {
	if ping == nil || limit <= 0 {
		return func() {}
	}
	every := min(limit/4, maxPingEvery)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for next := clock.Now().Add(every); ; next = next.Add(every) {
			if clock.SleepUntil(ctx, next) != nil {
				return
			}
			pctx, pcancel := context.WithTimeout(ctx, every)
			err := ping(pctx)
			pcancel()
			if err == nil {
				beat()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// LongOps readies step s, run on eng by env's runner, whose operations are each long by nature
// (an index build, a full count, the cleanup's wait): each worker keeps the step's stall
// watchdog fed while the engine answers pings (KeepAlive, cancelled with the worker's
// Recorder.OpContext); on an engine in this process, which has nothing to ping, the step has
// no watchdog. Workers should pass Recorder.OpContext to their engine calls, so that a stall
// cuts a statement stuck on a frozen server.
func (env Env) LongOps(s *runner.Step, eng engine.Engine) {
	ping := Pinger(eng)
	if ping == nil {
		s.StallTimeout = -1
		return
	}
	limit := s.StallTimeout
	if limit == 0 {
		limit = env.Runner.StallTimeout
	}
	clock := env.Runner.Clock
	if clock == nil {
		clock = runner.SystemClock()
	}
	for i := range s.Workers {
		run := s.Workers[i].Run
		s.Workers[i].Run = func(ctx context.Context, rec *runner.Recorder) error {
			stop := KeepAlive(rec.OpContext(), clock, ping, limit, rec.Heartbeat)
			defer stop()
			return run(ctx, rec)
		}
	}
}
