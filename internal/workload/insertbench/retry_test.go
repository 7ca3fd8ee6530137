package insertbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// errConflict is the transient conflict the flaky backend injects.
var errConflict = errors.New("injected transient conflict")

// flaky is a backend whose inserts fail with errConflict while fail says so, before they reach
// the engine: a conflict that rolled the insert back.
type flaky struct {
	backend
	fail func() bool
}

func (f *flaky) retryable(err error) bool {
	return errors.Is(err, errConflict) || f.backend.retryable(err)
}

func (f *flaky) newSession(ctx context.Context, announce bool) (session, error) {
	s, err := f.backend.newSession(ctx, announce)
	if err != nil {
		return nil, err
	}
	return &flakySession{session: s, f: f}, nil
}

type flakySession struct {
	session
	f *flaky
}

func (s *flakySession) insert(ctx context.Context, t *table, rows []Row) error {
	if s.f.fail() {
		return fmt.Errorf("insert into %s: %w", t.name, errConflict)
	}
	return s.session.insert(ctx, t, rows)
}

// runFlaky runs the steps of p on eng with inserts failing while fail says so, on clock; it
// returns the run and its steps.
func runFlaky(t *testing.T, eng engine.Engine, p Params, clock runner.Clock, fail func() bool) (*run, []*result.Step, error) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := (&Workload{p: p}).newRun(context.Background(), workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: clock}}, eng)
	if err != nil {
		t.Fatal(err)
	}
	r.be = &flaky{backend: r.be, fail: fail}
	var steps []*result.Step
	err = r.steps(context.Background(), func(s *result.Step) { steps = append(steps, s) })
	return r, steps, err
}

// TestTransientConflictsRetried injects a conflict into every third insert of a run: each is
// retried after a backoff and counted, the steps end ok, and verification finds every row once.
func TestTransientConflictsRetried(t *testing.T) {
	for _, d := range []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver()} {
		t.Run(d.Name, func(t *testing.T) {
			p := damageParams(workload.Reference)
			var calls atomic.Int64
			clock := runner.NewManualClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
			_, steps, err := runFlaky(t, openDriver(d)(t), p, clock, func() bool { return calls.Add(1)%3 == 0 })
			if err != nil {
				t.Fatal(err)
			}
			var retried int64
			for _, s := range steps {
				if s.Status != result.StatusOK {
					t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
				}
				for _, n := range s.Retries { // l.x's insert's count as the step's op, index
					retried += n
				}
			}
			if want := calls.Load() / 3; retried != want {
				t.Errorf("%d retries counted, %d conflicts injected", retried, want)
			}
			if v := steps[len(steps)-1].Verify; v == nil || !v.OK {
				t.Errorf("verify %+v", v)
			}
		})
	}
}
