package runner

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// waitingClock is a ManualClock that reports the time of every WaitUntil on waits before it
// waits: a test sees the watchdog's deadline without anyone sleeping.
type waitingClock struct {
	*ManualClock
	waits chan time.Time
}

func newWaitingClock() waitingClock { return waitingClock{NewManualClock(t0), make(chan time.Time)} }

func (c waitingClock) WaitUntil(ctx context.Context, t time.Time) error {
	select {
	case c.waits <- t:
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.ManualClock.WaitUntil(ctx, t)
}

// expectWait receives the watchdog's next deadline and checks that it is want.
func (c waitingClock) expectWait(t *testing.T, want time.Time) {
	t.Helper()
	if got := <-c.waits; !got.Equal(want) {
		t.Fatalf("the watchdog waits until %v, want %v", got.Sub(t0), want.Sub(t0))
	}
}

const stallLimit = 5 * time.Minute

// runAsync runs s on r in a goroutine; the result comes on the channel.
func runAsync(ctx context.Context, r *Runner, s Step) <-chan *result.Step {
	got := make(chan *result.Step, 1)
	go func() { got <- r.Run(ctx, s) }()
	return got
}

// A step whose workers stop completing operations (a frozen server) fails once nothing
// completed for the limit of virtual time, counted from the last operation of any client, and
// its workers' contexts are cancelled with the stall as their cause.
func TestStallFailsAStepThatStopsProgressing(t *testing.T) {
	c := newWaitingClock()
	proceed, did := make(chan struct{}), make(chan struct{})
	causes := make(chan error, 2)
	blocked := func(ctx context.Context) error {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return ctx.Err()
	}
	workers := []Worker{
		{Client: 0, Run: func(ctx context.Context, rec *Recorder) error {
			<-proceed
			rec.Do(0, time.Time{}, func() (int64, error) { c.Advance(2 * time.Minute); return 1, nil })
			close(did)
			return blocked(ctx) // the server froze
		}},
		// An engine call on the operation context is cancelled too, and, the stall being the
		// engine's, counts as an error.
		{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
			return rec.Do(0, time.Time{}, func() (int64, error) { return 0, blocked(rec.OpContext()) })
		}},
	}
	end := &endSampler{}
	r := &Runner{Clock: c, Tick: time.Hour, StallTimeout: stallLimit, Config: "innodb", Samplers: []Sampler{end}}
	got := runAsync(context.Background(), r, Step{Name: "l.i1", Ops: []OpSpec{{Name: "insert"}}, Workers: workers})

	c.expectWait(t, t0.Add(stallLimit)) // nothing yet: the limit from the step's start
	close(proceed)
	<-did
	c.Advance(3 * time.Minute)             // t0+5m: the first deadline, 3 minutes after the operation
	c.expectWait(t, t0.Add(7*time.Minute)) // so it waits until 5 minutes after the operation
	c.Advance(2 * time.Minute)             // t0+7m
	res := <-got
	if res.Status != result.StatusFailed || res.Error != "innodb stalled: nothing completed for 5m0s" {
		t.Fatalf("status %q, error %q: want failed with the stall", res.Status, res.Error)
	}
	if ins := res.Ops["insert"]; res.Seconds != 420 || ins.Count != 1 || ins.Errors != 1 {
		t.Errorf("seconds %v, inserts %d, errors %d: want 420 s (until the stall), 1 and the stalled one", res.Seconds, ins.Count, ins.Errors)
	}
	for range 2 {
		var se *StallError
		if cause := <-causes; !errors.As(cause, &se) || se.For != stallLimit {
			t.Errorf("a worker's context was cancelled with cause %v, want the stall", cause)
		}
	}
	// The samplers' End knows that the engine stopped answering.
	if se := (*StallError)(nil); !errors.As(end.cause, &se) || end.err == nil {
		t.Errorf("the samplers' End got a context with error %v and cause %v, want done with the stall", end.err, end.cause)
	}
}

// endSampler records the context its End gets.
type endSampler struct{ err, cause error }

