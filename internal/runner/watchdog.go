package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// StallError is the error of a step, or of work watched by Watch, in which nothing progressed
// for a limit: the engine stopped answering (a frozen server, a lock never granted, a write
// stall that never ends).
type StallError struct {
	// What names what stalled: the runner's engine configuration (Runner.Config), or the work
	// given to Watch.
	What string
	// For is how long nothing progressed: the limit, or a little more.
	For time.Duration
}

func (e *StallError) Error() string {
	what := e.What
	if what == "" {
		what = "the engine"
	}
	return fmt.Sprintf("%s stalled: nothing completed for %v", what, roundIdle(e.For))
}

// roundIdle rounds a time without progress for a message: to the second from a second on.
func roundIdle(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d
}

// Interrupted reports whether ctx was interrupted: cancelled with no cause of its own
// (context.Canceled), rather than by a deadline or with a cause such as a *StallError.
func Interrupted(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled)
}

// Ended returns the result of a step that err ended outside Runner.Run (in its setup, its
// probe, its verification): interrupted when ctx was interrupted, since err is then the
// interrupt's doing whatever it says (a driver may report a cancelled statement as a broken
// connection); failed with err otherwise.
func Ended(ctx context.Context, name string, start time.Time, err error) *result.Step {
	st := &result.Step{Name: name, Status: result.StatusFailed, StartedAt: start}
	if err != nil {
		st.Error = err.Error()
	}
	if Interrupted(ctx) {
		st.Status, st.Error = result.StatusInterrupted, "interrupted"
	}
	return st
}

// Watch bounds work outside a step's operations (a setup, a verification, a cleanup's
// statements) by the rule of the runner's watchdog: it returns a context derived from ctx
// that is cancelled, with a *StallError naming what as its cause (context.Cause), once beat
// has not been called for limit on clock, counting from the call to Watch. The work passes
// the context to its calls and calls beat whenever it progresses (a batch read, a statement
// done, the engine seen at work); beat is safe for concurrent use. stop releases the watchdog
// and cancels the context. A limit of 0 or less never stalls.
func Watch(ctx context.Context, clock Clock, limit time.Duration, what string) (wctx context.Context, beat, stop func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	stop = func() { cancel(nil) }
	if limit <= 0 {
		return wctx, func() {}, stop
	}
	var last atomic.Int64
	last.Store(clock.Now().UnixNano())
	beat = func() { last.Store(clock.Now().UnixNano()) }
	go func() {
		idle, err := watchStall(wctx, clock, limit, func() time.Time { return time.Unix(0, last.Load()) })
		if err == nil {
			cancel(&StallError{What: what, For: idle})
		}
	}()
	return wctx, beat, stop
}

// watchStall waits until nothing progressed for limit on clock, that is until the time that
// last returns (of the latest progress) is limit or more in the past, and returns how long
// nothing progressed then; or ctx's error when ctx ends first. It waits with WaitUntil, so it
// never moves a virtual clock.
func watchStall(ctx context.Context, clock Clock, limit time.Duration, last func() time.Time) (time.Duration, error) {
	for {
		// Now before last: a progress after the reading of now makes the idle time shorter,
		// never longer.
		now := clock.Now()
		l := last()
		if idle := now.Sub(l); idle >= limit {
			return idle, nil
		}
		if err := clock.WaitUntil(ctx, l.Add(limit)); err != nil {
			return 0, err
		}
	}
}

// stepWatch is the stall watchdog of a step run by Run: progress is the latest of its workers'
// progress (Recorder.last: an operation that succeeded, a Heartbeat, a return) and of base.
type stepWatch struct {
	clock  Clock
	limit  time.Duration
	recs   []*Recorder
	base   atomic.Int64 // Unix nanoseconds: the step's start, then the time of the last stall
	stalls chan time.Duration
}

// last returns the time of the step's latest progress.
func (w *stepWatch) last() time.Time { return lastProgress(w.base.Load(), w.recs) }

// lastProgress returns the latest of base (Unix nanoseconds) and the recorders' last progress.
func lastProgress(base int64, recs []*Recorder) time.Time {
	for _, rec := range recs {
		base = max(base, rec.last.Load())
	}
	return time.Unix(0, base)
}

// run reports each stall on w.stalls until ctx is done; after one it counts from the time it
// reported it.
func (w *stepWatch) run(ctx context.Context) {
	for {
		idle, err := watchStall(ctx, w.clock, w.limit, w.last)
		if err != nil {
			return
		}
		// Before the report: what follows it (the workers cancelled) must count from here.
		w.base.Store(w.clock.Now().UnixNano())
		select {
		case w.stalls <- idle:
		case <-ctx.Done():
			return
		}
	}
}
