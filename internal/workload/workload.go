// Package workload holds what every workload shares: the Workload interface and Execute, which
// runs a workload on each engine configuration of a run and writes the results after every
// step, so that an interrupt or a failure loses nothing already measured.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/verdict"
)

// Env is what a workload gets to run its steps.
type Env struct {
	Runner *runner.Runner
	// Log receives occasional messages (verifying, cleanup); never nil.
	Log io.Writer
	// meet, when set, is the barrier of a sharded run, or the wait for its start time.
	meet func(ctx context.Context, step string, extra time.Duration) error
	// leave, when set, tells the other shards that this one will not come to a step.
	leave func(step string)
	// share, when set, hands the shards' data to each other at a barrier.
	share func(ctx context.Context, step, data string, extra time.Duration) ([]string, error)
}

// Share is a barrier that carries data: in a sharded run, the shard records data (text) as
// its own at step, waits there for every shard as Meet does, and returns every shard's data by
// shard index (the shards' ledgers, for a verification that needs every writer's). Elsewhere
// it returns data alone, as shard 0 of 1's.
func (env Env) Share(ctx context.Context, step, data string, extra time.Duration) ([]string, error) {
	if env.share == nil {
		return []string{data}, nil
	}
	return env.share(ctx, step, data, extra)
}

// Leave tells the other shards of a sharded run that this shard will not come to step (a step
// before it failed or was interrupted), so that they fail it at once instead of at the end of
// their wait. It is best effort, bounded by a short timeout: the others' wait is bounded anyway.
func (env Env) Leave(step string) {
	if env.leave != nil {
		env.leave(step)
	}
}

// Meet waits before step: in a sharded run, at the barrier until every shard has arrived and
// the start shard 0 chose has come (waiting at most the shard timeout plus extra, the time a
// step only shard 0 runs may take before it); in a run with a start time (--start-at), until
// then before the first step. Elsewhere it returns at once.
func (env Env) Meet(ctx context.Context, step string, extra time.Duration) error {
	if env.meet == nil {
		return nil
	}
	return env.meet(ctx, step, extra)
}

// Workload is a benchmark that runs its steps on one opened engine.
type Workload interface {
	Name() string
	Scale() string
	Params() map[string]any
	// Fidelity is the variant the workload runs and when it verifies.
	Fidelity() Fidelity
	// Tables names the SQL tables (on a document engine, the collections of the same names)
	// Run creates in a configuration's database: on an existing
	// server (Config.DSN), where an earlier run may have left them, they are looked for
	// before the run and dropped after it.
	Tables() []string
	// Run runs every step on eng and calls emit with each step's result as soon as it ends.
	// It returns nil when every step ran, or the error that stopped it (ctx's on interrupt).
	Run(ctx context.Context, env Env, eng engine.Engine, emit func(*result.Step)) error
}

// Plan is a validated run: everything Execute needs.
type Plan struct {
	Workload Workload
	Registry *engine.Registry
	// Configs are the engine configurations. Each DataDir but an existing server's (DSN) is
	// created when its configuration starts, so that a run stopped early leaves no directory
	// of a configuration that never ran; it must be absent or empty.
	Configs []engine.Config
	Dir     *result.Dir
	Run     *result.Run // pre-filled: tool, host, command, run id, start time
	Env     Env
	// Keep keeps each configuration's data directory, and on an existing server the
	// workload's tables; otherwise they are removed when the configuration is done.
	Keep bool
	// DropExisting drops the workload's tables that an existing server already has before
	// the configuration runs.
	DropExisting bool
	// Shard is the part of the run's clients this process runs (--shard); zero for all.
	Shard shard.Shard
	// Repeat is how many times each configuration runs (--repeat); 0 and 1 mean once. With
	// more, the configurations run interleaved (A#1 B#1 A#2 B#2 ...), each repeat on a
	// fresh engine in a data directory of its own (DataDir + "#<index>").
	Repeat int
	// Auto, when set, is --repeat auto: Repeat is then the most rounds it runs, and it stops
	// after the first round (from MinAutoRounds on) after which every configuration's interval
	// against the first is narrower than the target (repeat.go).
	Auto *AutoRepeat
	// Profiling is what every step profiles and counts (--cpu-profile, --counters).
	Profiling Profiling
}