func (s *endSampler) Begin(context.Context, time.Time) {}

func (s *endSampler) Sample(context.Context, time.Time) map[string]float64 { return nil }

func (s *endSampler) End(ctx context.Context, _ time.Time, _ *result.Step) {
	s.err, s.cause = ctx.Err(), context.Cause(ctx)
}

// A slow step that keeps completing operations, each shorter than the limit, never stalls,
// however long it lasts; a background client that completes nothing does not stall it either.
func TestSlowProgressIsNoStall(t *testing.T) {
	c := NewManualClock(t0)
	workers := []Worker{
		{Client: 0, Run: func(ctx context.Context, rec *Recorder) error {
			for range 10 {
				if err := rec.Do(0, time.Time{}, func() (int64, error) { c.Advance(4 * time.Minute); return 1, nil }); err != nil {
					return err
				}
			}
			return nil
		}},
		{Client: 1, Background: true, Run: func(ctx context.Context, rec *Recorder) error {
			<-ctx.Done()
			return ctx.Err()
		}},
	}
	end := &endSampler{}
	r := &Runner{Clock: c, Tick: time.Hour, StallTimeout: stallLimit, Samplers: []Sampler{end}}
	res := r.Run(context.Background(), Step{Name: "slow", Ops: []OpSpec{{Name: "insert"}}, Workers: workers})
	if res.Status != result.StatusOK || res.Ops["insert"].Count != 10 || res.Seconds != 2400 {
		t.Fatalf("status %q (%s), inserts %d, seconds %v: want ok, 10, 2400", res.Status, res.Error,
			res.Ops["insert"].Count, res.Seconds)
	}
	if end.err != nil {
		t.Errorf("the samplers' End got a context that is done (%v): the step did not stall", end.cause)
	}
}

// Failed operations are no progress: a worker whose every operation fails (a retry loop, an
// engine that refuses every write) stalls the step, and the error says for how long nothing
// completed, which can be more than the limit.
func TestFailingOperationsAreNoProgress(t *testing.T) {
	c := NewManualClock(t0)
	workers := []Worker{{Run: func(ctx context.Context, rec *Recorder) error {
		for range 3 {
			rec.Do(0, time.Time{}, func() (int64, error) { c.Advance(2 * time.Minute); return 0, errors.New("no space left on device") })
		}
		<-ctx.Done()
		return ctx.Err()
	}}}
	r := &Runner{Clock: c, Tick: time.Hour, StallTimeout: stallLimit, Config: "pebble"}
	res := r.Run(context.Background(), Step{Name: "l.i0", Ops: []OpSpec{{Name: "insert"}}, Workers: workers})
	if res.Status != result.StatusFailed || res.Error != "pebble stalled: nothing completed for 6m0s" {
		t.Fatalf("status %q, error %q: want failed, stalled for 6m0s", res.Status, res.Error)
	}
	if res.Ops["insert"].Errors != 3 {
		t.Errorf("errors %d, want 3", res.Ops["insert"].Errors)
	}
}

