package insertbench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/runner"
)

// The reference's wait of the cleanup step (bench/ibench/iq.sh, vac_my and vac_pg): 60 s plus
// 1 s per million rows loaded by l.i0 (over every table), at most 1200 s, counted from the
// step's start.
const (
	cleanupWaitBase   = 60.0
	cleanupWaitPerRow = 1e-6
	cleanupWaitMax    = 1200.0
)

// ReferenceCleanupWait returns the reference's cleanup wait in seconds for rows loaded by l.i0
// over every table: 60 + rows/1e6, at most 1200, rounded to whole seconds as the reference's
// awk printf("%.0f") rounds (half to even).
func ReferenceCleanupWait(rows int64) float64 {
	return math.RoundToEven(min(cleanupWaitBase+float64(rows)*cleanupWaitPerRow, cleanupWaitMax))
}

// cleanupWaitScale is the factor of the reference's cleanup wait in each scale preset: tiny
// and small do not wait, so that a first run and the tests stay short; cached and iobound wait
// as the reference does.
func cleanupWaitScale(scale string) float64 {
	switch scale {
	case "cached", "iobound":
		return 1
	}
	return 0
}

// DefaultCleanupWait returns the cleanup wait of p's scale preset for p's sizes: the
// reference's rule for the rows l.i0 loads (Rows on each table), times the preset's factor.
func (p *Params) DefaultCleanupWait() float64 {
	return cleanupWaitScale(p.Scale) * ReferenceCleanupWait(mulCap(max(p.Rows, 0), int64(p.Tables())))
}

// validCleanupWait checks --cleanup-wait: a finite number of seconds, not negative.
func validCleanupWait(secs float64) error {
	if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return fmt.Errorf("--cleanup-wait must be a finite number of seconds >= 0, got %g", secs)
	}
	return nil
}

// cleanupRun is one run of the cleanup step: the engine's cleanup, then the wait until
// p.CleanupWaitSeconds after the step's start on the runner's clock (during the engine's
// cleanup when the engine waits at a point of its own), and the notes of both.
type cleanupRun struct {
	p      *Params
	clock  runner.Clock
	start  time.Time
	waited bool
	notes  []string
}

// newCleanupRun returns the cleanup of p on clock (nil: the system clock).
func newCleanupRun(p *Params, clock runner.Clock) *cleanupRun {
	if clock == nil {
		clock = runner.SystemClock()
	}
	return &cleanupRun{p: p, clock: clock}
}

// run runs c's Cleanup and the wait; it returns ctx's error when ctx ends the wait.
func (cr *cleanupRun) run(ctx context.Context, c engine.Cleaner) error {
	cr.start = cr.clock.Now()
	h := engine.CleanupHooks{Wait: cr.wait, Note: cr.note}
	if err := c.Cleanup(ctx, h); err != nil {
		return err
	}
	if !cr.waited {
		return cr.wait(ctx)
	}
	return nil
}

func (cr *cleanupRun) note(n string) { cr.notes = append(cr.notes, n) }

// wait sleeps on the clock until p.CleanupWaitSeconds after the step's start, or until ctx is
// done, and notes how long it waited and why.
func (cr *cleanupRun) wait(ctx context.Context) error {
	cr.waited = true
	secs := cr.p.CleanupWaitSeconds
	why := fmt.Sprintf("60 s + 1 s per million of the %d rows l.i0 loaded, at most 1200 s", mulCap(cr.p.Rows, int64(cr.p.Tables())))
	if secs != cr.p.DefaultCleanupWait() {
		why = "--cleanup-wait"
	} else if secs == 0 {
		cr.note(fmt.Sprintf("no wait: scale %s does not wait (the reference waits %s)", cr.p.Scale, why))
		return ctx.Err()
	}
	t0 := cr.clock.Now()
	until := cr.start.Add(time.Duration(secs * float64(time.Second)))
	err := cr.clock.SleepUntil(ctx, until)
	waited := cr.clock.Now().Sub(t0).Seconds()
	if err != nil {
		cr.note(fmt.Sprintf("wait until %g s after the step's start (%s): interrupted after %.1f s", secs, why, waited))
		return err
	}
	cr.note(fmt.Sprintf("waited %.1f s, until %g s after the step's start (%s)", waited, secs, why))
	return nil
}
