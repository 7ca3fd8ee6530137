// Package result holds the result model of a run (run.json) and reads and writes run directories.
//
// Field names are the contract documented in docs/results.md: users script against them. A metric
// that could not be measured is left out (a nil pointer), never written as a zero that looks real.
package result

import (
	"fmt"
	"slices"
	"time"
)

// Status values of a run and of a step.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusSkipped     = "skipped"
	StatusRunning     = "running"
	// StatusKilled marks a run found "running" after its process died without finishing it
	// (SIGKILL, a crash, a power cut): `enginebench clean` sets it.
	StatusKilled = "killed"
)

// Run is the whole content of run.json.
type Run struct {
	Tool       Tool      `json:"tool"`
	RunID      string    `json:"run_id"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Command    []string  `json:"command,omitempty"`
	Host       Host      `json:"host"`
	// Calibration is the probe run before the first configuration; nil with --no-calibrate.
	Calibration *Calibration `json:"calibration,omitempty"`
	// Matrix marks a run of one configuration of a run spec (--config-index); nil otherwise.
	Matrix *Matrix `json:"matrix,omitempty"`
	// Shard marks the run of one shard of a run's clients (--shard); nil otherwise.
	Shard *Shard `json:"shard,omitempty"`
	// Merged marks a run merged from its shards' runs (enginebench merge); nil otherwise.
	Merged *Merged `json:"merged,omitempty"`
	// RepeatAuto is how a run with --repeat auto chose its count of rounds; nil without it.
	RepeatAuto *RepeatAuto `json:"repeat_auto,omitempty"`
	// ClientCPULimitPct is the client-saturation check's limit (--client-cpu-limit): a step
	// whose client used more than this percentage of all CPUs is ClientBound. 0 in runs made
	// before the check existed.
	ClientCPULimitPct float64 `json:"client_cpu_limit_pct,omitempty"`
	// Thresholds are the limits the verdicts were held to (--threshold and the defaults of
	// package verdict), by check; nil in runs made before verdicts existed.
	Thresholds map[string]float64 `json:"verdict_thresholds,omitempty"`
	// Verdicts are the checks of the host the whole run ran on (governor, boost, SMT,
	// transparent huge pages, the data device's settings); a step's own are in its Verdicts.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	Workload Workload  `json:"workload"`
	Configs  []Config  `json:"configs"`
	Notes    []string  `json:"notes,omitempty"`
}

// Tool identifies the enginebench build that produced a run.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// Workload names the workload and every parameter it ran with.
type Workload struct {
	Name  string `json:"name"`
	Scale string `json:"scale"`
	// Variant is reference (what produced the published numbers) or corrected (every
	// documented correction of the reference); empty in runs made before it existed.
	Variant string `json:"variant,omitempty"`
	// Verify is when the run verified: end (after the last step) or each-step.
	Verify string         `json:"verify,omitempty"`
	Params map[string]any `json:"params"`
}

// ClientSaturatedPct is the client-saturation check's fixed limit: a step in which the client
// (the enginebench process, apart from a server engine) kept the CPUs it may run on busy more
// than this percentage of the time is ClientBound, whatever the run's ClientCPULimitPct.
const ClientSaturatedPct = 85

// Config is one engine configuration of a run and the steps it ran.
type Config struct {
	Name    string `json:"name"`
	Engine  string `json:"engine"`
	Version string `json:"version"`
	// Build is where the engine's binary came from (engine.Builder): a managed server's
	// binary, sha256 and, for PostgreSQL, pg_config's configure, cc and cflags; an embedded
	// engine's library, its version and build, and its Go module (engine.BuildLibrary ...);
	// nil where not known.
	Build    map[string]string `json:"build,omitempty"`
	Settings map[string]string `json:"settings"`
	Status   string            `json:"status"`
	Error    string            `json:"error,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	// Memory is the configuration's memory cap and what the kernel charged to it; nil when
	// the configuration ran without a cap.
	Memory *Memory `json:"memory,omitempty"`
	// Repeat marks one repeat of a configuration of a run with --repeat K > 1 (its Name is
	// "<config>#<index>"); nil in a run of one repeat.
	Repeat *Repeat `json:"repeat,omitempty"`
	// Capacity is the configuration's capacity search (--capacity); nil without one.
	Capacity *Capacity `json:"capacity,omitempty"`
	// Server is where a server engine's DBMS runs, how the client reached it and the round
	// trip's time; nil for an embedded engine.
	Server *ServerLink `json:"server,omitempty"`
	Steps  []Step      `json:"steps"`
}

