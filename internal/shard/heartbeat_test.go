package shard

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// TestJudge: a shard that has not arrived and whose last beat is older than the timeout is
// dead (fail now); one that never beat (never started) is waited for the timeout and the
// extra; when every missing shard beats, ten times that.
func TestJudge(t *testing.T) {
	const timeout, extra = 3 * time.Second, 7 * time.Second
	for _, c := range []struct {
		name  string
		miss  []int
		ages  map[int]time.Duration
		dead  []int
		bound time.Duration
		alive bool
	}{
		{"all arrived", nil, map[int]time.Duration{0: 0, 1: 0}, nil, timeout + extra, false},
		{"never started", []int{1}, map[int]time.Duration{0: 0}, nil, timeout + extra, false},
		{"alive, slower", []int{1}, map[int]time.Duration{1: timeout}, nil, liveFactor * (timeout + extra), true},
		{"dead", []int{1}, map[int]time.Duration{1: timeout + time.Millisecond}, []int{1}, timeout + extra, false},
		{"dead long ago", []int{1}, map[int]time.Duration{1: time.Hour}, []int{1}, timeout + extra, false},
		{"one alive, one never started", []int{1, 2}, map[int]time.Duration{1: 0}, nil, timeout + extra, false},
		{"one alive, one dead", []int{1, 2}, map[int]time.Duration{1: 0, 2: time.Minute}, []int{2}, timeout + extra, false},
	} {
		v := judge(c.miss, c.ages, timeout, extra)
		if !slices.Equal(v.dead, c.dead) || v.bound != c.bound || v.alive != c.alive {
			t.Errorf("%s: %+v, want dead %v, bound %v, alive %v", c.name, v, c.dead, c.bound, c.alive)
		}
	}
}

// TestHeartbeatBeatsOnTheClock: the heartbeat beats once each time the runner's clock passes
// its interval, never before; a beat that fails is logged once however many fail, and the
// beats go on; stop ends it, also while a beat waits, and cancels that beat's context.
func TestHeartbeatBeatsOnTheClock(t *testing.T) {
	clock := runner.NewManualClock(time.Unix(1000, 0))
	beats := make(chan context.Context)
	results := make(chan error)
	var logged []error
	h := startHeartbeat(clock, time.Second, time.Minute, func(ctx context.Context) error {
		beats <- ctx
		return <-results
	}, func(err error) { logged = append(logged, err) })
	fail := errors.New("server gone")
	for i, res := range []error{nil, fail, fail, nil} {
		select {
		case <-beats:
			t.Fatalf("beat %d before the clock moved", i)
		default:
		}
		clock.Advance(time.Second)
		<-beats
		results <- res
	}
	clock.Advance(time.Second)
	ctx := <-beats
	h.cancel() // stop, with a beat under way
	<-ctx.Done()
	results <- ctx.Err()
	h.stop()
	if len(logged) != 1 || logged[0] != fail {
		t.Errorf("logged %v, want the first failure once", logged)
	}
}

// TestBeatEvery: a live shard beats several times within the shard timeout, at most every 5
// seconds and at least every 100 ms.
func TestBeatEvery(t *testing.T) {
	for _, c := range []struct{ timeout, want time.Duration }{
		{5 * time.Minute, 5 * time.Second},
		{3 * time.Second, 600 * time.Millisecond},
		{time.Millisecond, 100 * time.Millisecond},
	} {
		if got := beatEvery(c.timeout); got != c.want {
			t.Errorf("timeout %v: every %v, want %v", c.timeout, got, c.want)
		}
	}
}