// Workers that do not return once cancelled (stuck in an engine call that ignores its
// context) are left behind after the limit again, so that Run returns and the engine can be
// closed: after a stall (the step failed) and after an interrupt (the step interrupted).
func TestStuckWorkersAreLeftBehind(t *testing.T) {
	for _, interrupt := range []bool{false, true} {
		name := map[bool]string{false: "stall", true: "interrupt"}[interrupt]
		t.Run(name, func(t *testing.T) {
			c := newWaitingClock()
			release := make(chan struct{})
			defer close(release)
			stuck := func(ctx context.Context, rec *Recorder) error { <-release; return nil }
			workers := []Worker{{Client: 1, Run: stuck}, {Client: 1, Background: true, Run: stuck}, {Client: 2, Run: stuck}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &Runner{Clock: c, Tick: time.Hour, StallTimeout: stallLimit, Config: "innodb"}
			got := runAsync(ctx, r, Step{Name: "l.i1", Ops: []OpSpec{{Name: "insert"}}, Workers: workers})
			c.expectWait(t, t0.Add(stallLimit))
			wantStatus, wantErr, wantSecs := result.StatusInterrupted, "interrupted", 300.0
			if interrupt {
				cancel()
			} else {
				c.Advance(stallLimit)                 // the stall: the workers are cancelled
				c.expectWait(t, t0.Add(2*stallLimit)) // then waited for, as long again
				wantStatus, wantErr, wantSecs = result.StatusFailed, "innodb stalled: nothing completed for 5m0s", 600
			}
			c.Advance(stallLimit)
			res := <-got
			if res.Status != wantStatus || res.Error != wantErr || res.Seconds != wantSecs {
				t.Fatalf("status %q, error %q, seconds %v: want %q, %q, %v", res.Status, res.Error, res.Seconds,
					wantStatus, wantErr, wantSecs)
			}
			want := "3 of the step's 3 workers (clients 1, 2) did not return once cancelled, and nothing progressed for 5m0s"
			if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], want) {
				t.Errorf("notes %q, want one that starts %q", res.Notes, want)
			}
		})
	}
}

// The step's own limit replaces the runner's; a negative one turns the watchdog off.
func TestStallLimitOfAStep(t *testing.T) {
	r := &Runner{StallTimeout: stallLimit}
	for _, c := range []struct{ step, want time.Duration }{{0, stallLimit}, {time.Hour, time.Hour}, {-1, 0}} {
		if got := r.stallLimit(&Step{StallTimeout: c.step}); got != c.want {
			t.Errorf("step limit %v: %v, want %v", c.step, got, c.want)
		}
	}
	if got := (&Runner{}).stallLimit(&Step{}); got != 0 {
		t.Errorf("no limit anywhere: %v, want 0 (off)", got)
	}
}

// Watch cancels its context with a stall as the cause once beat has not been called for the
// limit, counting from the last beat.
func TestWatch(t *testing.T) {
	c := newWaitingClock()
	ctx, beat, stop := Watch(context.Background(), c, stallLimit, "verification on innodb")
	defer stop()
	c.expectWait(t, t0.Add(stallLimit))
	c.Advance(3 * time.Minute)
	beat()
	c.Advance(2 * time.Minute)
	c.expectWait(t, t0.Add(8*time.Minute))
	if ctx.Err() != nil {
		t.Fatalf("cancelled at %v, 2 minutes after a beat", c.Now().Sub(t0))
	}
	c.Advance(3 * time.Minute)
	<-ctx.Done()
	var se *StallError
	cause := context.Cause(ctx)
	if !errors.As(cause, &se) || cause.Error() != "verification on innodb stalled: nothing completed for 5m0s" {
		t.Fatalf("cause %v, want the stall", cause)
	}
	if Interrupted(ctx) {
		t.Error("a stall is no interrupt")
	}
}

// A step that an error ends outside the runner is interrupted when the run's context was
// interrupted, whatever the error says; failed when it was not, or when something other than
// an interrupt (a stall, a deadline) cancelled it.
func TestEnded(t *testing.T) {
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	stalled, cancelStall := context.WithCancelCause(context.Background())
	cancelStall(&StallError{What: "innodb", For: stallLimit})
	expired, cancelExpired := context.WithDeadline(context.Background(), t0)
	defer cancelExpired()
	broken := errors.New("create table pi1: invalid connection")
	for _, c := range []struct {
		name       string
		ctx        context.Context
		status, er string
	}{
		{"interrupted", interrupted, result.StatusInterrupted, "interrupted"},
		{"running", context.Background(), result.StatusFailed, broken.Error()},
		{"stalled", stalled, result.StatusFailed, broken.Error()},
		{"deadline", expired, result.StatusFailed, broken.Error()},
	} {
		st := Ended(c.ctx, "l.i0", t0, broken)
		if st.Status != c.status || st.Error != c.er || st.Name != "l.i0" || !st.StartedAt.Equal(t0) {
			t.Errorf("%s: %+v, want status %q, error %q", c.name, st, c.status, c.er)
		}
	}
}

