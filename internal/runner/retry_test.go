package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var errBusy = errors.New("busy")

// retrying runs fn through rt.Do on rt's manual clock with a retryable errBusy, and returns
// the retries (onRetry's calls), the waits between fn's calls on the clock and Do's error.
func retrying(ctx context.Context, rt *Retrier, fn func(call int) error) (retries int, waits []time.Duration, err error) {
	clock := rt.Clock
	var last time.Time
	call := 0
	_, err = rt.Do(ctx, func(err error) bool { return errors.Is(err, errBusy) }, func() { retries++ }, func() (int64, error) {
		if now := clock.Now(); call > 0 {
			waits = append(waits, now.Sub(last))
		}
		last = clock.Now()
		call++
		return 1, fn(call)
	})
	return retries, waits, err
}

func manualRetrier(b Backoff) *Retrier {
	return &Retrier{Backoff: b, Clock: NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Rand: rand.New(rand.NewPCG(1, 2))}
}

// TestRetryBacksOff: a transient error that clears is retried after waits that double from
// First up to Cap, on the runner's clock, each retry reported; an error that is not transient
// is returned at once.
func TestRetryBacksOff(t *testing.T) {
	ms := time.Millisecond
	rt := manualRetrier(Backoff{First: 20 * ms, Cap: time.Second})
	retries, waits, err := retrying(context.Background(), rt, func(call int) error {
		if call <= 8 {
			return errBusy
		}
		return nil
	})
	want := []time.Duration{20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second}
	if err != nil || retries != 8 || !slices.Equal(waits, want) {
		t.Errorf("a conflict that clears: %v after %d retries, waits %v, want nil after 8, %v", err, retries, waits, want)
	}
	syntax := errors.New("syntax error")
	if retries, _, err := retrying(context.Background(), rt, func(int) error { return syntax }); err != syntax || retries != 0 {
		t.Errorf("an error that is not transient: %v after %d retries", err, retries)
	}
}

// TestRetryJitter: every wait lies within Jitter of its unjittered value, the waits vary, and
// two Retriers whose generators have the same seed wait the same.
func TestRetryJitter(t *testing.T) {
	b := Backoff{First: 20 * time.Millisecond, Cap: time.Second, Jitter: 0.25}
	for _, u := range []float64{0, 0.5, 0.999999} {
		for n := 0; n < 1000; n++ {
			base := min(20*time.Millisecond<<min(n, 20), time.Second)
			lo, hi := time.Duration(float64(base)*0.75), time.Duration(float64(base)*1.25)
			if d := b.Pause(n, u); d < lo || d > hi || (u == 0.5 && d != base) {
				t.Fatalf("u %v: wait before retry %d is %v, want %v..%v", u, n, d, lo, hi)
			}
		}
	}
	run := func() []time.Duration {
		_, waits, _ := retrying(context.Background(), manualRetrier(b), func(call int) error {
			if call <= 100 {
				return errBusy
			}
			return nil
		})
		return waits
	}
	first := run()
	seen := map[time.Duration]bool{}
	for _, d := range first[10:] { // at the cap
		seen[d] = true
	}
	if len(seen) < 50 || !slices.Equal(first, run()) {
		t.Errorf("90 waits at the cap took %d values; the same seed repeats them: %v", len(seen), slices.Equal(first, run()))
	}
}

// TestRetryLimits: a transient error that lasts gives up with its last error, the retry count
// and ErrRetriesExhausted once it has lasted the window, or after MaxRetries retries.
func TestRetryLimits(t *testing.T) {
	ms := time.Millisecond
	rt := manualRetrier(Backoff{First: ms, Cap: 8 * ms, Window: 100 * ms})
	start := rt.Clock.Now()
	// Failures at 0, 1, 3, 7, 15, 23, ... 103 ms: the one at 103 ms ends it, after 15 retries.
	retries, _, err := retrying(context.Background(), rt, func(int) error { return errBusy })
	if !errors.Is(err, errBusy) || !errors.Is(err, ErrRetriesExhausted) || retries != 15 ||
		err.Error() != "gave up after 15 retries in 103ms of transient conflicts: busy" {
		t.Errorf("a conflict past the window: %q after %d retries", err, retries)
	}
	if lasted := rt.Clock.Now().Sub(start); lasted != 103*ms {
		t.Errorf("the retries lasted %v on the clock, want 103ms", lasted)
	}

	rt = manualRetrier(Backoff{First: 20 * ms, Cap: time.Second, Jitter: 0.25, MaxRetries: 9})
	retries, _, err = retrying(context.Background(), rt, func(int) error { return errBusy })
	if !errors.Is(err, errBusy) || !errors.Is(err, ErrRetriesExhausted) || retries != 9 ||
		!strings.HasPrefix(err.Error(), "gave up after 9 retries in ") {
		t.Errorf("a conflict past MaxRetries: %q after %d retries", err, retries)
	}
}

// TestRetryEndsWithItsContext: when the context ends during the retries, a plain cancel (the
// step's normal end, an interrupt) returns the context's error alone, while a cause of its own
// (a failure elsewhere, a stall) or a deadline gives up with the last error, the retries made
// and the cause. No retry starts once the context has ended.
func TestRetryEndsWithItsContext(t *testing.T) {
	stalled := errors.New("no progress for 5m0s")
	for _, c := range []struct {
		name    string
		ctx     func() (context.Context, func()) // the context, and what ends it
		retries int
		quiet   bool   // ctx's error alone
		want    string // the error
	}{
		{"cancelled", func() (context.Context, func()) {
			return context.WithCancel(context.Background())
		}, 2, true, "context canceled"},
		{"cancelled with a cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(stalled) }
		}, 2, false, "gave up after 2 retries at the step's end (no progress for 5m0s): busy"},
		{"deadline", func() (context.Context, func()) {
			return context.WithDeadline(context.Background(), time.Unix(1, 0)) // already past
		}, 0, false, "gave up after 0 retries at the step's end (context deadline exceeded): busy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, end := c.ctx()
			defer end()
			retries, _, err := retrying(ctx, manualRetrier(DefaultBackoff()), func(call int) error {
				if call == 3 {
					end() // during the third attempt
				}
				return errBusy
			})
			if retries != c.retries || err == nil || err.Error() != c.want || errors.Is(err, ErrRetriesExhausted) ||
				errors.Is(err, errBusy) == c.quiet || errors.Is(err, context.Canceled) != c.quiet {
				t.Errorf("%q after %d retries, want %q after %d", err, retries, c.want, c.retries)
			}
		})
	}
}