// Repeat is one of the K runs of a configuration in a run with --repeat K: the repeats run
// interleaved (A#1 B#1 A#2 B#2 ...), each on a fresh engine (docs/results.md, Repeats).
type Repeat struct {
	// Config is the configuration's name, without the "#<index>" of the repeat's.
	Config string `json:"config"`
	// Index is the repeat's number, 1 to Count.
	Index int `json:"index"`
	// Count is K, the repeats of every configuration of the run.
	Count int `json:"count"`
	// Order is the repeat's place in the run, 1 for the first configuration to run.
	Order int `json:"order"`
}

// Why a run with --repeat auto stopped repeating (RepeatAuto.Stopped).
const (
	StoppedConfidenceMet  = "confidence met"
	StoppedMaximumReached = "maximum reached"
	StoppedInterrupted    = "interrupted"
)

// RepeatAuto is how a run with --repeat auto chose its count of rounds: it repeated every
// configuration, interleaved, round after round, until every configuration's at-a-glance
// ratio to the base had a confidence interval narrower than the target, or the maximum count
// of rounds was reached (docs/results.md, Repeats).
type RepeatAuto struct {
	// TargetPct is the target (--confidence): the largest relative half-width, in percent, of
	// the interval of every configuration's at-a-glance ratio to the base.
	TargetPct float64 `json:"target_pct"`
	// Level is the intervals' confidence level, 0.95.
	Level float64 `json:"level"`
	// MinRounds is the rounds run before the intervals are first judged; MaxRounds the most
	// it runs (--repeat-max).
	MinRounds int `json:"min_rounds"`
	MaxRounds int `json:"max_rounds"`
	// Base is the configuration the ratios divide by: the run's first.
	Base string `json:"base"`
	// Rounds is how many rounds began: the last one is partial when the run was interrupted.
	Rounds int `json:"rounds"`
	// Stopped says why it stopped: "confidence met", "maximum reached" or "interrupted";
	// empty while the run goes on.
	Stopped string `json:"stopped,omitempty"`
	// Widths are, by configuration (but the base), the relative half-width in percent of its
	// interval when last judged; null when it had none (fewer than two rounds in which it and
	// the base finished every step). Nil before the first judgement.
	Widths map[string]*float64 `json:"widths,omitempty"`
}

// RepeatName is the name of repeat index of configuration name: "name#index".
func RepeatName(name string, index int) string { return fmt.Sprintf("%s#%d", name, index) }

// Memory is a configuration's memory cap, enforced by a kernel control group
// (docs/memory.md), and what the kernel charged to the group. It is updated after every step.
type Memory struct {
	// LimitBytes is the cap.
	LimitBytes int64 `json:"limit_bytes"`
	// Cgroup is the hierarchy that enforced it: "v1" or "v2".
	Cgroup string `json:"cgroup"`
	// Scope is what ran in the group: "server" (a managed server's process tree) or
	// "process" (the enginebench process with the embedded engine in it).
	Scope string `json:"scope"`
	// PeakBytes is the group's peak usage; nil where the kernel does not keep it.
	PeakBytes *int64 `json:"peak_bytes,omitempty"`
	// UsageBytes and CacheBytes are the group's usage and the page cache share of it, read
	// after the last step.
	UsageBytes int64 `json:"usage_bytes"`
	CacheBytes int64 `json:"cache_bytes"`
	// OOMKills counts the processes the kernel's OOM killer killed in the group.
	OOMKills int64 `json:"oom_kills"`
	// HarnessPeakBytes is the enginebench process's peak resident memory (VmHWM) so far: with
	// scope "process" it counts against the cap, with scope "server" it is the client's, outside
	// it; nil where /proc cannot be read.
	HarnessPeakBytes *int64 `json:"harness_peak_bytes,omitempty"`
}

