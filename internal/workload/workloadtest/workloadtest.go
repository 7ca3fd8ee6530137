// Package workloadtest holds what the workloads' tests share: the embedded engines they run on
// and a run of a workload that collects its steps.
package workloadtest

import (
	"context"
	"io"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/bbolt"
	"github.com/enginebench/enginebench/internal/engine/kv/lmdb"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/kv/rocksdb"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// Embedded are the engines that run in the test's process, null aside: SQLite and the
// key-value engines (those behind a build tag are stubs without it; kvtest.RequireBuilt skips
// them).
func Embedded() []engine.Driver {
	return []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver(), bbolt.Driver(), lmdb.Driver(), rocksdb.Driver(), wiredtiger.Driver()}
}

// Run runs w on eng with rn (nil: a runner on the system clock), its log discarded, and returns
// every step it emitted, in order, with Run's error.
func Run(ctx context.Context, w workload.Workload, eng engine.Engine, rn *runner.Runner) ([]*result.Step, error) {
	if rn == nil {
		rn = &runner.Runner{Clock: runner.SystemClock()}
	}
	var steps []*result.Step
	err := w.Run(ctx, workload.Env{Log: io.Discard, Runner: rn}, eng, func(s *result.Step) { steps = append(steps, s) })
	return steps, err
}
