package insertbench

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

func TestReferenceCleanupWait(t *testing.T) {
	for _, c := range []struct {
		rows int64
		want float64
	}{
		{0, 60},
		{10_000_000, 70},
		{200_000_000, 260}, // run_ibench.sh: 20 tables of 10M rows wait 260 s
		{1_140_000_000, 1200},
		{5_000_000_000, 1200}, // capped
		{40_500_000, 100},     // 100.5 rounds half to even, as awk's printf("%.0f")
		{41_500_000, 102},
		{40_600_000, 101},
	} {
		if got := ReferenceCleanupWait(c.rows); got != c.want {
			t.Errorf("ReferenceCleanupWait(%d) = %v, want %v", c.rows, got, c.want)
		}
	}
}

func TestDefaultCleanupWaitByScale(t *testing.T) {
	for _, c := range []struct {
		scale  string
		mod    func(*Params)
		want   float64
		reason string
	}{
		{"tiny", nil, 0, "tiny does not wait"},
		{"small", nil, 0, "small does not wait"},
		{"cached", nil, 100, "4 tables of 10M rows"},
		{"iobound", nil, 80, "4 tables of 5M rows"},
		{"cached", func(p *Params) { p.SharedTable = true }, 70, "one table of 10M rows"},
		{"cached", func(p *Params) { p.Rows, p.Clients = 400_000_000, 8 }, 1200, "capped"},
		{"small", func(p *Params) { p.Rows = 1_000_000_000 }, 0, "small does not wait, whatever its size"},
	} {
		p, err := DefaultParams(c.scale)
		if err != nil {
			t.Fatal(err)
		}
		if c.mod == nil && p.CleanupWaitSeconds != c.want {
			t.Errorf("%s preset: CleanupWaitSeconds %v, want %v (%s)", c.scale, p.CleanupWaitSeconds, c.want, c.reason)
		}
		if c.mod != nil {
			c.mod(&p)
		}
		if got := p.DefaultCleanupWait(); got != c.want {
			t.Errorf("%s: DefaultCleanupWait() = %v, want %v (%s)", c.scale, got, c.want, c.reason)
		}
	}
}

func TestValidateCleanupWait(t *testing.T) {
	for _, v := range []float64{-1, math.NaN(), math.Inf(1)} {
		p, _ := DefaultParams("tiny")
		p.CleanupWaitSeconds = v
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--cleanup-wait") {
			t.Errorf("CleanupWaitSeconds %v: Validate() = %v, want an error about --cleanup-wait", v, err)
		}
	}
	p, _ := DefaultParams("tiny")
	p.CleanupWaitSeconds = 2.5
	if err := p.Validate(); err != nil || p.ParamMap()["cleanup_wait_seconds"] != 2.5 {
		t.Errorf("Validate() = %v, params %v: want 2.5 s accepted and recorded", err, p.ParamMap()["cleanup_wait_seconds"])
	}
}

// blockingClock is a manual clock whose SleepUntil reports the time it sleeps until on asleep,
// then blocks until ctx is done: a test sees where a wait ends without anyone sleeping.
type blockingClock struct {
	*runner.ManualClock
	asleep chan time.Time
}

func (c blockingClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.asleep <- t
	<-ctx.Done()
	return ctx.Err()
}

// runCleanup loads a small SQLite database and runs the cleanup step with the wait secs on
// clock; it returns the cleanup step (nil if it did not run) and the run's error.
func runCleanup(t *testing.T, ctx context.Context, clock runner.Clock, secs float64) (*result.Step, error) {
	t.Helper()
	p, _ := DefaultParams("tiny")
	p.Rows = 2000
	p.Steps = []string{"l.i0", "cleanup"}
	p.CleanupWaitSeconds = secs
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	reg, err := engine.NewRegistry(sqldb.SQLiteDriver())
	if err != nil {
		t.Fatal(err)
	}
	eng, err := reg.Open(context.Background(), engine.Config{Name: "sqlite", Engine: "sqlite", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: clock}}
	var cleanup *result.Step
	err = (&Workload{p: p}).Run(ctx, env, eng, func(s *result.Step) {
		if s.Name == "cleanup" {
			cleanup = s
		}
	})
	return cleanup, err
}

// TestCleanupStepWaits checks that the cleanup step runs the engine's cleanup, then waits on
// the runner's clock until CleanupWaitSeconds after its start, and says so in its notes.
func TestCleanupStepWaits(t *testing.T) {
	start := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := runner.NewManualClock(start)
	st, err := runCleanup(t, context.Background(), clock, 250)
	if err != nil || st == nil {
		t.Fatalf("run: %v (cleanup %v)", err, st)
	}
	if st.Status != result.StatusOK || st.Seconds != 250 || !clock.Now().Equal(start.Add(250*time.Second)) {
		t.Errorf("cleanup %s in %v s, clock at %v: want ok in 250 s on the clock", st.Status, st.Seconds, clock.Now().Sub(start))
	}
	notes := strings.Join(st.Notes, "\n")
	for _, want := range []string{"ANALYZE", "wal_checkpoint(TRUNCATE)", "waited 250.0 s, until 250 s after the step's start (--cleanup-wait)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes\n%s\nlack %q", notes, want)
		}
	}
	if st.EngineStatsBefore["wal_bytes"] <= 0 {
		t.Errorf("engine stats before the cleanup %v: want the WAL it checkpoints", st.EngineStatsBefore)
	}
}

// TestCleanupStepNoWait checks that a preset that does not wait says so.
func TestCleanupStepNoWait(t *testing.T) {
	clock := runner.NewManualClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	st, err := runCleanup(t, context.Background(), clock, 0)
	if err != nil || st == nil || st.Status != result.StatusOK || st.Seconds != 0 {
		t.Fatalf("run: %v, cleanup %+v", err, st)
	}
	if n := st.Notes[len(st.Notes)-1]; !strings.HasPrefix(n, "no wait: scale tiny does not wait (the reference waits 60 s + 1 s per million of the 2000 rows") {
		t.Errorf("last note %q", n)
	}
}

// TestCleanupStepStopsAtCancel checks that the wait ends at the point of the rule and that an
// interrupt ends it: the step is interrupted, and the run with it.
func TestCleanupStepStopsAtCancel(t *testing.T) {
	start := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := blockingClock{runner.NewManualClock(start), make(chan time.Time)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if until := <-clock.asleep; !until.Equal(start.Add(1200 * time.Second)) {
			t.Errorf("the wait sleeps until %v after the start, want 1200 s", until.Sub(start))
		}
		cancel()
	}()
	st, err := runCleanup(t, ctx, clock, 1200)
	if !errors.Is(err, context.Canceled) || st == nil || st.Status != result.StatusInterrupted {
		t.Fatalf("run: %v, cleanup %+v: want the cleanup interrupted", err, st)
	}
	if n := st.Notes[len(st.Notes)-1]; !strings.Contains(n, "interrupted after 0.0 s") {
		t.Errorf("last note %q", n)
	}
}