// Step is the outcome of one step of a workload on one engine configuration.
type Step struct {
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	StartedAt time.Time `json:"started_at"`
	Seconds   float64   `json:"seconds"`
	Clients   int       `json:"clients"`
	// Primary names the op whose per_sec is the step's headline rate (ips, qps); empty for
	// steps without one (cleanup).
	Primary    string         `json:"primary_op,omitempty"`
	Ops        map[string]*Op `json:"ops,omitempty"`
	Target     *Target        `json:"target,omitempty"`
	Efficiency *Efficiency    `json:"efficiency,omitempty"`
	Resources  *Resources     `json:"resources,omitempty"`
	// ClientBound is set when the client (the enginebench process, apart from a server
	// engine) used more than the run's ClientCPULimitPct of all CPUs over the step, or more
	// than ClientSaturatedPct of the CPUs it may run on: the client may have limited the engine.
	ClientBound bool               `json:"client_bound,omitempty"`
	Size        *Size              `json:"size,omitempty"`
	Fairness    *Fairness          `json:"fairness,omitempty"`
	Probe       *Probe             `json:"probe,omitempty"`
	Verify      *Verify            `json:"verify,omitempty"`
	EngineStats map[string]float64 `json:"engine_stats,omitempty"`
	// Capacity is the level of a capacity search this step ran (cap.N); nil otherwise.
	Capacity *CapacityLevel `json:"capacity,omitempty"`
	// HTAP is what the Insert Benchmark's --htap-transaction-seconds held open beside the
	// step's clients; nil when it was off or the step holds none.
	HTAP *HTAP `json:"htap,omitempty"`
	// EngineStatsBefore are the engine's counters at the step's start; written by steps that
	// exist to reduce them (cleanup), so the debt before and after can be compared.
	EngineStatsBefore map[string]float64 `json:"engine_stats_before,omitempty"`
	// Usage holds the step's raw resource totals (CPU seconds, context switches, storage IO,
	// sizes), keyed as the metric columns of intervals.csv; a missing key was not measured.
	Usage map[string]float64 `json:"usage,omitempty"`
	// Phases holds named sub-results of a step, such as each index of the scan step.
	Phases []Phase `json:"phases,omitempty"`
	// Errors counts errors by kind that were retried during the step.
	Retries map[string]int64 `json:"retries,omitempty"`
	// Periods are the step's over-time reports (iiBench: every 10 s), in run.json.
	Periods []Period `json:"periods,omitempty"`
	// Cost is the machine cost of the step at a given price per hour (iiBench --cost-per-hour).
	Cost *Cost `json:"cost,omitempty"`
	// Notes say what the step did where its figures do not (the cleanup: each statement and
	// its seconds, and the wait).
	Notes []string `json:"notes,omitempty"`
	// SrvFrom names where the step's figures from the server's own counters (the srv_* keys of
	// Usage and Efficiency) came from: the views or status variables read ("pg_stat_database,
	// pg_stat_wal, pg_stat_io"); empty when none were read.
	SrvFrom string `json:"srv_from,omitempty"`
	// Profile is the step's CPU profile (--cpu-profile): its file and what divides it; nil
	// when none was asked for.
	Profile *Profile `json:"cpu_profile,omitempty"`
	// Counters are the step's perf stat events (--counters); nil when none were asked for.
	Counters *Counters `json:"counters,omitempty"`
	// Verdicts are the checks of the step's environment, of what it declared against what it
	// measured and of its steady state (docs/results.md, Verdicts).
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Steady is the steady-state check's trend test and settling time; nil where it did not
	// test (no primary operation, too few intervals).
	Steady *Steady `json:"steady,omitempty"`
	// Warmup is the warm-up left out of the step's figures (--exclude-warmup); nil when none
	// was.
	Warmup *Warmup `json:"warmup,omitempty"`
	// Intervals is the per-second series (nil: none); it is written to intervals.csv, not to
	// run.json.
	Intervals *Series `json:"-"`
}

// Op holds the totals of one operation type in a step. Count is operations (statements or
// batches); Units is what the rate is counted in (rows for inserts and deletes, queries for
// queries). PerSec is Units per second of the step's measured time.
type Op struct {
	Count      int64    `json:"count"`
	Units      int64    `json:"units"`
	PerSec     float64  `json:"per_sec"`
	Errors     int64    `json:"errors"`
	Latency    Latency  `json:"latency_us"`
	Response   *Latency `json:"response_us,omitempty"`
	Background bool     `json:"background,omitempty"`
	// Found counts what a query found (rows returned); written only by workloads that report it.
	Found int64 `json:"found,omitempty"`
	// RateP50 and RateP99 are percentiles of the op's per-second rate over the step's whole
	// intervals, as the Insert Benchmark publishes them: RateP50 is the median, and RateP99 the
	// rate that 99% of the intervals reached or exceeded (a low rate, the throughput's tail).
	// Nil with fewer than ten whole intervals.
	RateP50 *float64 `json:"rate_p50,omitempty"`
	RateP99 *float64 `json:"rate_p99,omitempty"`
}

