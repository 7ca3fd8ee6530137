// Package plan is the plan of a run and its checks: every input checked against the engine
// registry, the workload and the host before any work starts. It reads a plain Options value
// (what the command line and the run spec said) and returns a Plan: the run's configurations,
// where their data goes, the run's id and what to announce, or a *badinput.Error.
package plan

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/verdict"
	"github.com/enginebench/enginebench/internal/workload"
)

// Options are the inputs of a run's plan, as the command line and the run spec give them.
type Options struct {
	// Engines is --engines as given: comma-separated engines, one configuration each, when
	// there is no run spec.
	Engines string
	// Spec is the run spec (--config); nil for none. Warnings are its warnings, announced first.
	Spec     *runspec.Spec
	Warnings []string
	// Set, DSN and DBPID are the values of --set, --dsn and --db-pid, in order.
	Set, DSN, DBPID []string
	// MemoryLimit is --memory-limit when given, else nil.
	MemoryLimit *string
	// ConfigIndex is --config-index when given, else nil; JobIndex is $JOB_COMPLETION_INDEX
	// when it is not the shard's index (--shard auto/N), which with a run spec selects the
	// configuration when ConfigIndex is nil.
	ConfigIndex *string
	JobIndex    string
	// Keep keeps the engines' data; DropExisting drops the workload's tables an existing
	// server already has instead of refusing the run.
	Keep, DropExisting bool
	// DataDir is --data-dir ("" for the default), Out the results directory ("" for the default).
	DataDir, Out string
	// Repeat is the times each configuration runs, at least 1; with RepeatAuto, the most.
	Repeat int
	// RepeatAuto, when set, is --repeat auto: the run stops repeating once every
	// configuration's interval against the first is narrower than its target.
	RepeatAuto *workload.AutoRepeat
	// Shard is the shard the run runs (the zero value, or only StartAt, for a whole run), and
	// ShardFlag --shard as given: "" without it.
	Shard     shard.Shard
	ShardFlag string
	// ClientCPULimitPct is the client-saturation check's limit, recorded in run.json.
	ClientCPULimitPct float64
	// Thresholds are the verdicts' limits (--threshold), recorded in run.json; nil: the
	// defaults.
	Thresholds verdict.Thresholds
	// Warmup is --exclude-warmup: the seconds left out at the start of every step that runs
	// for a duration; 0 for none.
	Warmup float64
	// Getenv reads the environment (ENGINEBENCH_DSN, a run spec's dsn_env).
	Getenv func(string) string
}

// Plan is a run whose every input has been checked: what it takes to run it.
type Plan struct {
	Workload workload.Benchmark
	Registry *engine.Registry
	Spec     *runspec.Spec // nil without a run spec
	Configs  []Config
	Notices  []string // announced when the run starts
	RunID    string
	Started  time.Time
	Out      string // the results directory
	// DataRoot holds a subdirectory per managed configuration; "" when every configuration
	// uses an existing server.
	DataRoot string
	// Need is what the data root needs free, in bytes.
	Need int64
	// HostDir is the directory whose device and filesystem run.json describes; "" for none.
	HostDir string
	// Matrix marks a run of one configuration of the run spec; nil otherwise.
	Matrix *result.Matrix
	// Shard marks a run of one shard of the clients (--shard); nil otherwise.
	Shard *result.Shard

	opts Options
}

// Config is one engine configuration of the run and where its parts came from.
type Config struct {
	engine.Config
	at      string // "FILE:LINE: " of a run spec's configuration, for messages
	dsnFrom string // where the DSN came from, for messages that must not show it
	dataDir string // an existing server's data directory, from the run spec
	capFrom string // where MemoryLimit came from, for messages
}

// New checks every input of a run of w with the engines of reg and returns its plan. An
// error is a *badinput.Error.
func New(reg *engine.Registry, w workload.Benchmark, o Options) (*Plan, error) {
	p, err := Configure(reg, w, o)
	if err != nil {
		return nil, err
	}
	if err := p.placeData(); err != nil {
		return nil, &badinput.Error{Err: err}
	}
	if !o.DropExisting {
		if err := p.checkExistingTables(); err != nil {
			return nil, &badinput.Error{Err: err}
		}
	}
	return p, nil
}