// dropTimeout bounds the dropping of a configuration's tables on an existing server at its
// end, which also runs after an interrupt.
const dropTimeout = 2 * time.Minute

// Execute runs the plan's workload on every configuration in turn and returns the finished
// run. Results are written after every step. A failed configuration does not stop the next
// one; an interrupt (ctx cancelled) stops everything. A write of the results that fails is
// announced on the log at once and retried at the next save (each holds the whole run); the
// error is the last save's. With --repeat auto (Plan.Auto) it stops repeating after the round
// at which the stopping rule says every interval is narrow enough (repeat.go).
func Execute(ctx context.Context, p Plan) (*result.Run, error) {
	run := p.Run
	run.Status = result.StatusRunning
	fid := p.Workload.Fidelity()
	run.Workload = result.Workload{Name: p.Workload.Name(), Scale: p.Workload.Scale(),
		Variant: string(fid.Variant), Verify: string(fid.Verify), Params: p.Workload.Params()}
	if r := p.Env.Runner; r != nil && r.Warmup > 0 { // recorded only when used (--exclude-warmup)
		if run.Workload.Params == nil {
			run.Workload.Params = map[string]any{}
		}
		run.Workload.Params["exclude_warmup_seconds"] = r.Warmup.Seconds()
	}
	s := saver{dir: p.Dir, run: run, log: p.Env.Log}
	save := s.save
	auto := p.startAuto(run)
	save()
	for i, rp := range p.repeats() {
		if ctx.Err() != nil {
			break
		}
		if rp.mark != nil && i%len(p.Configs) == 0 {
			auto.begin(run, rp.mark.Index)
		}
		cfg := rp.cfg
		run.Configs = append(run.Configs, result.Config{Name: cfg.Name, Engine: cfg.Engine,
			Settings: cfg.Settings, Status: result.StatusRunning, Repeat: auto.mark(rp.mark), Steps: []result.Step{}})
		rc := &run.Configs[len(run.Configs)-1]
		err := runConfig(ctx, p, cfg, rc, save)
		switch {
		case err == nil:
			rc.Status = result.StatusOK
		case ctx.Err() != nil:
			rc.Status = result.StatusInterrupted
		default:
			rc.Status = result.StatusFailed
			rc.Error = err.Error()
		}
		removeData(p, cfg, rc)
		stop := rp.mark != nil && i%len(p.Configs) == len(p.Configs)-1 && ctx.Err() == nil && auto.judge(run, rp.mark.Index)
		save()
		if stop {
			break
		}
	}
	auto.finish(ctx)
	run.FinishedAt = time.Now()
	run.Status, run.Error = runStatus(ctx, run.Configs)
	save()
	return run, s.err
}

// planned is one configuration as Execute runs it: a repeat of one of the plan's.
type planned struct {
	cfg  engine.Config
	mark *result.Repeat // nil in a run of one repeat
}

// repeats returns the configurations in the order they run: the plan's once each, or, with
// Repeat K > 1, K rounds of them (A B A B ...), each repeat named "<config>#<index>" with a
// data directory of its own (an existing server's, only measured, stays).
func (p Plan) repeats() []planned {
	if p.Repeat <= 1 {
		out := make([]planned, len(p.Configs))
		for i, c := range p.Configs {
			out[i] = planned{cfg: c}
		}
		return out
	}
	var out []planned
	for k := 1; k <= p.Repeat; k++ {
		for _, c := range p.Configs {
			rc := c
			rc.Name = result.RepeatName(c.Name, k)
			if c.DSN == "" && c.DataDir != "" {
				rc.DataDir = result.RepeatName(c.DataDir, k)
			}
			out = append(out, planned{cfg: rc, mark: &result.Repeat{Config: c.Name, Index: k, Count: p.Repeat, Order: len(out) + 1}})
		}
	}
	return out
}

// removeData removes the data directory of a configuration, unless the plan keeps it or it is
// an existing server's (only measured, never removed), and notes what became of it in rc.
func removeData(p Plan, cfg engine.Config, rc *result.Config) {
	switch {
	case cfg.DSN != "":
		// An existing server's data directory is only measured, never removed.
	case !p.Keep:
		if err := os.RemoveAll(cfg.DataDir); err != nil {
			rc.Notes = append(rc.Notes, fmt.Sprintf("could not remove data directory: %v", err))
		}
	default:
		rc.Notes = append(rc.Notes, "data kept in "+cfg.DataDir)
	}
}

