package insertbench

import (
	"context"
	"math"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// pace is a maker's rate limit.
type pace interface {
	// before waits until the next round is due and returns the time it was due (zero when
	// the writer is not rate limited); ok is false when no round is due any more.
	before(ctx context.Context) (intended time.Time, ok bool, err error)
	// after runs once round's statements are made.
	after(ctx context.Context, round int64) error
}

// newPace returns the writer's rate limit: none without a rate; with one, the reference's
// limiter, or in the corrected variant an open-loop schedule.
func (w *writer) newPace(rec *runner.Recorder) pace {
	switch {
	case w.rate <= 0:
		return unpaced{}
	case w.open || w.r.p.Corrected():
		start := rec.Now()
		o := &openLoop{pacer: runner.NewPacer(w.r.clock(), start, w.rate/float64(w.batch))}
		if w.span > 0 {
			o.until = start.Add(w.span)
		}
		return o
	}
	return newBurstLimiter(w.r.clock(), rec.Now(), w.rate, w.batch)
}

// unpaced makes rounds as fast as the queues take them.
type unpaced struct{}

func (unpaced) before(context.Context) (time.Time, bool, error) { return time.Time{}, true, nil }
func (unpaced) after(context.Context, int64) error              { return nil }

// burstLimiter is the reference's write rate limit (iibench.py:1120-1126, :1192-1200): after
// every ceil(rate / batch)-th round, if less than 0.95 s have passed since the previous check
// it sleeps until a second after it. A second's rounds are made back to back, as fast as the
// statement queues take them, and a maker that has fallen behind does not catch up.
type burstLimiter struct {
	clock runner.Clock
	every int64 // rounds per second
	last  time.Time
}

// newBurstLimiter returns the limiter of rate rows a second in batches of batch rows, its
// first check at start.
func newBurstLimiter(c runner.Clock, start time.Time, rate float64, batch int) *burstLimiter {
	every := max(int64(math.Ceil(rate/float64(batch))), 1)
	return &burstLimiter{clock: c, every: every, last: start}
}

// before returns now: a round of the reference is due when it is made.
func (l *burstLimiter) before(context.Context) (time.Time, bool, error) {
	return l.clock.Now(), true, nil
}

// after sleeps after every every-th round (rounds 0, every, 2 every, ...) until a second after
// the previous check, unless 0.95 s or more have passed since it.
func (l *burstLimiter) after(ctx context.Context, round int64) error {
	if round%l.every != 0 {
		return nil
	}
	now := l.clock.Now()
	// The reference sleeps when now > last; a manual clock may not have moved, so >=.
	if !now.Before(l.last) && now.Before(l.last.Add(950*time.Millisecond)) {
		if err := l.clock.SleepUntil(ctx, l.last.Add(time.Second)); err != nil {
			return err
		}
	}
	l.last = l.clock.Now()
	return nil
}

// openLoop is the corrected variant's rate limit: rounds are due at start + k/(rate/batch),
// and a maker that has fallen behind makes the rounds it missed back to back, each with the
// time it was due (the response times then include the queueing).
type openLoop struct {
	pacer *runner.Pacer
	until time.Time // no round is due at or after until (zero: no end)
}

func (o *openLoop) before(ctx context.Context) (time.Time, bool, error) {
	intended, err := o.pacer.Next(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	if !o.until.IsZero() && !intended.Before(o.until) {
		return time.Time{}, false, nil
	}
	return intended, true, nil
}

func (o *openLoop) after(context.Context, int64) error { return nil }