// Latency is a latency distribution summary in microseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	// P25 and P75 are the quartiles, the box of the report's box view; nil in runs made before
	// they were measured, and in the periods' latencies.
	P25 *float64 `json:"p25,omitempty"`
	P75 *float64 `json:"p75,omitempty"`
	// Buckets holds the share of operations (0..1) at or below each bound in BucketBoundsUs.
	Buckets []float64 `json:"buckets,omitempty"`
}

// BucketBoundsUs are the upper bounds of the response-time distribution buckets in microseconds:
// 256us, 1ms, 4ms, 16ms, 64ms, 256ms, 1s, 4s, 16s; the last bucket is everything above.
var BucketBoundsUs = [...]float64{256, 1e3, 4e3, 16e3, 64e3, 256e3, 1e6, 4e6, 16e6}

// Target is the rate a rate-limited background writer aimed at and what it achieved.
type Target struct {
	InsertsPerSec         float64 `json:"inserts_per_sec"`
	AchievedInsertsPerSec float64 `json:"achieved_inserts_per_sec"`
	DeletesPerSec         float64 `json:"deletes_per_sec,omitempty"`
	AchievedDeletesPerSec float64 `json:"achieved_deletes_per_sec,omitempty"`
	SLAMet                bool    `json:"sla_met"`
}

// Efficiency holds per-operation costs; nil fields were not measured.
type Efficiency struct {
	CPUpq       *float64 `json:"cpupq,omitempty"`
	ClientCPUpq *float64 `json:"client_cpupq,omitempty"`
	DBCPUpq     *float64 `json:"db_cpupq,omitempty"`
	CSpq        *float64 `json:"cspq,omitempty"`
	Rpq         *float64 `json:"rpq,omitempty"`
	RKBpq       *float64 `json:"rkbpq,omitempty"`
	Wpi         *float64 `json:"wpi,omitempty"`
	WKBpi       *float64 `json:"wkbpi,omitempty"`
	PRKBpq      *float64 `json:"prkbpq,omitempty"`
	PWKBpi      *float64 `json:"pwkbpi,omitempty"`
	Wamp        *float64 `json:"wamp,omitempty"`
	// MaxRSSMB is the peak resident memory of the DBMS processes in MiB, sampled each second.
	MaxRSSMB *float64 `json:"maxrss_mb,omitempty"`
	// The figures from the server's own counters, read over SQL (docs/efficiency.md, The
	// server's own counters); known also when the server's process is not on this host.
	// SrvRpq and SrvRKBpq are the reads of pages or blocks the server asked of its files, and
	// the KB they transferred, per operation: reads from the OS, its page cache included, not
	// device reads. SrvWKBpi is the KB the server wrote to its data files and its WAL or redo
	// log per write (the host's wkbpi and pwkbpi count both), SrvWALKBpi the WAL's or redo
	// log's part. SrvLRpq is the logical reads (requests to the server's cache, hits and
	// misses) per operation; SrvRowsRpq the rows it read per operation and SrvRowsWpi the rows
	// it inserted, updated and deleted per write.
	SrvRpq     *float64 `json:"srv_rpq,omitempty"`
	SrvRKBpq   *float64 `json:"srv_rkbpq,omitempty"`
	SrvWKBpi   *float64 `json:"srv_wkbpi,omitempty"`
	SrvWALKBpi *float64 `json:"srv_walkbpi,omitempty"`
	SrvLRpq    *float64 `json:"srv_lrpq,omitempty"`
	SrvRowsRpq *float64 `json:"srv_rows_rpq,omitempty"`
	SrvRowsWpi *float64 `json:"srv_rows_wpi,omitempty"`
}