// runStatus returns the status of a run of configs and its error: interrupted when ctx is,
// else failed with the first failed configuration's error, else ok.
func runStatus(ctx context.Context, configs []result.Config) (string, string) {
	if ctx.Err() != nil {
		return result.StatusInterrupted, "interrupted"
	}
	for _, c := range configs {
		if c.Status == result.StatusFailed {
			return result.StatusFailed, fmt.Sprintf("%s: %s", c.Name, c.Error)
		}
	}
	return result.StatusOK, ""
}

// saver writes a run's results and says so loudly when it cannot.
type saver struct {
	dir *result.Dir
	run *result.Run
	log io.Writer
	err error // the last save's error
}

// save writes run.json and intervals.csv. The first failure after a success is announced on
// the log; the first success after failures too.
func (s *saver) save() {
	err := errors.Join(s.dir.WriteRun(s.run), s.dir.WriteIntervals(s.run))
	switch {
	case err != nil && s.err == nil:
		fmt.Fprintf(s.log, "\nenginebench: CANNOT WRITE RESULTS in %s: %v; the run goes on and tries again after every step\n", s.dir.Path(), err)
	case err == nil && s.err != nil:
		fmt.Fprintf(s.log, "\nenginebench: results written again in %s: nothing is lost\n", s.dir.Path())
	}
	s.err = err
}

// runConfig creates the configuration's data directory, opens the configuration, runs the
// workload on it and closes it.
func runConfig(ctx context.Context, p Plan, cfg engine.Config, rc *result.Config, save func()) (err error) {
	if cfg.DSN == "" && cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
	}
	mc, err := openCap(p.Registry, &cfg)
	if err != nil {
		return err
	}
	defer func() {
		mc.record(rc)
		err = errors.Join(err, mc.close())
	}()
	eng, err := p.Registry.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close %s: %w", cfg.Name, cerr))
		}
	}()
	after, err := existingTables(ctx, p, cfg, eng, rc)
	if err != nil {
		return err
	}
	defer after()
	rc.Version = eng.Version()
	if b, ok := eng.(engine.Builder); ok {
		rc.Build = b.Build()
	}
	rc.Settings = eng.Settings()
	mc.record(rc)
	rc.Server = serverLink(ctx, eng, envClock(p.Env))
	if d, ok := eng.(engine.Discarder); ok && d.Discards() {
		rc.Notes = append(rc.Notes, cfg.Engine+" stores nothing: it measures the harness itself; verification is skipped")
	}
	env := p.Env
	stop, err := meeting(ctx, eng, p.Shard, cfg.Name, &env)
	if err != nil {
		return err
	}
	defer stop()
	var notes []string
	env.Runner, notes = configRunner(p.Env.Runner, eng, cfg.DataDir)
	env.Runner.Config = cfg.Name // a stall's error names the configuration
	rc.Notes = append(rc.Notes, notes...)
	rc.Notes = append(rc.Notes, addProfiler(ctx, p, eng, cfg.Name, env.Runner)...)
	save()
	judge := func(st *result.Step) { // the runner knows neither the preset nor the reads per op
		st.Verdicts = append(st.Verdicts, verdict.Declared(st, p.Workload.Scale(), p.Env.Runner.Thresholds)...)
	}
	err = p.Workload.Run(ctx, env, eng, stepDone(eng, mc, rc, save, judge))
	if down := serverDown(eng); err != nil && down != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w; %w", down, err)
	}
	return err
}

// stepDone returns the callback that records a finished step in rc and saves the run: judge
// adds the verdicts of what the step declared (verdict.Declared), and a failed step's error
// starts with why the server went down or the OOM kills in the memory cap's group.
func stepDone(eng engine.Engine, mc *memCap, rc *result.Config, save func(), judge func(*result.Step)) func(*result.Step) {
	return func(st *result.Step) {
		judge(st)
		if st.Status == result.StatusFailed {
			if down := serverDown(eng); down != nil {
				st.Error = down.Error() + "; " + st.Error
			}
			if oom := mc.oomKilled(); oom != "" {
				st.Error = oom + "; " + st.Error
			}
		}
		rc.Steps = append(rc.Steps, *st)
		rc.Capacity = result.CapacityOf(rc.Steps)
		mc.record(rc)
		save()
	}
}

