package insertbench

import (
	"context"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// makeRounds runs a pace for rounds rounds on a manual clock, each round taking work, and
// returns the offset from start at which each round was made.
func makeRounds(t *testing.T, clock *runner.ManualClock, pc pace, rounds int, work time.Duration) []time.Duration {
	t.Helper()
	start := clock.Now()
	var at []time.Duration
	for r := 0; r < rounds; r++ {
		_, ok, err := pc.before(context.Background())
		if err != nil || !ok {
			break
		}
		at = append(at, clock.Now().Sub(start))
		clock.Advance(work)
		if err := pc.after(context.Background(), int64(r)); err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// TestBurstLimiterAsTheReference checks the reference's rate limit (iibench.py:1120-1126,
// :1192-1200) on a manual clock: with 100 rows/s in batches of 50, two rounds a second, the
// first round at once, then a pair after each second; at 1000 rows/s, 20 rounds a second; a
// maker whose round took longer than 0.95 s does not sleep, and does not catch up.
func TestBurstLimiterAsTheReference(t *testing.T) {
	s := time.Second
	cases := []struct {
		name        string
		rate, batch int
		rounds      int
		work        time.Duration
		want        []time.Duration
	}{
		{"100/s", 100, 50, 7, 0, []time.Duration{0, s, s, 2 * s, 2 * s, 3 * s, 3 * s}},
		{"1000/s", 1000, 50, 42, 0, nil}, // checked by counts below
		{"slow rounds", 100, 50, 4, 1200 * time.Millisecond,
			[]time.Duration{0, 1200 * time.Millisecond, 2400 * time.Millisecond, 3600 * time.Millisecond}},
		{"below a batch a second", 10, 50, 3, 0, []time.Duration{0, s, 2 * s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := runner.NewManualClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
			at := makeRounds(t, clock, newBurstLimiter(clock, clock.Now(), float64(c.rate), c.batch), c.rounds, c.work)
			if c.want == nil {
				perSecond := map[time.Duration]int{}
				for _, d := range at {
					perSecond[d]++
				}
				if perSecond[0] != 1 || perSecond[s] != 20 || perSecond[2*s] != 20 || perSecond[3*s] != 1 {
					t.Errorf("rounds per second %v, want 1 at once, then 20 a second", perSecond)
				}
				return
			}
			if len(at) != len(c.want) {
				t.Fatalf("%d rounds made, want %d", len(at), len(c.want))
			}
			for i := range at {
				if at[i] != c.want[i] {
					t.Errorf("round %d made at %v, want %v (all: %v)", i, at[i], c.want[i], at)
				}
			}
		})
	}
}

// TestOpenLoopSchedule checks the corrected variant's pace: rounds due every batch/rate
// seconds from the start, the missed ones at once, none at or after the span.
func TestOpenLoopSchedule(t *testing.T) {
	clock := runner.NewManualClock(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	start := clock.Now()
	o := &openLoop{pacer: runner.NewPacer(clock, start, 100.0/50), until: start.Add(2 * time.Second)}
	var due []time.Duration
	for {
		intended, ok, err := o.before(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		due = append(due, intended.Sub(start))
		clock.Advance(700 * time.Millisecond) // slower than the schedule: it catches up
	}
	want := []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}
	if len(due) != len(want) {
		t.Fatalf("rounds due at %v, want %v", due, want)
	}
	for i := range want {
		if due[i] != want[i] {
			t.Errorf("rounds due at %v, want %v", due, want)
		}
	}
}
