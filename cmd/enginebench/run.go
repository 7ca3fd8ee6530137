package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/plan"
	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/verdict"
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
	// thresholdFlag is --threshold as given, thresholds the verdicts' limits it sets.
	thresholdFlag []string
	thresholds    verdict.Thresholds
	// stallTimeout is the stall watchdog's limit; 0 turns it off.
	stallTimeout time.Duration
	// excludeWarmup is --exclude-warmup: seconds left out at the start of every step that
	// runs for a duration.
	excludeWarmup float64
	// cpuProfile, cpuProfileHz and counters are --cpu-profile, --cpu-profile-hz and
	// --counters as given; profiling, set by checkFlags, what they ask for.
	cpuProfile   string
	cpuProfileHz int
	counters     string
	perf         string
	profiling    workload.Profiling
	// owner maps each workload-specific flag to the workloads it belongs to.
	owner flagOwners

	// configIndexFlag selects one configuration of the run spec (--config-index).
	configIndexFlag string
	// noCalibrate skips the calibration probe.
	noCalibrate bool
	// sh are the flags of a sharded run (--shard) and of --start-at.
	sh shardFlags
	// repeatFlag is --repeat as given; repeat, set by checkFlags, the times each configuration runs.
	repeatFlag string
	repeat     int
	// confidenceFlag and repeatMax are --confidence and --repeat-max as given; repeatAuto, set
	// by checkFlags, --repeat auto's target (nil without it).
	confidenceFlag string
	repeatMax      int
	repeatAuto     *workload.AutoRepeat
	// summary is --summary: brief or full, what the summary printed at the end shows.
	summary string
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
(run.json, intervals.csv, summary.md, report.html). A brief summary is printed at the
end (--summary full prints every table of summary.md).

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
	fl.StringVar(&f.engines, "engines", "sqlite,pebble", "comma-separated engines to run, one configuration each: ENGINE, or NAME=ENGINE to name it (pg15=postgres,pg17=postgres)")
	fl.StringVar(&f.config, "config", "", "run spec (YAML): workload, scale, params and named engine configurations; see docs/run-spec.md")
	fl.StringVar(&f.scale, "scale", "small", "size preset: "+h.scaleHelp(true))
	fl.StringVar(&f.steps, "steps", "", "comma-separated subset of steps to run; default all ("+h.steps+")")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of every random value (default: the workload's, "+h.seeds+")")
	fl.StringVar(&f.variant, "variant", string(workload.Reference), "reference: what the reference implementation does, statement for statement (default); corrected: with every documented correction (docs/fidelity.md)")
	fl.StringVar(&f.verify, "verify", string(workload.VerifyEnd), "when to check that nothing written was lost: end (after the last step) or each-step (also after every step that writes)")
	fl.Float64Var(&f.clientCPULimit, "client-cpu-limit", measure.DefaultClientCPULimitPct, "client-saturation check: a step in which the client (this process; server engines only) used more than `PCT` percent of all CPUs is marked client-bound, as the client may have limited the engine (more than 0, at most 100)")
	fl.StringArrayVar(&f.thresholdFlag, "threshold", nil, "a verdict's threshold, `CHECK=VALUE` (repeatable, or comma-separated): a step whose figure passes it is flagged in run.json, the summary and the report (checks and defaults: docs/results.md, Verdicts)")
	fl.Float64Var(&f.excludeWarmup, "exclude-warmup", 0, "leave the first `SECONDS` of every step that runs for a duration (query steps of the corrected variant, LinkBench's run.N, iiBench with --seconds, capacity levels) out of its figures: rates, totals, latencies and costs count from the first tick after them; the per-second series keeps them. 0 (default): count everything, as the reference does")
	fl.DurationVar(&f.stallTimeout, "stall-timeout", 5*time.Minute, "stall watchdog: fail a step in which no operation completes for this long (a frozen or stuck engine), cancel its clients and close the engine; 0 turns the watchdog off")
	fl.StringVar(&f.cpuProfile, "cpu-profile", "off", "a CPU profile of the DBMS per step (a server's process tree, or this process for an embedded engine), written to profiles/ and drawn as flame graphs in the report: `MODE` step (the whole measured time; --cpu-profile alone), windows (10 s every 60 s, as the reference's scripts) or off (docs/efficiency.md)")
	fl.Lookup("cpu-profile").NoOptDefVal = "step"
	fl.IntVar(&f.cpuProfileHz, "cpu-profile-hz", workload.DefaultProfileHz, "perf's sampling frequency for --cpu-profile, samples per CPU second (Go's runtime/pprof, for the embedded engines in Go, samples at 100)")
	fl.StringVar(&f.counters, "counters", "off", "perf stat's counters of the DBMS per step, divided by its operations: `SET` all (the reference's groups of hardware events and the software events; --counters alone), software (task-clock, context switches, migrations, page faults) or off")
	fl.Lookup("counters").NoOptDefVal = "all"
	fl.StringVar(&f.perf, "perf", "", "the perf binary --cpu-profile and --counters run, a path or a name found on PATH (default: perf on PATH)")
	fl.StringVar(&f.configIndexFlag, "config-index", "", "run only configuration `K` (0-based) of the run spec, for a matrix across machines (docs/scale-out.md); default $"+shard.JobIndexEnv+" with --config")
	f.sh.add(fl)
	fl.StringVar(&f.repeatFlag, "repeat", "1", "run each configuration `K` times, interleaved (A B A B ...), each on a fresh engine; the summary and the report show each cell's median and spread and each ratio to the base's 95% interval (docs/results.md, Repeats). "+
		"auto: repeat in rounds until every configuration's at-a-glance ratio to the first is known within --confidence, or --repeat-max rounds have run")
	fl.StringVar(&f.confidenceFlag, "confidence", defaultConfidence, "with --repeat auto, the target: the largest half-width of the 95% interval of every configuration's at-a-glance ratio to the first, relative, `PCT` percent (more than 0, at most 100)")
	fl.IntVar(&f.repeatMax, "repeat-max", defaultRepeatMax, "with --repeat auto, the most rounds it runs, `N` (at least 3, the rounds it runs before judging)")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "skip the calibration probe (a CPU loop and fsync latency in the data directory) run before the first configuration")
	fl.StringVar(&f.summary, "summary", summaryBrief, "the summary printed at the end: brief (the top summary, the throughput table, the flags of the verdicts, about a screen) or full (every table of summary.md)")
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
	f.owner = addWorkloadFlags(fl)
	return cmd, f
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
	run, err := pl.NewRun(dirs.Results, toolInfo(), append([]string{"enginebench"}, redactArgs(os.Args[1:])...), *secrets)
	if err != nil {
		return exitError{exitFailed, err.Error()}
	}
	dirs.Started()
	res, saveErr := f.runAll(sig, pl, run, dirs.Results, log, stderr, *secrets)
	return finishRun(stdout, log, dirs.Results, res, saveErr, f.summary == summaryFull)
}