// envClock is env's runner's clock, or the system's.
func envClock(env Env) runner.Clock {
	if env.Runner != nil && env.Runner.Clock != nil {
		return env.Runner.Clock
	}
	return runner.SystemClock()
}

// meeting sets the waits of env's Meet, Leave and Share: the barrier of a sharded run (in
// eng's database, with the shard's heartbeat, which stop ends), the wait for the start time
// of a run that has one, else none.
func meeting(ctx context.Context, eng engine.Engine, s shard.Shard, config string, env *Env) (stop func(), err error) {
	switch {
	case s.Sharded():
		b, err := shard.NewBarrier(ctx, eng, s, config, envClock(*env), env.Log)
		if err != nil {
			return nil, err
		}
		env.meet, env.leave, env.share = b.Meet, b.Leave, b.Share
		return b.Stop, nil
	case !s.StartAt.IsZero():
		started := false
		env.meet = func(ctx context.Context, _ string, _ time.Duration) error {
			if started {
				return nil
			}
			started = true
			return runner.SystemClock().SleepUntil(ctx, s.StartAt)
		}
	}
	return func() {}, nil
}

// serverDown returns why eng's server is gone, or nil while it runs (or eng has no server).
func serverDown(eng engine.Engine) error {
	if l, ok := eng.(engine.Liveness); ok {
		return l.Alive()
	}
	return nil
}

// existingTables handles the workload's tables on an existing server (cfg.DSN): with
// DropExisting it drops those already there; unless Keep, the returned after drops them when
// the configuration is done. Elsewhere it does nothing.
func existingTables(ctx context.Context, p Plan, cfg engine.Config, eng engine.Engine, rc *result.Config) (after func(), err error) {
	after = func() {}
	if cfg.DSN == "" {
		return after, nil
	}
	if p.DropExisting {
		dropped, err := dropTables(ctx, eng, p.Workload.Tables())
		if err != nil {
			return after, fmt.Errorf("drop the tables already there (--drop-existing): %w", err)
		}
		if len(dropped) > 0 {
			rc.Notes = append(rc.Notes, "existing server: the tables "+strings.Join(dropped, ", ")+" that were there were dropped first (--drop-existing)")
		}
	}
	if !p.Keep {
		after = func() {
			if note := dropAtEnd(ctx, cfg, eng, p.Workload.Tables()); note != "" {
				rc.Notes = append(rc.Notes, note)
			}
		}
	}
	return after, nil
}

// dropTables drops those of tables (an SQL engine's tables, a document engine's collections)
// that eng has, and returns them.
func dropTables(ctx context.Context, eng engine.Engine, tables []string) ([]string, error) {
	switch db := eng.(type) {
	case sqldb.DB:
		found, err := sqldb.ExistingTables(ctx, db, tables)
		if err != nil {
			return nil, err
		}
		return found, sqldb.DropTables(ctx, db, found)
	case doc.DB:
		found, err := doc.ExistingCollections(ctx, db, tables)
		if err != nil {
			return nil, err
		}
		return found, doc.DropCollections(ctx, db, found)
	}
	return nil, nil
}

// dropAtEnd drops the workload's tables from an existing server when its configuration is
// done, also after an interrupt (within dropTimeout, or until cfg.Abort closes), and returns
// the note that says what it dropped ("" for nothing).
func dropAtEnd(ctx context.Context, cfg engine.Config, eng engine.Engine, tables []string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dropTimeout)
	defer cancel()
	if cfg.Abort != nil {
		go func() {
			select {
			case <-cfg.Abort:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	dropped, err := dropTables(ctx, eng, tables)
	switch {
	case err != nil:
		return fmt.Sprintf("existing server: the tables were not dropped at the end: %v", err)
	case len(dropped) == 0:
		return ""
	}
	return "existing server: the tables " + strings.Join(dropped, ", ") + " were dropped at the end (--keep keeps them)"
}

// Capped is implemented by workloads whose scale preset caps each configuration's memory (the
// iobound presets, so that the data outgrows what the engine and the page cache may hold).
// MemoryLimit is that cap in bytes; 0: the preset sets none.
type Capped interface {
	MemoryLimit() int64
}
