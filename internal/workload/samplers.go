package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// statsTimeout bounds one reading of an engine's stats, so that a busy engine cannot hold up
// the per-second intervals.
const statsTimeout = 500 * time.Millisecond

// EngineStats samples an engine's own counters (its debt: compaction backlog, WAL size, purge
// lag) into each interval and, at a step's end, into the step's engine_stats. It implements
// runner.Sampler for any engine.Statser, so an engine adds its counters without touching the
// runner. A reading that fails or times out is left out.
type EngineStats struct {
	Engine engine.Statser
}

// Begin implements runner.Sampler.
func (s EngineStats) Begin(ctx context.Context, now time.Time) {}

// Sample implements runner.Sampler: the engine's counters now.
func (s EngineStats) Sample(ctx context.Context, now time.Time) map[string]float64 {
	m, _ := s.read(ctx)
	return m
}

// End implements runner.Sampler: the engine's counters at the step's end, read even when the
// step was interrupted.
func (s EngineStats) End(ctx context.Context, now time.Time, res *result.Step) {
	if m, err := s.read(context.WithoutCancel(ctx)); err == nil {
		res.EngineStats = m
	}
}

func (s EngineStats) read(ctx context.Context) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	m, err := s.Engine.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}

// configRunner returns a copy of base that also samples the OS usage of the engine eng, whose
// data is in dataDir, and the engine's own stats, with notes on what cannot be measured.
func configRunner(base *runner.Runner, eng engine.Engine, dataDir string) (*runner.Runner, []string) {
	r := *base
	r.Samplers = slices.Clone(base.Samplers)
	var notes []string
	opt := measure.OSOptions{DataDir: dataDir}
	if s, ok := eng.(engine.Server); ok {
		if opt.DBPID = s.ServerPID(); opt.DBPID == 0 {
			opt.RemoteDB = true
		}
		if t, ok := eng.(engine.ServerTrees); ok && opt.DBPID != 0 {
			opt.MoreDBPIDs = t.ServerPIDs()[1:]
		}
	}
	_, r.WorkersWait = eng.(engine.BlockingClient)
	if df, ok := eng.(engine.DataFiler); ok {
		opt.IsDataFile = df.IsDataFile
	}
	if ds, ok := eng.(engine.DatabaseSizer); ok {
		opt.DatabaseBytes = ds.DatabaseBytes
	}
	if acct, err := measure.NewOS(opt); err != nil {
		notes = append(notes, fmt.Sprintf("CPU, IO and size are not measured: %v", err))
	} else {
		r.Samplers = append(r.Samplers, acct)
		notes = append(notes, acct.Notes()...)
	}
	if s, ok := eng.(engine.Statser); ok {
		r.Samplers = append(r.Samplers, EngineStats{Engine: s})
	}
	if c, ok := eng.(engine.ServerCounters); ok {
		r.Samplers = append(r.Samplers, NewServerCounterUsage(c))
	}
	return &r, notes
}

// addProfiler adds to r the profiler of --cpu-profile and --counters for the configuration
// named config of eng, when the plan asks for one, and returns the notes on what it cannot do.
func addProfiler(ctx context.Context, p Plan, eng engine.Engine, config string, r *runner.Runner) []string {
	if !p.Profiling.On() {
		return nil
	}
	var modules []string
	var pids []int
	s, server := eng.(engine.Server)
	if server {
		if pid := s.ServerPID(); pid != 0 {
			pids = []int{pid}
		}
		if t, ok := eng.(engine.ServerTrees); ok && len(pids) > 0 {
			pids = t.ServerPIDs()
		}
		if len(pids) == 0 {
			return []string{"no CPU profile or counters: the DBMS's process is not on this host (--db-pid names it)"}
		}
	}
	if b, ok := eng.(engine.Builder); ok && !server {
		if m := b.Build()[engine.BuildModule]; m != "" {
			modules = append(modules, m)
		}
	}
	_, cgo := eng.(engine.Cgo)
	pr := newProfiler(ctx, p.Profiling, p.Dir.Path(), config, pids, !server && !cgo)
	pr.engineModules = modules
	r.Samplers = append(r.Samplers, pr)
	if pr.noPerf != "" {
		return []string{"no perf profile or counters: " + pr.noPerf}
	}
	return nil
}
