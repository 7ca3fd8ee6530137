package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/runspec"
	"github.com/enginebench/enginebench/internal/workload"
)

// runFlags are the flags of `enginebench run`.
type runFlags struct {
	engines string
	config  string
	scale   string
	steps   string
	out     string
	dataDir string
	keep    bool
	// dropExisting drops the workload's tables an existing server already has.
	dropExisting bool
	set          []string
	memoryLimit  string
	dsn          []string
	dbPID        []string
	seed         uint64
	variant      string
	verify       string
	// clientCPULimit is the client-saturation check's limit, in percent of all CPUs.
	clientCPULimit float64
	// stallTimeout is the stall watchdog's limit; 0 turns it off.
	stallTimeout time.Duration
	// owner maps each workload-specific flag to the workloads it belongs to.
	owner map[string][]string

	// configIndexFlag selects one configuration of the run spec (--config-index).
	configIndexFlag string
	// noCalibrate skips the calibration probe.
	noCalibrate bool
	// matrix, set by plan from --config-index or JOB_COMPLETION_INDEX, is the one
	// configuration of the run spec that runs; nil for all.
	matrix *result.Matrix
	// sh are the flags of a sharded run (--shard) and of --start-at.
	sh shardFlags
	// repeatFlag is --repeat as given; repeat, set by plan, the times each configuration runs.
	repeatFlag string
	repeat     int
}

// notParam reports the flags of `run` that a run spec's params cannot set: the spec has keys
// of its own for them, or they name where the run's files go, or they are per-invocation.
func notParam(flag string) bool {
	switch flag {
	case "config", "engines", "scale", "out", "data-dir", "keep", "drop-existing", "set", "dsn", "db-pid", "help", "workload", "config-index", "repeat",
		"shard", "shard-run", "shard-timeout", "start-at":
		return true
	}
	return false
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd, _ := runCommand(stdout, stderr)
	return cmd
}