// Resources holds what a step used per second of its measured time, as vmstat and iostat
// show it, and the DBMS's resident memory at its end; nil fields were not measured.
type Resources struct {
	// Rps, RMBps, Wps and WMBps are completed reads, MB (2^20 bytes) read, completed writes and
	// MB written per second on the data directory's device (iostat r/s, rkB/s/1024, w/s,
	// wkB/s/1024).
	Rps   *float64 `json:"rps,omitempty"`
	RMBps *float64 `json:"rmbps,omitempty"`
	Wps   *float64 `json:"wps,omitempty"`
	WMBps *float64 `json:"wmbps,omitempty"`
	// CSps is the host's context switches per second (vmstat cs).
	CSps *float64 `json:"csps,omitempty"`
	// CPUps is the host's user and system CPU time as a percentage of all its CPUs' time
	// (vmstat us+sy): 100 is every CPU busy.
	CPUps *float64 `json:"cpups,omitempty"`
	// ClientCPUPct is the client's (the enginebench process's) CPU time as a percentage of all
	// CPUs' time: 100 is every CPU busy with the client. Nil for an embedded engine, where the
	// client and the engine are one process.
	ClientCPUPct *float64 `json:"client_cpu_pct,omitempty"`
	// RAwaitMs and WAwaitMs are the average milliseconds a read or a write took on the device,
	// queueing included (iostat r_await, w_await); nil when there was none.
	RAwaitMs *float64 `json:"r_await_ms,omitempty"`
	WAwaitMs *float64 `json:"w_await_ms,omitempty"`
	// AquSz is the average number of requests queued or in service on the device (iostat
	// aqu-sz); UtilPct the percentage of the time it had at least one (iostat %util).
	AquSz   *float64 `json:"aqu_sz,omitempty"`
	UtilPct *float64 `json:"util_pct,omitempty"`
	// RSSMB is the resident memory of the DBMS processes in MiB at the step's end (its peak is
	// Efficiency.MaxRSSMB).
	RSSMB *float64 `json:"rss_mb,omitempty"`
}

// Size holds database sizes at the end of a step; nil fields were not measured.
type Size struct {
	DBGB1 *float64 `json:"dbgb1,omitempty"`
	DBGB2 *float64 `json:"dbgb2,omitempty"`
	Samp  *float64 `json:"samp,omitempty"`
}

// Fairness compares the clients' durations in a step.
type Fairness struct {
	MinSeconds  float64 `json:"min_seconds"`
	MaxSeconds  float64 `json:"max_seconds"`
	DiffSeconds float64 `json:"diff_seconds"`
	Pct         float64 `json:"pct"`
}

// Probe is the MVCC-debt probe taken at a step's start: the time of SELECT min(transactionid)
// (the slowest table's, with every table's in Tables).
type Probe struct {
	MinTrxIDSeconds float64   `json:"min_trxid_seconds"`
	Tables          []float64 `json:"tables_seconds,omitempty"`
}

// Verify is the outcome of the after-step check that nothing was lost.
type Verify struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Checked counts what a verification that checks a part of a sharded run's rows checked,
	// by kind (LinkBench: links, counts, nodes), for the merge to sum; nil otherwise.
	Checked map[string]int64 `json:"checked,omitempty"`
}

// Phase is a named part of a step with its own time and rate (e.g. each index of the scan step).
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Rows    int64   `json:"rows"`
	PerSec  float64 `json:"per_sec"`
}

// Period is one over-time report of a step (iiBench's every 10 seconds): each operation over
// the period and since the step's start, and the workload's own figures at its end.
type Period struct {
	// End is the period's end in seconds since the step's start; Seconds is its length.
	End     float64             `json:"end_seconds"`
	Seconds float64             `json:"seconds"`
	Ops     map[string]PeriodOp `json:"ops"`
	// Rows is the number of rows in the table at the period's end (iiBench), when known.
	Rows int64 `json:"rows,omitempty"`
}

// PeriodOp is one operation type in one period: units and rate over the period (Units,
// PerSec, Latency) and since the step's start, or the end of its warm-up (CumUnits, CumPerSec, CumLatency).
type PeriodOp struct {
	Count      int64   `json:"count"`
	Units      int64   `json:"units"`
	PerSec     float64 `json:"per_sec"`
	Errors     int64   `json:"errors,omitempty"`
	Latency    Latency `json:"latency_us"`
	CumUnits   int64   `json:"cum_units"`
	CumPerSec  float64 `json:"cum_per_sec"`
	CumLatency Latency `json:"cum_latency_us"`
}

