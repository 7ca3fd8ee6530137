package runner

import (
	"context"
	"sync"
	"time"
)

// SystemClock returns the real clock: time.Now, and SleepUntil with a timer.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// WaitUntil is SleepUntil: real time passes by itself.
func (c systemClock) WaitUntil(ctx context.Context, t time.Time) error { return c.SleepUntil(ctx, t) }

func (systemClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ManualClock is a virtual clock for tests: it stands still until Advance moves it, and
// SleepUntil moves it forward to the wake-up time at once instead of waiting. WaitUntil waits
// until Advance or SleepUntil (of another goroutine) has moved it far enough. It never goes
// backwards. It is safe for concurrent use.
//
// A Runner with a ManualClock still ticks its per-second series on real time (the intervals
// carry the virtual time). A step with a Duration ends when the clock reaches its end: its
// deadline waits with WaitUntil, so the workers' own sleeps (a rate limit's pauses) or a
// test's Advance end it, as real time would. Its stall watchdog waits with WaitUntil too: it
// fires only when the clock moves past the limit.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters map[chan struct{}]time.Time // the WaitUntil calls and the times they wait for
}

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d; a negative d is ignored.
func (c *ManualClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.moveTo(c.now.Add(d))
	c.mu.Unlock()
}

// moveTo sets the clock to t and wakes the waiters whose time has come. c.mu is held.
func (c *ManualClock) moveTo(t time.Time) {
	c.now = t
	for ch, at := range c.waiters {
		if !at.After(t) {
			close(ch)
			delete(c.waiters, ch)
		}
	}
}

// SleepUntil returns ctx.Err() if ctx is done; otherwise it moves the clock forward to t (if t
// is later than now) and returns nil at once.
func (c *ManualClock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	if t.After(c.now) {
		c.moveTo(t)
	}
	c.mu.Unlock()
	return nil
}

// WaitUntil returns ctx.Err() if ctx is done; otherwise it returns nil once the clock reads t
// or later, which another goroutine's Advance or SleepUntil brings about (it never moves the
// clock itself), or ctx.Err() when ctx is done first.
func (c *ManualClock) WaitUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	if !t.After(c.now) {
		c.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if c.waiters == nil {
		c.waiters = map[chan struct{}]time.Time{}
	}
	c.waiters[ch] = t
	c.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.waiters, ch)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Pacer schedules the intended start times of an open-loop (rate-limited) client: start,
// start+1/rate, start+2/rate, ..., each computed from its index, so that rounding never
// drifts. A client that falls behind gets the times it missed at once and catches up
// back-to-back; its response times (from the intended start) then include the queueing.
// A Pacer belongs to one goroutine.
type Pacer struct {
	clock      Clock
	start      time.Time
	intervalNs float64 // 0: no limit
	n          int64
	// limit makes the Pacer a rate limiter: each start is at least one interval after the
	// previous one actually began (start is then the previous one's time).
	limit bool
}

// NewPacer returns a Pacer that paces perSecond operations a second from start on c. A
// perSecond of 0 or less means no limit: Next returns the current time at once.
func NewPacer(c Clock, start time.Time, perSecond float64) *Pacer {
	p := &Pacer{clock: c, start: start}
	if perSecond > 0 {
		p.intervalNs = 1e9 / perSecond
	}
	return p
}

// NewLimiter returns a Pacer that limits a closed-loop client to perSecond operations a
// second from start, spread evenly: Next returns no sooner than 1/perSecond after it last
// returned. Unlike NewPacer's schedule, a client that falls behind does not catch up in a
// burst: its schedule restarts from the time it asks. A perSecond of 0 or less means no limit.
func NewLimiter(c Clock, start time.Time, perSecond float64) *Pacer {
	p := NewPacer(c, start, perSecond)
	p.limit = true
	return p
}

// Next waits until the next intended start time and returns it; when that time has already
// passed it returns at once. It returns ctx.Err() when ctx is done.
func (p *Pacer) Next(ctx context.Context) (intended time.Time, err error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if p.intervalNs == 0 {
		return p.clock.Now(), nil
	}
	if p.limit {
		return p.nextLimited(ctx)
	}
	intended = p.start.Add(time.Duration(float64(p.n) * p.intervalNs))
	if p.clock.Now().Before(intended) {
		if err := p.clock.SleepUntil(ctx, intended); err != nil {
			return time.Time{}, err
		}
	}
	p.n++
	return intended, nil
}

// nextLimited is Next of a limiter: it waits until one interval after the previous start and
// returns the time it returns at, from which the next interval counts.
func (p *Pacer) nextLimited(ctx context.Context) (time.Time, error) {
	if p.n > 0 {
		next := p.start.Add(time.Duration(p.intervalNs))
		if p.clock.Now().Before(next) {
			if err := p.clock.SleepUntil(ctx, next); err != nil {
				return time.Time{}, err
			}
		}
	}
	now := p.clock.Now()
	if p.n == 0 && now.Before(p.start) {
		if err := p.clock.SleepUntil(ctx, p.start); err != nil {
			return time.Time{}, err
		}
		now = p.clock.Now()
	}
	p.start, p.n = now, 1
	return now, nil
}
