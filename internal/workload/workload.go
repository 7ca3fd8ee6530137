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
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// Env is what a workload gets to run its steps.
type Env struct {
	Runner *runner.Runner
	// Log receives occasional messages (verifying, cleanup); never nil.
	Log io.Writer
}

// Workload is a benchmark that runs its steps on one opened engine.
type Workload interface {
	Name() string
	Scale() string
	Params() map[string]any
	// Fidelity is the variant the workload runs and when it verifies.
	Fidelity() Fidelity
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
	// Keep keeps each configuration's data directory; otherwise it is removed when done.
	Keep bool
}

// Execute runs the plan's workload on every configuration in turn and returns the finished
// run. Results are written after every step. A failed configuration does not stop the next
// one; an interrupt (ctx cancelled) stops everything. A write of the results that fails is
// announced on the log at once and retried at the next save (each holds the whole run); the
// error is the last save's.
func Execute(ctx context.Context, p Plan) (*result.Run, error) {
	run := p.Run
	run.Status = result.StatusRunning
	fid := p.Workload.Fidelity()
	run.Workload = result.Workload{Name: p.Workload.Name(), Scale: p.Workload.Scale(),
		Variant: string(fid.Variant), Verify: string(fid.Verify), Params: p.Workload.Params()}
	s := saver{dir: p.Dir, run: run, log: p.Env.Log}
	save := s.save
	save()
	for _, cfg := range p.Configs {
		if ctx.Err() != nil {
			break
		}
		run.Configs = append(run.Configs, result.Config{Name: cfg.Name, Engine: cfg.Engine,
			Settings: cfg.Settings, Status: result.StatusRunning, Steps: []result.Step{}})
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
		save()
	}
	run.FinishedAt = time.Now()
	run.Status = result.StatusOK
	for _, c := range run.Configs {
		if c.Status == result.StatusFailed && run.Status == result.StatusOK {
			run.Status = result.StatusFailed
			run.Error = fmt.Sprintf("%s: %s", c.Name, c.Error)
		}
	}
	if ctx.Err() != nil {
		run.Status = result.StatusInterrupted
		run.Error = "interrupted"
	}
	save()
	return run, s.err
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
	eng, err := p.Registry.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close %s: %w", cfg.Name, cerr))
		}
	}()
	rc.Version = eng.Version()
	rc.Settings = eng.Settings()
	if d, ok := eng.(engine.Discarder); ok && d.Discards() {
		rc.Notes = append(rc.Notes, cfg.Engine+" stores nothing: it measures the harness itself; verification is skipped")
	}
	env := p.Env
	var notes []string
	env.Runner, notes = configRunner(p.Env.Runner, eng, cfg.DataDir)
	rc.Notes = append(rc.Notes, notes...)
	save()
	err = p.Workload.Run(ctx, env, eng, func(st *result.Step) {
		if st.Status == result.StatusFailed {
			if down := serverDown(eng); down != nil {
				st.Error = down.Error() + "; " + st.Error
			}
		}
		rc.Steps = append(rc.Steps, *st)
		save()
	})
	if down := serverDown(eng); err != nil && down != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w; %w", down, err)
	}
	return err
}

// serverDown returns why eng's server is gone, or nil while it runs (or eng has no server).
func serverDown(eng engine.Engine) error {
	if l, ok := eng.(engine.Liveness); ok {
		return l.Alive()
	}
	return nil
}