// runCommand returns the run command and the flags it parses into.
func runCommand(stdout, stderr io.Writer) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	ws := registry.Workloads()
	h := helpOf(ws)
	cmd := &cobra.Command{
		Use:   "run [" + h.use + "]",
		Short: "Run a workload (default: " + ws[0].Title + ") on one or more engine configurations",
		Long: "Run a workload (" + h.list + ") on" + `
each engine configuration in turn and write a run directory
(run.json, intervals.csv, summary.md). The summary is printed at the end.

The configurations are one per engine of --engines, or the named configurations of a run
spec (--config FILE.yaml, see docs/run-spec.md). Sizes come from --scale
(` + h.scaleHelp(false) + `); any size flag overrides its preset, and any flag given on the
command line overrides the run spec.

--dsn runs a server engine against an existing server instead of a managed one; its value
is never printed or recorded. ENGINEBENCH_DSN is the default DSN of a run of one server
configuration.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorkload(cmd, args, f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.engines, "engines", "sqlite,pebble", "comma-separated engines to run, one configuration each")
	fl.StringVar(&f.config, "config", "", "run spec (YAML): workload, scale, params and named engine configurations; see docs/run-spec.md")
	fl.StringVar(&f.scale, "scale", "small", "size preset: "+h.scaleHelp(true))
	fl.StringVar(&f.steps, "steps", "", "comma-separated subset of steps to run; default all ("+h.steps+")")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of every random value (default: the workload's, "+h.seeds+")")
	fl.StringVar(&f.variant, "variant", string(workload.Reference), "reference: what the reference implementation does, statement for statement (default); corrected: with every documented correction (docs/fidelity.md)")
	fl.StringVar(&f.verify, "verify", string(workload.VerifyEnd), "when to check that nothing written was lost: end (after the last step) or each-step (also after every step that writes)")
	fl.Float64Var(&f.clientCPULimit, "client-cpu-limit", measure.DefaultClientCPULimitPct, "client-saturation check: a step in which the client (this process; server engines only) used more than `PCT` percent of all CPUs is marked client-bound, as the client may have limited the engine (more than 0, at most 100)")
	fl.DurationVar(&f.stallTimeout, "stall-timeout", 5*time.Minute, "stall watchdog: fail a step in which no operation completes for this long (a frozen or stuck engine), cancel its clients and close the engine; 0 turns the watchdog off")
	fl.StringVar(&f.configIndexFlag, "config-index", "", "run only configuration `K` (0-based) of the run spec, for a matrix across machines (docs/scale-out.md); default $"+jobIndexEnv+" with --config")
	f.sh.add(fl)
	fl.StringVar(&f.repeatFlag, "repeat", "1", "run each configuration `K` times, interleaved (A B A B ...), each on a fresh engine; the summary and the report show each cell's median and spread (docs/results.md, Repeats)")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "skip the calibration probe (a CPU loop and fsync latency in the data directory) run before the first configuration")
	fl.StringVar(&f.out, "out", "", "results directory (default results/<YYYYMMDD-HHMMSS>-<workload>)")
	fl.StringVar(&f.dataDir, "data-dir", "", "where the engines' data goes, a subdirectory per configuration; must be empty (default data/<run id>). "+
		"When every configuration uses an existing server (--dsn), the server's data directory, whose device and size are measured (never written)")
	fl.BoolVar(&f.keep, "keep", false, "keep the engines' data directories (and a managed server's logs) after the run; on an existing server (--dsn), the workload's tables")
	fl.BoolVar(&f.dropExisting, "drop-existing", false, "on an existing server (--dsn), drop the workload's tables an earlier run left (without it, a run on a server that has them is refused)")
	fl.StringVar(&f.memoryLimit, "memory-limit", "", "cap every configuration's memory at `SIZE` (256M, 2G: powers of 1024) through a kernel cgroup, page cache included, "+
		"so the data outgrows what the engine may cache (docs/memory.md); none: no cap. Default: the preset's (iobound has one). A configuration's memory_limit setting wins")
	fl.StringArrayVar(&f.set, "set", nil, "setting CONFIG.SETTING=VALUE (repeatable): CONFIG is a configuration's name or an engine's (all its configurations); see `enginebench engines ENGINE`")
	fl.StringArrayVar(&f.dsn, "dsn", nil, "existing server to run on instead of a managed one: DSN when one configuration runs, else CONFIG=DSN (repeatable); never recorded (default $ENGINEBENCH_DSN for one server configuration)")
	fl.StringArrayVar(&f.dbPID, "db-pid", nil, "process id of the existing server's main process on this host, N or CONFIG=N (repeatable): its CPU and IO are the DBMS's")
	f.owner = map[string][]string{}
	f.addWorkloadFlags(fl)
	return cmd, f
}

// checkClientCPULimit refuses a --client-cpu-limit that is not a percentage of the CPUs.
func checkClientCPULimit(pct float64) error {
	if math.IsNaN(pct) || pct <= 0 || pct > 100 {
		return fmt.Errorf("--client-cpu-limit %v: want a percentage of all CPUs, more than 0 and at most 100", pct)
	}
	return nil
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// applySpec applies the run spec's scale and params to the flags that were not given on the
// command line: flags given explicitly override the spec. A param must be a flag of the
// workload (or common to every workload).
func (f *runFlags) applySpec(fl *pflag.FlagSet, sp *runspec.Spec, workload string) error {
	if sp.Scale != "" && !fl.Changed("scale") {
		if err := fl.Set("scale", sp.Scale); err != nil {
			return fmt.Errorf("%s: scale: %w", sp.Path, err)
		}
	}
	if sp.Repeat != "" && !fl.Changed("repeat") {
		if _, err := parseRepeat(sp.Repeat); err != nil {
			return fmt.Errorf("%s: repeat: %w", sp.Path, err)
		}
		f.repeatFlag = sp.Repeat
	}
	accepted := func(name string) bool {
		owners, ok := f.owner[name]
		return !notParam(name) && fl.Lookup(name) != nil && (!ok || slices.Contains(owners, workload))
	}
	for _, p := range sp.Params {
		at := fmt.Sprintf("%s:%d", sp.Path, p.Line)
		if !accepted(p.Flag) {
			var names []string
			fl.VisitAll(func(fg *pflag.Flag) {
				if accepted(fg.Name) {
					names = append(names, fg.Name)
				}
			})
			return fmt.Errorf("%s: params: unknown %s parameter %q (accepted: %s)", at, workload, p.Flag, strings.Join(names, ", "))
		}
		if fl.Changed(p.Flag) {
			continue // the command line wins
		}
		if err := fl.Set(p.Flag, p.Value); err != nil {
			return fmt.Errorf("%s: params: %s: %q is not valid: %w", at, p.Flag, p.Value, err)
		}
	}
	return nil
}

// configPlan is one engine configuration of the run and where its parts came from.
type configPlan struct {
	engine.Config
	at      string // "FILE:LINE: " of a run spec's configuration, for messages
	dsnFrom string // where the DSN came from, for messages that must not show it
	dataDir string // an existing server's data directory, from the run spec
	capFrom string // where MemoryLimit came from, for messages
}

// configs builds the engine configurations of the run: the run spec's, or one per engine of
// --engines; then applies --set, --dsn, ENGINEBENCH_DSN (read with getenv) and --db-pid, and
// checks every configuration, or with f.matrix keeps and checks only the one that runs.
// notices are to be printed once every check has passed.
//
// memLimit is --memory-limit when given (else nil) and w the workload, whose preset may cap
// memory (applyMemoryLimits).
func (f *runFlags) configs(reg *engine.Registry, sp *runspec.Spec, getenv func(string) string, memLimit *string, w workload.Workload) (cps []configPlan, notices []string, err error) {
	if cps, err = f.namedConfigs(sp); err != nil {
		return nil, nil, err
	}
	names := make([]string, len(cps))
	for i, c := range cps {
		names[i] = c.Name
	}
	if err := f.applySet(cps, sp != nil); err != nil {
		return nil, nil, err
	}
	if err := f.applyDSN(cps, names); err != nil {
		return nil, nil, err
	}
	if err := applyDSNEnv(cps, sp, getenv); err != nil {
		return nil, nil, err
	}
	if env := getenv("ENGINEBENCH_DSN"); env != "" && len(cps) == 1 && cps[0].DSN == "" {
		if d, err := reg.Lookup(cps[0].Engine); err == nil && d.Server {
			cps[0].DSN, cps[0].dsnFrom = env, "ENGINEBENCH_DSN"
			notices = append(notices, fmt.Sprintf("configuration %s runs on the existing server of ENGINEBENCH_DSN", cps[0].Name))
		}
	}
	if err := f.applyDBPID(cps, names); err != nil {
		return nil, nil, err
	}
	if err := applyMemoryLimits(reg, cps, memLimit, w); err != nil {
		return nil, nil, err
	}
	if f.matrix != nil {
		cps = cps[f.matrix.Index : f.matrix.Index+1] // the others are checked where they run
	}
	for i := range cps {
		cps[i].Keep = f.keep
		if err := checkConfig(reg, &cps[i], sp != nil); err != nil {
			return nil, nil, err
		}
	}
	return cps, notices, nil
}

// namedConfigs returns the configurations the run names, before any flag applies: the run
// spec's, or one per engine of --engines with no settings.
func (f *runFlags) namedConfigs(sp *runspec.Spec) ([]configPlan, error) {
	var cps []configPlan
	if sp != nil {
		for _, e := range sp.Configs {
			cps = append(cps, configPlan{
				Config: engine.Config{Name: e.Name, Engine: e.Engine, Settings: maps.Clone(e.Settings), DSN: e.DSN, DBPID: e.DBPID},
				at:     e.Where(sp.Path) + ": ", dsnFrom: e.DSNFrom, dataDir: e.DataDir})
		}
		return cps, nil
	}
	names := splitList(f.engines)
	if len(names) == 0 {
		return nil, fmt.Errorf("--engines is empty")
	}
	for _, n := range names {
		if slices.ContainsFunc(cps, func(c configPlan) bool { return c.Name == n }) {
			return nil, fmt.Errorf("engine %q given twice in --engines", n)
		}
		cps = append(cps, configPlan{Config: engine.Config{Name: n, Engine: n, Settings: map[string]string{}}})
	}
	return cps, nil
}

// applyDSNEnv reads the DSN of each run spec configuration with dsn_env: from its
// environment variable (with getenv), unless --dsn gave one.
func applyDSNEnv(cps []configPlan, sp *runspec.Spec, getenv func(string) string) error {
	if sp == nil {
		return nil
	}
	for i, e := range sp.Configs {
		if e.DSNEnv == "" || cps[i].dsnFrom == "--dsn" {
			continue
		}
		if cps[i].DSN = getenv(e.DSNEnv); cps[i].DSN == "" {
			return fmt.Errorf("%sconfiguration %s: dsn_env: the environment variable %s is not set", cps[i].at, e.Name, e.DSNEnv)
		}
		cps[i].dsnFrom = "environment variable " + e.DSNEnv
	}
	return nil
}

// checkConfig checks a configuration once every flag has applied: a server process id and a
// data directory need an existing server, the process exists, and the engine accepts it.
// fromSpec says whether it comes from a run spec, for the error's prefix.
func checkConfig(reg *engine.Registry, c *configPlan, fromSpec bool) error {
	if c.DSN == "" && c.DBPID != 0 {
		return fmt.Errorf("%sconfiguration %s: a server process id (--db-pid, db_pid) needs an existing server: give its DSN (--dsn, dsn, dsn_env or ENGINEBENCH_DSN)", c.at, c.Name)
	}
	if c.DSN == "" && c.dataDir != "" {
		return fmt.Errorf("%sconfiguration %s: data_dir names an existing server's data directory: give its DSN (--dsn, dsn, dsn_env or ENGINEBENCH_DSN)", c.at, c.Name)
	}
	if c.DBPID != 0 {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", c.DBPID)); err != nil {
			return fmt.Errorf("%sconfiguration %s: server process %d: no such process on this host", c.at, c.Name, c.DBPID)
		}
	}
	if err := reg.Check(c.Config); err != nil {
		prefix := c.at
		if fromSpec || c.DSN != "" {
			prefix += "configuration " + c.Name
			if c.DSN != "" {
				prefix += " (DSN from " + c.dsnFrom + ")"
			}
			prefix += ": "
		}
		return fmt.Errorf("%s%w", prefix, err)
	}
	return nil
}

// applySet applies --set CONFIG.SETTING=VALUE: CONFIG is the longest configuration name or,
// failing that, engine name that prefixes the key (names and settings may hold dots).
func (f *runFlags) applySet(cps []configPlan, fromSpec bool) error {
	for _, s := range f.set {
		key, val, ok := strings.Cut(s, "=")
		target, byEngine := "", false
		for _, c := range cps {
			for _, n := range []string{c.Name, c.Engine} {
				if strings.HasPrefix(key, n+".") && len(key) > len(n)+1 && len(n) > len(target) {
					target, byEngine = n, n != c.Name
				}
			}
		}
		if slices.ContainsFunc(cps, func(c configPlan) bool { return c.Name == target }) {
			byEngine = false // a configuration's name wins over an engine's
		}
		if !ok || key == "" {
			return fmt.Errorf("--set %q: want CONFIG.SETTING=VALUE", s)
		}
		if target == "" {
			first, _, ok2 := strings.Cut(key, ".")
			switch {
			case !ok2 || first == "":
				return fmt.Errorf("--set %q: want CONFIG.SETTING=VALUE", s)
			case fromSpec:
				return fmt.Errorf("--set %q: %q is neither a configuration nor an engine of the run spec", s, first)
			default:
				return fmt.Errorf("--set %q: engine %q is not in --engines", s, first)
			}
		}
		setting := key[len(target)+1:]
		for i := range cps {
			if cps[i].Name == target || (byEngine && cps[i].Engine == target) {
				cps[i].Settings[setting] = val
			}
		}
	}
	return nil
}

// applyDSN applies --dsn DSN (one configuration) and --dsn CONFIG=DSN. A DSN may itself hold
// '=' (host=/tmp user=u): the CONFIG= form is recognized only by a configuration's name.
// Messages never show a DSN.
func (f *runFlags) applyDSN(cps []configPlan, names []string) error {
	given := map[string]bool{}
	for _, v := range f.dsn {
		i, dsn := -1, v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if j := slices.Index(names, name); j >= 0 {
				i, dsn = j, rest
			}
		}
		if i < 0 {
			if len(cps) != 1 {
				return fmt.Errorf("--dsn %s: the run has %d configurations (%s): give --dsn CONFIG=DSN for each server",
					redactDSNFlag(v), len(cps), strings.Join(names, ", "))
			}
			i = 0
		}
		if dsn == "" {
			return fmt.Errorf("--dsn %s: the DSN is empty", redactDSNFlag(v))
		}
		if given[cps[i].Name] {
			return fmt.Errorf("--dsn is given twice for configuration %s", cps[i].Name)
		}
		given[cps[i].Name] = true
		cps[i].DSN, cps[i].dsnFrom = dsn, "--dsn"
	}
	return nil
}

// applyDBPID applies --db-pid N (one configuration) and --db-pid CONFIG=N.
func (f *runFlags) applyDBPID(cps []configPlan, names []string) error {
	given := map[string]bool{}
	for _, v := range f.dbPID {
		i, num := -1, v
		if name, rest, ok := strings.Cut(v, "="); ok {
			if i = slices.Index(names, name); i < 0 {
				return fmt.Errorf("--db-pid %q: no configuration is called %q (configurations: %s)", v, name, strings.Join(names, ", "))
			}
			num = rest
		} else if len(cps) != 1 {
			return fmt.Errorf("--db-pid %q: the run has %d configurations (%s): give --db-pid CONFIG=N", v, len(cps), strings.Join(names, ", "))
		} else {
			i = 0
		}
		pid, err := strconv.Atoi(num)
		if err != nil || pid <= 0 {
			return fmt.Errorf("--db-pid %q: want a process id (a positive integer)", v)
		}
		if given[cps[i].Name] {
			return fmt.Errorf("--db-pid is given twice for configuration %s", cps[i].Name)
		}
		given[cps[i].Name] = true
		cps[i].DBPID = pid
	}
	return nil
}

// runWorkload runs the workload; no DSN or password reaches its messages.
func runWorkload(cmd *cobra.Command, args []string, f *runFlags, stdout, stderr io.Writer) error {
	secrets := redact.Secrets(os.Getenv("ENGINEBENCH_DSN"))
	for _, v := range f.dsn {
		secrets = append(secrets, redact.Secrets(v)...)
		if _, rest, ok := strings.Cut(v, "="); ok {
			secrets = append(secrets, redact.Secrets(rest)...)
		}
	}
	err := execute(cmd, args, f, stdout, stderr, &secrets)
	return redactError(err, secrets)
}

// execute checks everything, then runs the workload on every configuration. It adds the
// DSNs it learns (run spec, environment) to secrets.
func execute(cmd *cobra.Command, args []string, f *runFlags, stdout, stderr io.Writer, secrets *[]string) error {
	pl, err := f.plan(cmd.Flags(), args, secrets)
	if err != nil {
		return err
	}
	log := redact.NewWriter(stderr, *secrets)
	sig := notifySignals(log) // from here to the end: a signal never leaves a lock file behind
	defer sig.stop()
	dirs, err := openRunDirs(pl, f.dataDir != "", log)
	if err != nil {
		return err
	}
	defer dirs.Close()
	run, err := pl.newRun(f, dirs.Results, *secrets)
	if err != nil {
		return err
	}
	dirs.Started()
	res, saveErr := f.runAll(sig, pl, run, dirs.Results, log, stderr, *secrets)
	return finishRun(stdout, log, dirs.Results, res, saveErr)
}

// runAll runs the plan's workload on every configuration with run's results in dir, and
// completes the results of configurations on existing servers. The error is that of the
// run's last write of run.json and intervals.csv.
func (f *runFlags) runAll(sig runSignals, pl *runPlan, run *result.Run, dir *result.Dir, log, stderr io.Writer, secrets []string) (*result.Run, error) {
	cfgs := make([]engine.Config, len(pl.cps))
	external := false
	for i := range pl.cps {
		pl.cps[i].Log, pl.cps[i].Abort = log, sig.abort
		cfgs[i] = pl.cps[i].Config
		external = external || pl.cps[i].DSN != ""
	}
	progressOut, _ := stderr.(*os.File)
	terminal := progressOut != nil && runner.IsTerminal(progressOut)
	plan := workload.Plan{
		Workload: pl.w, Registry: pl.reg, Configs: cfgs, Dir: dir, Keep: f.keep, DropExisting: f.dropExisting, Run: run, Shard: f.sh.parsed, Repeat: f.repeat,
		Env: workload.Env{Log: log, Runner: &runner.Runner{Clock: runner.SystemClock(),
			Progress: runner.NewProgress(stderr, terminal), ClientCPULimitPct: f.clientCPULimit, StallTimeout: f.stallTimeout,
			Histograms: hdrlog.NewDir(filepath.Join(dir.Path(), hdrlog.DirName))}},
	}
	pl.announce(log, f.engines)
	if !f.noCalibrate {
		run.Calibration = calibrate(sig.ctx, pl.dataRoot, log)
	}
	res, saveErr := workload.Execute(sig.ctx, plan)
	// Each file holds the whole run: one that an earlier write failed to write and is written
	// now loses nothing.
	switch {
	case external && saveErr != nil:
		saveErr = errors.Join(f.finishExternal(res, pl.cps, dir, secrets), dir.WriteIntervals(res))
	case external:
		saveErr = f.finishExternal(res, pl.cps, dir, secrets) // rewrites run.json
	case saveErr != nil:
		saveErr = errors.Join(dir.WriteRun(res), dir.WriteIntervals(res))
	}
	return res, saveErr
}

// finishRun writes the summary and the report of res, prints the summary, and the paths of the
// results and the report when they were written, and returns the run's exit status as an
// error. saveErr is the error of the last write of run.json and intervals.csv.
func finishRun(stdout, log io.Writer, dir *result.Dir, res *result.Run, saveErr error) error {
	writeErr := saveErr
	if err := dir.WriteFile("summary.md", []byte(report.Markdown(res, registry.Layouts()))); err != nil {
		writeErr = errors.Join(writeErr, err)
	}
	reportErr := writeRunReport(dir, res)
	writeErr = errors.Join(writeErr, reportErr)
	fmt.Fprintln(stdout)
	if err := report.WriteText(stdout, res, registry.Layouts()); err != nil {
		writeErr = errors.Join(writeErr, err)
	}
	fmt.Fprintln(stdout)
	if saveErr == nil {
		fmt.Fprintf(stdout, "results: %s\n", dir.Path())
	} else {
		fmt.Fprintf(log, "enginebench: RESULTS NOT SAVED: %s does not hold this run's results: %v\n", dir.Path(), saveErr)
	}
	if reportErr == nil {
		fmt.Fprintf(stdout, "report:  %s\n", filepath.Join(dir.Path(), "report.html"))
	}
	switch {
	case writeErr != nil:
		return exitError{exitFailed, fmt.Sprintf("writing results: %v", writeErr)}
	case res.Status == result.StatusInterrupted:
		return exitError{exitInterrupted, "interrupted; results so far are in " + dir.Path()}
	case res.Status == result.StatusFailed:
		return exitError{exitFailed, "run failed: " + res.Error}
	}
	return nil
}

// finishExternal completes a run with an existing server in it: it notes what was measured of
// each existing server's data directory, removes any DSN or password from the results'
// messages and rewrites run.json.
func (f *runFlags) finishExternal(res *result.Run, cps []configPlan, dir *result.Dir, secrets []string) error {
	clean := func(s string) string { return redact.Text(s, secrets...) }
	res.Error = clean(res.Error)
	for i := range res.Configs {
		rc := &res.Configs[i]
		j := slices.IndexFunc(cps, func(c configPlan) bool { return c.Name == rc.Name })
		if j < 0 {
			continue
		}
		c := cps[j]
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

// writeRunReport writes the run's report.html and its tables as report.md.
func writeRunReport(dir *result.Dir, res *result.Run) error {
	page, err := report.NewPage([]report.Input{{Dir: dir.Path(), Run: res}}, report.Options{Layouts: registry.Layouts()})
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := report.WriteHTML(&html, page); err != nil {
		return err
	}
	if err := dir.WriteFile("report.html", html.Bytes()); err != nil {
		return err
	}
	return dir.WriteFile("report.md", []byte(report.MarkdownPage(page)))
}
