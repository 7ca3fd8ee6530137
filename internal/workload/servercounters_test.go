package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// scriptedCounters returns its readings in turn, and then fails.
type scriptedCounters struct {
	readings []engine.Counters
}

func (s *scriptedCounters) ServerCounters(ctx context.Context) (engine.Counters, error) {
	if len(s.readings) == 0 {
		return engine.Counters{}, errors.New("no more readings")
	}
	c := s.readings[0]
	s.readings = s.readings[1:]
	return c, nil
}

// TestServerCounterKeysAreUsageKeys: the engine's counters land in a step's usage under the
// raw keys that measure.Derive divides.
func TestServerCounterKeysAreUsageKeys(t *testing.T) {
	for eng, raw := range map[string]string{
		engine.CounterReads: measure.KeySrvReads, engine.CounterReadKB: measure.KeySrvReadKB,
		engine.CounterWriteKB: measure.KeySrvWriteKB, engine.CounterWALKB: measure.KeySrvWALKB,
		engine.CounterLogicalReads: measure.KeySrvLogicalReads, engine.CounterRowsRead: measure.KeySrvRowsRead,
		engine.CounterRowsWritten: measure.KeySrvRowsWritten,
	} {
		if eng != raw {
			t.Errorf("engine counter %q is usage key %q", eng, raw)
		}
	}
}

// TestServerCounterUsage: a step's usage and each interval hold the counters' growth; a
// counter group the server could not read is absent from them, not 0, and the step's notes
// say why; a counter that went back (a reset) is not measured.
func TestServerCounterUsage(t *testing.T) {
	read := func(reads, wal float64) engine.Counters {
		return engine.Counters{Values: map[string]float64{engine.CounterReads: reads, engine.CounterWALKB: wal},
			Unread: map[string]string{"pg_stat_io": "permission denied for view pg_stat_io"}, From: "pg_stat_database, pg_stat_wal"}
	}
	src := &scriptedCounters{readings: []engine.Counters{read(100, 50), read(130, 40), read(160, 70)}}
	s := NewServerCounterUsage(src)
	ctx, now := context.Background(), time.Unix(0, 0)
	s.Begin(ctx, now)
	iv := s.Sample(ctx, now)
	if len(iv) != 1 || iv[measure.KeySrvReads] != 30 {
		t.Errorf("interval %v, want srv_reads 30 and no WAL (it went back)", iv)
	}
	var st result.Step
	s.End(ctx, now, &st)
	if st.Usage[measure.KeySrvReads] != 60 || st.Usage[measure.KeySrvWALKB] != 20 {
		t.Errorf("usage %v, want srv_reads 60, srv_wal_kb 20", st.Usage)
	}
	if _, ok := st.Usage[measure.KeySrvWriteKB]; ok {
		t.Errorf("usage has srv_write_kb of an unread group: %v", st.Usage)
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "pg_stat_io") || !strings.Contains(st.Notes[0], "permission denied") {
		t.Errorf("notes %q, want the unread pg_stat_io and why", st.Notes)
	}
	if st.SrvFrom != "pg_stat_database, pg_stat_wal" {
		t.Errorf("srv_from %q", st.SrvFrom)
	}
	st.Ops = map[string]*result.Op{"insert": {Units: 10}}
	measure.Derive(&st, measure.Basis{PerOp: "insert"})
	if e := st.Efficiency; e == nil || e.SrvRpq == nil || *e.SrvRpq != 6 || e.SrvWKBpi != nil || e.SrvWALKBpi == nil {
		t.Errorf("efficiency %+v: want srv_rpq 6, srv_walkbpi, and no srv_wkbpi without srv_write_kb", e)
	}

	// The next step lacks the same group for the same reason: said once, in the first.
	var next result.Step
	src.readings = append(src.readings, read(160, 70), read(170, 80))
	s.Begin(ctx, now)
	s.End(ctx, now, &next)
	if len(next.Notes) != 0 || next.Usage[measure.KeySrvReads] != 10 {
		t.Errorf("the next step: notes %q (want none), usage %v", next.Notes, next.Usage)
	}

	var failed result.Step
	s.End(ctx, now, &failed) // the source has no more readings
	if len(failed.Usage) != 0 || len(failed.Notes) != 1 || !strings.Contains(failed.Notes[0], "not measured") {
		t.Errorf("a failed reading: usage %v, notes %q", failed.Usage, failed.Notes)
	}
}

// countersNull is the null engine with server counters.
type countersNull struct {
	engine.Engine
	scriptedCounters
}

// TestConfigRunnerSamplesServerCounters: an engine with server counters gets their sampler,
// one without does not.
func TestConfigRunnerSamplesServerCounters(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{Name: "null", Engine: "null"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	base := &runner.Runner{Clock: runner.SystemClock()}
	has := func(r *runner.Runner) bool {
		for _, s := range r.Samplers {
			if _, ok := s.(*ServerCounterUsage); ok {
				return true
			}
		}
		return false
	}
	if r, _ := configRunner(base, eng, t.TempDir()); has(r) {
		t.Error("the null engine got a server counters sampler")
	}
	if r, _ := configRunner(base, &countersNull{Engine: eng}, t.TempDir()); !has(r) {
		t.Error("an engine with server counters got no sampler of them")
	}
}

// A server that publishes its counters late (PostgreSQL) gets a note in the first step too
// short for that not to matter, naming the lagging counters, and not in the later ones; a step
// long enough gets none.
func TestServerCounterUsageLag(t *testing.T) {
	read := func(reads float64) engine.Counters {
		return engine.Counters{Values: map[string]float64{engine.CounterReads: reads, engine.CounterWALKB: reads},
			Lag: time.Second, Lagging: []string{engine.CounterReads}}
	}
	ctx, now := context.Background(), time.Unix(0, 0)
	step := func(s *ServerCounterUsage, seconds float64) result.Step {
		st := result.Step{Seconds: seconds}
		s.Begin(ctx, now)
		s.End(ctx, now, &st)
		return st
	}
	long := NewServerCounterUsage(&scriptedCounters{readings: []engine.Counters{read(1), read(2)}})
	if st := step(long, lagSteps); len(st.Notes) != 0 {
		t.Errorf("a step of %d s: notes %q, want none", lagSteps, st.Notes)
	}
	s := NewServerCounterUsage(&scriptedCounters{readings: []engine.Counters{read(1), read(2), read(3), read(4)}})
	first, second := step(s, 2), step(s, 2)
	if len(first.Notes) != 1 || !strings.Contains(first.Notes[0], "counters srv_reads up to 1s late: in a step of 2.0 s") {
		t.Errorf("the first short step: notes %q, want the lag of srv_reads", first.Notes)
	}
	if len(second.Notes) != 0 || second.Usage[measure.KeySrvReads] != 1 {
		t.Errorf("the second short step: notes %q (want none), usage %v", second.Notes, second.Usage)
	}
}
