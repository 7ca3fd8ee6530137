package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// rebaseSampler records when the runner rebased it, and ends the step with the usage seconds
// from its baseline, as measure.OS does.
type rebaseSampler struct {
	base    time.Time
	rebased []time.Time
}

func (s *rebaseSampler) Begin(_ context.Context, now time.Time)               { s.base = now }
func (s *rebaseSampler) Sample(context.Context, time.Time) map[string]float64 { return nil }
func (s *rebaseSampler) Rebase(_ context.Context, now time.Time) {
	s.base, s.rebased = now, append(s.rebased, now)
}
func (s *rebaseSampler) End(_ context.Context, now time.Time, res *result.Step) {
	res.Usage = map[string]float64{"usage_s": now.Sub(s.base).Seconds()}
}

// warmupStep runs a step of a Duration of duration under a runner with warmup, whose worker
// does batches in lockstep with the ticks (lockstepSampler): second k's batch, and each of its
// warm-up seconds' operations (the first five) takes slow on the clock.
func warmupStep(t *testing.T, warmup, duration time.Duration, batches []int64, slow time.Duration) (*result.Step, *rebaseSampler) {
	t.Helper()
	c := NewManualClock(t0)
	ls := &lockstepSampler{clock: c, batches: batches, work: make(chan int64), ack: make(chan struct{})}
	rb := &rebaseSampler{}
	k := 0
	w := Worker{Run: func(ctx context.Context, rec *Recorder) error {
		for {
			select {
			case n, ok := <-ls.work:
				if !ok {
					return nil
				}
				k++
				if err := rec.Do(0, time.Time{}, func() (int64, error) {
					if k <= 5 {
						c.Advance(slow)
					}
					return n, nil
				}); err != nil {
					return err
				}
				ls.ack <- struct{}{}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}}
	r := &Runner{Clock: c, Tick: time.Millisecond, Samplers: []Sampler{ls, rb}, Warmup: warmup}
	res := r.Run(context.Background(), Step{Name: "qr100", Ops: []OpSpec{{Name: "query"}}, Duration: duration,
		Report: 5 * time.Second, Workers: []Worker{w}})
	if res.Status != result.StatusOK {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	return res, rb
}

// A warm-up is left out of a step's figures: its first five seconds (slow operations of one
// unit) count in no total, rate, latency, period or usage, and stay in the series. The
// warm-up ends at the first tick at or after its length, which the slow operations put 50 ms
// late; the measured time runs from there.
func TestWarmupLeftOut(t *testing.T) {
	batches := make([]int64, 20)
	for i := range batches {
		batches[i] = 1000
		if i < 5 {
			batches[i] = 1
		}
	}
	res, rb := warmupStep(t, 5*time.Second, 100*time.Second, batches, 10*time.Millisecond)
	op := res.Ops["query"]
	if op.Count != 15 || op.Units != 15_000 || op.Latency.Max != 0 {
		t.Errorf("ops %+v: want the 15 measured batches of 1000, none slow", *op)
	}
	warmEnd := 5*time.Second + 50*time.Millisecond
	if w := res.Warmup; w == nil || w.AskedSeconds != 5 || w.Seconds != warmEnd.Seconds() || w.Intervals != 6 {
		t.Fatalf("warmup %+v, want 5 s asked, 5.05 s left out in 6 intervals (the first has no length)", res.Warmup)
	}
	if res.Seconds != 15 || op.PerSec != 1000 {
		t.Errorf("measured %v s at %v/s, want 15 s at 1000/s", res.Seconds, op.PerSec)
	}
	if op.RateP50 == nil || op.RateP99 == nil || *op.RateP99 != 1000 {
		t.Errorf("rate percentiles %v %v: a warm-up second counted", op.RateP50, op.RateP99)
	}
	if len(rb.rebased) != 1 || !rb.rebased[0].Equal(t0.Add(warmEnd)) || res.Usage["usage_s"] != 15 {
		t.Errorf("rebased at %v, usage over %v s; want once at the warm-up's end, 15 s", rb.rebased, res.Usage["usage_s"])
	}
	var all, periods int64
	for i := range res.Intervals.Len() {
		o, _ := res.Intervals.Op(i, "query")
		all += o.Units
	}
	for _, p := range res.Periods {
		periods += p.Ops["query"].Units
	}
	if all != 15_005 || periods != op.Units {
		t.Errorf("the series holds %d units (want every one, 15005), the periods %d (want the measured %d)", all, periods, op.Units)
	}
	if p := res.Periods[0]; !within(p.End-p.Seconds, res.Warmup.Seconds, 1e-9) || p.Ops["query"].CumUnits != p.Ops["query"].Units ||
		p.Ops["query"].CumPerSec != 1000 {
		t.Errorf("first period %+v: want it to start at the warm-up's end and count from there", p)
	}
}

// A step that ends before its warm-up does counts everything and says so; a step without a
// Duration has no warm-up.
func TestWarmupNotLeftOut(t *testing.T) {
	batches := []int64{1, 1, 1, 1, 1, 1000, 1000, 1000}
	for _, c := range []struct {
		name     string
		duration time.Duration
		note     bool
	}{{"ended first", 100 * time.Second, true}, {"no duration", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			res, rb := warmupStep(t, 30*time.Second, c.duration, batches, 0)
			if op := res.Ops["query"]; op.Units != 3005 || res.Warmup != nil || len(rb.rebased) != 0 || res.Seconds != 8 {
				t.Errorf("units %d in %v s, warm-up %+v, rebased %v: want everything counted", op.Units, res.Seconds, res.Warmup, rb.rebased)
			}
			noted := strings.Contains(strings.Join(res.Notes, "\n"), "before a tick ended its warm-up")
			if noted != c.note {
				t.Errorf("notes %q", res.Notes)
			}
		})
	}
}
