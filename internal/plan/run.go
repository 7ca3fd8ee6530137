package plan

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/host"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/verdict"
	"github.com/enginebench/enginebench/internal/workload"
)

// NewRun returns the run's record as workload.Execute starts it, made by tool with command
// (already redacted), and writes the run spec's copy, without secrets, into dir.
func (p *Plan) NewRun(dir *result.Dir, tool result.Tool, command, secrets []string) (*result.Run, error) {
	run := &result.Run{Tool: tool, RunID: p.RunID, StartedAt: p.Started, Command: command, Host: host.Read(p.HostDir),
		ClientCPULimitPct: p.opts.ClientCPULimitPct, Matrix: p.Matrix, Shard: p.Shard}
	th := p.opts.Thresholds
	if th == nil {
		th = verdict.Defaults()
	}
	run.Thresholds, run.Verdicts = th, verdict.Host(&run.Host, th)
	if p.Spec != nil {
		if err := dir.WriteFile("run-spec.yaml", p.Spec.Copy(secrets)); err != nil {
			return nil, err
		}
		run.Notes = append(run.Notes, fmt.Sprintf("run spec: %s (a copy is run-spec.yaml)", p.Spec.Path))
	}
	if sh := p.Shard; sh != nil && sh.Count > 1 {
		run.Notes = append(run.Notes, fmt.Sprintf("shard %d of %d of run %s: clients %s of the run's; every figure is this shard's clients' (docs/scale-out.md, Shards)",
			sh.Index, sh.Count, sh.Run, joinInts(sh.Clients)))
	}
	return run, nil
}

// Execution returns what workload.Execute runs of the plan: its workload on its
// configurations, as the plan keeps, repeats and shards them, with the run's record run in
// dir and env for the workload.
func (p *Plan) Execution(dir *result.Dir, run *result.Run, env workload.Env) workload.Plan {
	cfgs := make([]engine.Config, len(p.Configs))
	for i, c := range p.Configs {
		cfgs[i] = c.Config
	}
	return workload.Plan{Workload: p.Workload, Registry: p.Registry, Configs: cfgs, Dir: dir, Run: run, Env: env,
		Keep: p.opts.Keep, DropExisting: p.opts.DropExisting, Shard: p.opts.Shard, Repeat: p.opts.Repeat, Auto: p.opts.RepeatAuto}
}

// Announce prints on log what the run runs and where its results go, and the plan's notices.
func (p *Plan) Announce(log io.Writer) {
	what := "engines " + p.opts.Engines
	if p.Spec != nil {
		names := make([]string, len(p.Configs))
		for i, c := range p.Configs {
			names[i] = c.Name
		}
		what = fmt.Sprintf("configurations %s (%s)", strings.Join(names, ", "), p.Spec.Path)
	}
	fmt.Fprintf(log, "enginebench: %s benchmark, scale %s, %s; results in %s\n", p.Workload.Name(), p.Workload.Scale(), what, p.Out)
	for _, n := range p.Notices {
		fmt.Fprintf(log, "enginebench: %s\n", n)
	}
	for _, c := range p.Configs {
		if c.DSN != "" {
			fmt.Fprintf(log, "enginebench: configuration %s runs on an existing server (DSN from %s)\n", c.Name, c.dsnFrom)
		}
		if c.MemoryLimit > 0 {
			fmt.Fprintf(log, "enginebench: configuration %s: memory capped at %s (from %s), page cache included\n",
				c.Name, numfmt.Bytes(float64(c.MemoryLimit)), c.capFrom)
		}
	}
}

// FinishExternal completes a run with an existing server in it: it notes what was measured of
// each existing server's data directory, removes secrets (any DSN or password) from the
// results' messages and rewrites run.json in dir.
func (p *Plan) FinishExternal(res *result.Run, dir *result.Dir, secrets []string) error {
	clean := func(s string) string { return redact.Text(s, secrets...) }
	res.Error = clean(res.Error)
	for i := range res.Configs {
		rc := &res.Configs[i]
		j := slices.IndexFunc(p.Configs, func(c Config) bool { return c.Name == rc.Name })
		if j < 0 {
			continue
		}
		c := p.Configs[j]
		for k := range rc.Notes {
			rc.Notes[k] = clean(rc.Notes[k])
		}
		switch {
		case c.DSN != "" && c.DataDir != "":
			rc.Notes = append(rc.Notes, "existing server: its data directory "+c.DataDir+" was measured, not changed")
		case c.DSN != "":
			rc.Notes = append(rc.Notes, "existing server: no data directory given (--data-dir, data_dir), so the database size is not measured")
		}
		rc.Error = clean(rc.Error)
		for k := range rc.Steps {
			rc.Steps[k].Error = clean(rc.Steps[k].Error)
		}
	}
	return dir.WriteRun(res)
}

// joinInts returns xs as "1, 3, 5".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