// Configure is New without the checks of paths and existing servers: the configurations, their
// memory caps, their engines, the shard and the repeats, and the run's id; what a command line
// can be checked for on any machine. An error is a *badinput.Error, returned with the plan as far
// as it got (Matrix is set once the configuration index was checked).
func Configure(reg *engine.Registry, w workload.Benchmark, o Options) (*Plan, error) {
	p := &Plan{Workload: w, Registry: reg, Spec: o.Spec, Notices: slices.Clone(o.Warnings), opts: o}
	if err := p.configure(); err != nil {
		return p, &badinput.Error{Err: err}
	}
	p.Started = time.Now()
	p.RunID = p.Started.Format("20060102-150405") + "-" + w.Name()
	if p.Matrix != nil { // the runs of a matrix may start in one second, beside each other
		p.RunID += "-" + p.Matrix.Config
	}
	p.Shard = shardMark(o, w.Clients())
	if s := o.Shard; s.Sharded() { // so are the shards of one run on one host
		p.RunID += fmt.Sprintf("-shard%dof%d", s.Index, s.Count)
	}
	if p.Out = o.Out; p.Out == "" {
		p.Out = filepath.Join("results", p.RunID)
	}
	return p, nil
}

// configure resolves the run's configurations (the run spec's, or its selected one), their
// memory caps and their engines' checks into p.
func (p *Plan) configure() error {
	o := p.opts
	var notice string
	var err error
	if p.Matrix, notice, err = configIndex(o); err != nil {
		return err
	}
	cps, more, err := configs(p.Registry, o, p.Matrix, p.Workload)
	if err != nil {
		return err
	}
	if notice != "" {
		more = append(more, notice)
	}
	if err := checkMemoryCaps(cps); err != nil {
		return err
	}
	p.Configs, p.Notices = cps, append(p.Notices, more...)
	if err := checkEngines(p.Workload, p.Registry, cps); err != nil {
		return err
	}
	if err := checkShardConfigs(o, p.Registry, cps); err != nil {
		return err
	}
	if err := checkWarmup(o.Warmup, p.Workload, o.Shard.Sharded()); err != nil {
		return err
	}
	return p.repeatConfigs()
}

// placeData decides where each configuration's data goes: an existing server's data directory
// is measured, never created, written or removed (its data_dir, else --data-dir when no
// configuration keeps its data under --data-dir); the managed configurations' data goes under
// the data root, --data-dir or data/<run id>.
func (p *Plan) placeData() error {
	managed := 0
	for _, c := range p.Configs {
		if c.DSN == "" {
			managed++
		}
	}
	for i := range p.Configs {
		c := &p.Configs[i]
		if c.DSN == "" {
			continue
		}
		if c.DataDir = c.dataDir; c.DataDir == "" && managed == 0 {
			c.DataDir = p.opts.DataDir
		}
		if c.DataDir != "" && !isDir(c.DataDir) {
			return fmt.Errorf("%sconfiguration %s: the existing server's data directory %s is not a directory", c.at, c.Name, c.DataDir)
		}
		if p.HostDir == "" {
			p.HostDir = c.DataDir
		}
	}
	if managed == 0 {
		return nil
	}
	if p.DataRoot = p.opts.DataDir; p.DataRoot == "" {
		p.DataRoot = filepath.Join("data", p.RunID)
	} else if parent := filepath.Dir(filepath.Clean(p.DataRoot)); !isDir(parent) {
		return fmt.Errorf("data directory %s: its parent %s is not an existing directory (create it first)", p.DataRoot, parent)
	}
	// Execute removes each configuration's data once it is done, unless Keep.
	if p.Need = p.Workload.EstimateBytes(); p.opts.Keep {
		p.Need = satMul(p.Need, int64(managed*max(1, p.opts.Repeat)))
	}
	for i := range p.Configs {
		if p.Configs[i].DSN == "" {
			p.Configs[i].DataDir = filepath.Join(p.DataRoot, p.Configs[i].Name)
		}
	}
	p.HostDir = p.DataRoot
	return nil
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// satMul returns a*b for non-negative a and b, or math.MaxInt64 where that overflows.
func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
