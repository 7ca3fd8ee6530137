package insertbench

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// hookedSQL is an SQL engine whose dialect calls hook when the benchmark asks for the table
// options, that is while it creates its tables (l.i0's setup).
type hookedSQL struct {
	sqldb.DB
	hook func()
}

func (h hookedSQL) Dialect() sqldb.Dialect { return hookedDialect{h.DB.Dialect(), h.hook} }

type hookedDialect struct {
	sqldb.Dialect
	hook func()
}

func (d hookedDialect) TableOptions() string { d.hook(); return d.Dialect.TableOptions() }

// hookedKV is a KV engine that calls hook at its first new iterator.
type hookedKV struct {
	kv.DB
	once *sync.Once
	hook func()
}

func (h hookedKV) NewIter(lower, upper []byte) (kv.Iter, error) {
	h.once.Do(h.hook)
	return h.DB.NewIter(lower, upper)
}

// runInterrupted runs p's steps on eng with a context that hook cancels, and returns the steps
// and the run's error.
func runInterrupted(t *testing.T, p Params, eng func(hook func()) engine.Engine) ([]*result.Step, error) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return workloadtest.Run(ctx, &Workload{p: p}, eng(cancel), nil)
}

// TestInterruptInSetupProbeAndVerify interrupts a run (cancels its context, as Ctrl-C does) at
// three points outside a step's measured operations: while l.i0 creates the tables, while l.i1's
// writers probe min(transactionid), and while the verification after the last step reads the
// rows. Each time the step is interrupted, not failed, and the run ends with context.Canceled.
func TestInterruptInSetupProbeAndVerify(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []string
		eng   func(t *testing.T, hook func()) engine.Engine
		step  string // the step interrupted
	}{
		{"setup", []string{"l.i0"}, func(t *testing.T, hook func()) engine.Engine {
			return hookedSQL{openDriver(sqldb.SQLiteDriver())(t).(sqldb.DB), hook}
		}, "l.i0"},
		{"probe", []string{"l.i0", "l.i1"}, func(t *testing.T, hook func()) engine.Engine {
			return hookedKV{openDriver(pebble.Driver())(t).(kv.DB), &sync.Once{}, hook}
		}, "l.i1"},
		{"verify", []string{"l.i0"}, func(t *testing.T, hook func()) engine.Engine {
			return hookedKV{openDriver(pebble.Driver())(t).(kv.DB), &sync.Once{}, hook}
		}, "l.i0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
			p.Rows, p.RowsI1 = 2000, 2000
			p.Steps = c.steps
			steps, err := runInterrupted(t, p, func(hook func()) engine.Engine { return c.eng(t, hook) })
			if !errors.Is(err, context.Canceled) || len(steps) == 0 {
				t.Fatalf("run: %v after %d steps, want context.Canceled", err, len(steps))
			}
			s := steps[len(steps)-1]
			if s.Name != c.step || s.Status != result.StatusInterrupted || s.Verify != nil {
				t.Errorf("step %s: %s %q, verify %+v; want %s interrupted", s.Name, s.Status, s.Error, s.Verify, c.step)
			}
		})
	}
}