// A worker whose engine call reports the interrupt as an error of its own (a driver's broken
// connection) leaves the step interrupted, not failed; a run context cancelled with a cause
// of its own fails the step with that cause.
func TestStepStatusOnCancel(t *testing.T) {
	t.Run("interrupt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		w := Worker{Run: func(ctx context.Context, rec *Recorder) error {
			close(started)
			<-ctx.Done()
			return errors.New("invalid connection")
		}}
		got := runAsync(ctx, &Runner{Clock: NewManualClock(t0), Tick: time.Hour}, Step{Name: "l.i0", Ops: []OpSpec{{Name: "insert"}}, Workers: []Worker{w}})
		<-started
		cancel()
		if res := <-got; res.Status != result.StatusInterrupted || res.Error != "interrupted" {
			t.Errorf("status %q, error %q: want interrupted", res.Status, res.Error)
		}
	})
	t.Run("cause", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&StallError{What: "verification", For: stallLimit})
		w := Worker{Run: func(ctx context.Context, rec *Recorder) error { return ctx.Err() }}
		res := (&Runner{Clock: NewManualClock(t0), Tick: time.Hour}).Run(ctx, Step{Name: "l.i0", Ops: []OpSpec{{Name: "insert"}}, Workers: []Worker{w}})
		if res.Status != result.StatusFailed || res.Error != "verification stalled: nothing completed for 5m0s" {
			t.Errorf("status %q, error %q: want failed with the cause", res.Status, res.Error)
		}
	})
}

// WaitUntil waits for another goroutine to move the clock to its time, and never moves it.
func TestManualClockWaitUntil(t *testing.T) {
	c := NewManualClock(t0)
	woke := make(chan error)
	go func() { woke <- c.WaitUntil(context.Background(), t0.Add(2*time.Second)) }()
	for waiters(c) == 0 {
		runtime.Gosched()
	}
	c.Advance(time.Second)
	if waiters(c) != 1 || !c.Now().Equal(t0.Add(time.Second)) {
		t.Fatalf("after 1 s of 2: %d waiters, clock at %v", waiters(c), c.Now().Sub(t0))
	}
	if err := c.SleepUntil(context.Background(), t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil || !c.Now().Equal(t0.Add(2*time.Second)) {
		t.Fatalf("woke with %v at %v", err, c.Now().Sub(t0))
	}
	if err := c.WaitUntil(context.Background(), t0); err != nil {
		t.Errorf("a time already past: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { woke <- c.WaitUntil(ctx, t0.Add(time.Hour)) }()
	for waiters(c) == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-woke; !errors.Is(err, context.Canceled) || waiters(c) != 0 {
		t.Errorf("cancelled: %v, %d waiters left", err, waiters(c))
	}
}

func waiters(c *ManualClock) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// The operation context outlives the step's normal end, so that an operation in flight then
// completes; it ends with the step.
func TestOpContextAtTheNormalEnd(t *testing.T) {
	var atEnd error
	clock := NewManualClock(t0)
	w := Worker{Run: func(ctx context.Context, rec *Recorder) error {
		clock.Advance(time.Minute)
		<-ctx.Done() // the step's Duration has passed
		atEnd = rec.OpContext().Err()
		return ctx.Err()
	}}
	var op context.Context
	b := Worker{Background: true, Run: func(ctx context.Context, rec *Recorder) error {
		op = rec.OpContext()
		<-ctx.Done()
		return ctx.Err()
	}}
	res := (&Runner{Clock: clock, Tick: time.Hour}).Run(context.Background(),
		Step{Name: "qr100", Ops: []OpSpec{{Name: "query"}}, Workers: []Worker{w, b}, Duration: time.Minute})
	if res.Status != result.StatusOK || atEnd != nil {
		t.Fatalf("status %q, operation context at the step's end: %v, want ok and not cancelled", res.Status, atEnd)
	}
	if op.Err() == nil {
		t.Error("the operation context outlives Run")
	}
}