// Cost is what a step cost on a machine priced by the hour (iiBench's published comparison).
type Cost struct {
	PerHour float64 `json:"per_hour"`
	// Run is the cost of the step's measured time.
	Run float64 `json:"run"`
	// PerBillionInserts is the cost of inserting one billion rows at the step's average rate;
	// absent when nothing was inserted.
	PerBillionInserts *float64 `json:"per_billion_inserts,omitempty"`
}

// Interval is one second of one step: per-operation rates and latency, and (where measured)
// CPU and IO of that second. A step holds its intervals in a Series, not as Intervals.
type Interval struct {
	Second  int                   `json:"second"`
	Time    time.Time             `json:"time"`
	Ops     map[string]IntervalOp `json:"ops"`
	Metrics map[string]float64    `json:"metrics,omitempty"`
}

// IntervalOp is one operation type in one second. Latencies are in microseconds.
type IntervalOp struct {
	Count int64 `json:"count"`
	Units int64 `json:"units"`
	// PerSec is Units per second of the interval. The runner leaves it 0 (intervals.csv
	// computes it from the intervals' times); ReadIntervals sets it from the file, and Units
	// to PerSec times the interval's length, rounded.
	PerSec float64 `json:"per_sec,omitempty"`
	P50    float64 `json:"p50"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
	RtP99  float64 `json:"rt_p99,omitempty"`
	RtMax  float64 `json:"rt_max,omitempty"`
	Errors int64   `json:"errors,omitempty"`
}

// Validate checks that r is a run as enginebench writes it: a run id, a start time, a
// workload name, known statuses, and named configurations and steps. It does not check the
// workload's name against the known workloads.
func (r *Run) Validate() error {
	statuses := []string{StatusOK, StatusFailed, StatusInterrupted, StatusSkipped, StatusRunning, StatusKilled}
	switch {
	case r.RunID == "":
		return fmt.Errorf("no run_id")
	case r.StartedAt.IsZero():
		return fmt.Errorf("no started_at")
	case r.Workload.Name == "":
		return fmt.Errorf("no workload name")
	case !slices.Contains(statuses, r.Status):
		return fmt.Errorf("unknown status %q", r.Status)
	}
	for i, c := range r.Configs {
		if c.Name == "" {
			return fmt.Errorf("configuration %d has no name", i+1)
		}
		if !slices.Contains(statuses, c.Status) {
			return fmt.Errorf("configuration %s: unknown status %q", c.Name, c.Status)
		}
		for j, s := range c.Steps {
			if s.Name == "" {
				return fmt.Errorf("configuration %s: step %d has no name", c.Name, j+1)
			}
			if !slices.Contains(statuses, s.Status) {
				return fmt.Errorf("configuration %s: step %s: unknown status %q", c.Name, s.Name, s.Status)
			}
		}
	}
	return nil
}

// HTAP is what the extra connections of the Insert Benchmark's --htap-transaction-seconds did
// in a step: each kept a read transaction with a snapshot (a KV engine's snapshot) open for
// TransactionSeconds at a time, in a loop, beside the clients. They are not clients: their
// work is in no op, rate or fairness figure of the step.
type HTAP struct {
	// TransactionSeconds is the option: how long each snapshot is held.
	TransactionSeconds int `json:"transaction_seconds"`
	// Connections is the number of holders: one per client of the process, as the reference
	// runs one per process.
	Connections int `json:"connections"`
	// Snapshots counts the snapshots held and ended (committed); the last of each connection
	// ends early, at the step's end.
	Snapshots int64 `json:"snapshots"`
	// HeldSeconds is the time they were open, summed over the connections.
	HeldSeconds float64 `json:"held_seconds"`
	// Errors counts the errors of opening, holding or ending one, each retried.
	Errors int64 `json:"errors"`
	// EngineStatsHeld are the engine's counters (engine_stats' keys) read by the first
	// connection just before it ended each snapshot, while the snapshot still held the
	// engine's cleanup back, the largest of each over the step: the debt it held back (InnoDB's
	// history_list_length, PostgreSQL's snapshot_xid_age). Nil for an engine without stats.
	EngineStatsHeld map[string]float64 `json:"engine_stats_held,omitempty"`
}