// runAll runs the plan's workload on every configuration with run's results in dir, and
// completes the results of configurations on existing servers. The error is that of the
// run's last write of run.json and intervals.csv.
func (f *runFlags) runAll(sig runSignals, pl *plan.Plan, run *result.Run, dir *result.Dir, log, stderr io.Writer, secrets []string) (*result.Run, error) {
	external := false
	for i := range pl.Configs {
		pl.Configs[i].Log, pl.Configs[i].Abort = log, sig.abort
		external = external || pl.Configs[i].DSN != ""
	}
	progressOut, _ := stderr.(*os.File)
	terminal := progressOut != nil && runner.IsTerminal(progressOut)
	wp := pl.Execution(dir, run, workload.Env{Log: log, Runner: &runner.Runner{Clock: runner.SystemClock(),
		Progress: runner.NewProgress(stderr, terminal), ClientCPULimitPct: f.clientCPULimit, Thresholds: f.thresholds, StallTimeout: f.stallTimeout,
		Warmup: workload.Seconds(f.excludeWarmup), Histograms: hdrlog.NewDir(filepath.Join(dir.Path(), hdrlog.DirName))}})
	wp.Profiling = f.profiling
	pl.Announce(log)
	if f.profiling.On() {
		fmt.Fprintf(log, "profiling every step: %s\n", f.profiling)
	}
	if !f.noCalibrate {
		run.Calibration = calibrate(sig.ctx, pl.DataRoot, log)
	}
	res, saveErr := workload.Execute(sig.ctx, wp)
	// Each file holds the whole run: one that an earlier write failed to write and is written
	// now loses nothing.
	switch {
	case external && saveErr != nil:
		saveErr = errors.Join(pl.FinishExternal(res, dir, secrets), dir.WriteIntervals(res))
	case external:
		saveErr = pl.FinishExternal(res, dir, secrets) // rewrites run.json
	case saveErr != nil:
		saveErr = errors.Join(dir.WriteRun(res), dir.WriteIntervals(res))
	}
	return res, saveErr
}

// finishRun writes the summary and the report of res, prints the summary (brief, or every table
// when full), and the paths of the results and the report when they were written, and returns
// the run's exit status as an error. saveErr is the error of the last write of run.json and
// intervals.csv.
func finishRun(stdout, log io.Writer, dir *result.Dir, res *result.Run, saveErr error, full bool) error {
	writeErr := saveErr
	if err := dir.WriteFile("summary.md", []byte(report.Markdown(res, registry.Layouts()))); err != nil {
		writeErr = errors.Join(writeErr, err)
	}
	reportErr := report.WriteRunReport(dir, res, registry.Layouts())
	writeErr = errors.Join(writeErr, reportErr)
	fmt.Fprintln(stdout)
	write := report.WriteBrief
	if full {
		write = report.WriteText
	}
	if err := write(stdout, res, registry.Layouts()); err != nil {
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
