package result

import (
	"strings"
	"time"
)

// What a profile or a set of counters samples (Profile.Of, Counters.Of).
const (
	// OfDBMS is a server's process tree: a managed server's or --db-pid's.
	OfDBMS = "dbms"
	// OfEnginebench is the enginebench process: an embedded engine and the harness together.
	OfEnginebench = "enginebench"
)

// The ways a step is profiled or counted (Profile.Mode, Counters.Mode).
const (
	// ModeStep samples the step's whole measured time.
	ModeStep = "step"
	// ModeWindows samples windows of it, as the reference's scripts do (docs/efficiency.md).
	ModeWindows = "windows"
)

// The shares of an embedded engine's profile (Profile.Shares): which CPU of the enginebench
// process was the engine's and which the harness's (docs/efficiency.md says how a sample is
// assigned).
const (
	ShareEngine  = "engine"  // a sample with a frame of the engine's library
	ShareHarness = "harness" // a sample with enginebench's own frames and no engine frame
	ShareRuntime = "runtime" // the rest: Go's runtime and libraries alone (GC, scheduler)
)

// Profile is a step's CPU profile (--cpu-profile): what took it, of what, where its file is,
// and what divides it. Only the file holds the stacks.
type Profile struct {
	// File is the pprof file (gzipped protobuf), relative to the run directory:
	// profiles/<configuration>/<step>.pb.gz. Empty when none was written: Error says why.
	File string `json:"file,omitempty"`
	// Tool is what sampled: "perf record" or "runtime/pprof".
	Tool string `json:"tool,omitempty"`
	// Of is whose CPU was sampled: OfDBMS or OfEnginebench.
	Of string `json:"of,omitempty"`
	// Event is perf's sampling event (cpu-clock); empty for runtime/pprof, which uses SIGPROF.
	Event string `json:"event,omitempty"`
	// Hz is the sampling frequency, samples per CPU second.
	Hz int `json:"hz,omitempty"`
	// Mode is ModeStep or ModeWindows; Windows are the times sampled.
	Mode    string   `json:"mode,omitempty"`
	Windows []Window `json:"windows,omitempty"`
	// Samples is the number of samples, CPUSeconds the CPU time they stand for.
	Samples    int64   `json:"samples"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// Shares divide CPUSeconds of an embedded engine's profile between the engine, the harness
	// and the runtime (Share*); nil for a server's.
	Shares map[string]float64 `json:"shares,omitempty"`
	// PerOp is the operation whose units divide the profile and Ops their number in the sampled
	// time (the whole step's, or its windows' from the per-second series); 0 when unknown.
	PerOp string  `json:"per_op,omitempty"`
	Ops   float64 `json:"ops,omitempty"`
	// Partial is set when the profile stops short of the step's end: the step was interrupted
	// or failed, or a sampled process exited; Note says which.
	Partial bool   `json:"partial,omitempty"`
	Note    string `json:"note,omitempty"`
	// Error is why there is no profile (perf missing, refused by the kernel): one line.
	Error string `json:"error,omitempty"`
}

// Counters are a step's counters per operation (--counters): perf stat's events of the DBMS or
// of the enginebench process over the step's measured time.
type Counters struct {
	// Tool is what counted: "perf stat".
	Tool string `json:"tool,omitempty"`
	// Of is whose events were counted: OfDBMS or OfEnginebench.
	Of string `json:"of,omitempty"`
	// Mode is ModeStep or ModeWindows; Windows are the times counted.
	Mode    string   `json:"mode,omitempty"`
	Windows []Window `json:"windows,omitempty"`
	// Events are the events asked for, in the order asked, each with its count or the reason
	// it has none.
	Events []Counter `json:"events,omitempty"`
	// PerOp and Ops divide them, as Profile's.
	PerOp string  `json:"per_op,omitempty"`
	Ops   float64 `json:"ops,omitempty"`
	// Partial and Note as Profile's.
	Partial bool   `json:"partial,omitempty"`
	Note    string `json:"note,omitempty"`
	// Error is why nothing was counted: one line.
	Error string `json:"error,omitempty"`
}

// Counter is one event's count over the counted time.
type Counter struct {
	// Event is perf's name of the event: "task-clock", "cycles", "L1-dcache-load-misses".
	Event string `json:"event"`
	// Value is the count (for task-clock, milliseconds); nil when there is none.
	Value *float64 `json:"value,omitempty"`
	// Unit is perf's unit of Value ("msec"), empty for a plain count.
	Unit string `json:"unit,omitempty"`
	// RunningPct is the share of the counted time the event was on a counter, when perf
	// multiplexed it (below 100: Value is perf's scaled estimate).
	RunningPct *float64 `json:"running_pct,omitempty"`
	// Reason says why Value is nil: perf's "<not supported>" or "<not counted>".
	Reason string `json:"reason,omitempty"`
}

// Window is a span of a step's measured time that was sampled.
type Window struct {
	Start   time.Time `json:"start"`
	Seconds float64   `json:"seconds"`
}

// Each returns c's Value divided by the counters' operations; nil when either is missing.
func (cs *Counters) Each(c Counter) *float64 {
	if cs == nil || c.Value == nil || cs.Ops <= 0 {
		return nil
	}
	v := *c.Value / cs.Ops
	return &v
}

// ProfilesDir is the run directory's subdirectory of CPU profiles.
const ProfilesDir = "profiles"

// ProfileFile returns the path of a step's CPU profile, relative to the run directory:
// profiles/<configuration>/<step>.pb.gz, each name made a file name by FileName.
func ProfileFile(config, step string) string {
	return ProfilesDir + "/" + FileName(config) + "/" + FileName(step) + ".pb.gz"
}

// FileName returns name as one file name of a run directory: "/" and NUL become "_", and "",
// "." and ".." get a leading "_".
func FileName(name string) string {
	name = strings.NewReplacer("/", "_", "\x00", "_").Replace(name)
	if name == "" || name == "." || name == ".." {
		return "_" + name
	}
	return name
}
