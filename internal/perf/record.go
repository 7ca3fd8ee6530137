package perf

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/pprof/profile"
)

// DefaultHz is the sampling frequency when RecordOptions.Hz is 0.
const DefaultHz = 99

// RecordOptions say what perf record samples.
type RecordOptions struct {
	// Perf is perf's binary; "" is "perf" on PATH.
	Perf string
	// PIDs are the processes to sample: their threads and the children they fork later are
	// sampled too (perf's inherit). The first is the main one: the recording is partial when
	// it exits before Stop, not when another does.
	PIDs []int
	// Hz is the sampling frequency (perf's -F), samples per CPU second; 0 is DefaultHz.
	Hz int
	// Event is the sampling event; "" is "cpu-clock".
	Event string
	// Dir is where perf's temporary directory (its data file) is made; "" is the system's.
	// Stop and Close remove it.
	Dir string
}

// Recording is a running perf record. Its methods are not safe for concurrent use; Stop or
// Close must be called.
type Recording struct {
	s       *session
	since   time.Time     // when it was last enabled; zero while disabled
	first   time.Time     // when it was first enabled
	enabled time.Duration // the time it was enabled, to since
}

// StartRecord starts perf record -g on o.PIDs with its events disabled and returns once perf
// is attached and ready, bounded by ctx. Its error says what perf printed.
func StartRecord(ctx context.Context, o RecordOptions) (*Recording, error) {
	pids, err := pidList(o.PIDs)
	if err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	hz, event := o.Hz, o.Event
	if hz == 0 {
		hz = DefaultHz
	}
	if event == "" {
		event = "cpu-clock"
	}
	args := func(dir string) []string {
		return []string{"record", "-e", event, "-F", strconv.Itoa(hz), "-g", "-p", pids,
			"-N", "-o", filepath.Join(dir, "perf.data")}
	}
	s, err := start(ctx, o.Perf, o.Dir, o.PIDs, args)
	if err != nil {
		return nil, fmt.Errorf("perf record -e %s: %w", event, err)
	}
	return &Recording{s: s}, nil
}

// Enable starts sampling, bounded by ctx and ControlTimeout.
func (r *Recording) Enable(ctx context.Context) error {
	if err := r.s.command(ctx, "enable"); err != nil {
		return fmt.Errorf("perf record: %w", err)
	}
	if r.since.IsZero() {
		r.since = time.Now()
	}
	if r.first.IsZero() {
		r.first = r.since
	}
	return nil
}

// Disable stops sampling until the next Enable, bounded by ctx and ControlTimeout.
func (r *Recording) Disable(ctx context.Context) error {
	if err := r.s.command(ctx, "disable"); err != nil {
		return fmt.Errorf("perf record: %w", err)
	}
	r.pause()
	return nil
}

func (r *Recording) pause() {
	if !r.since.IsZero() {
		r.enabled += time.Since(r.since)
		r.since = time.Time{}
	}
}

// Stop ends perf (SIGINT, a wait bounded by ctx and StopTimeout, then SIGKILL), converts its
// samples with perf script (bounded by ctx and ScriptTimeout) and removes its files. The
// profile's sample types are samples/count and cpu/nanoseconds (for cpu-clock and
// task-clock, whose period is nanoseconds; else the event's count); its TimeNanos is the
// first Enable and DurationNanos the time it was enabled. The outcome says whether perf ended
// before Stop (the sampled processes all exited: perf ends then) or a sampled process exited.
func (r *Recording) Stop(ctx context.Context) (*profile.Profile, Outcome, error) {
	r.pause()
	defer r.s.close()
	out, _ := r.s.stop(ctx)
	p, err := r.script(ctx)
	if err != nil {
		return nil, out, err
	}
	if !r.first.IsZero() {
		p.TimeNanos = r.first.UnixNano()
	}
	p.DurationNanos = r.enabled.Nanoseconds()
	return p, out, nil
}

// Close ends perf without converting its samples and removes its files; it does nothing
// after Stop.
func (r *Recording) Close() {
	r.s.close()
}

// script runs perf script on the recording and parses its output.
func (r *Recording) script(ctx context.Context) (*profile.Profile, error) {
	ctx, cancel := context.WithTimeout(ctx, ScriptTimeout)
	defer cancel()
	bin := r.s.cmd.Path
	cmd := exec.CommandContext(ctx, bin, "script", "-F", "+pid", "--no-inline",
		"-i", filepath.Join(r.s.dir, "perf.data"))
	cmd.Env = r.s.cmd.Env
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	p, perr := ParseScript(stdout)
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return nil, fmt.Errorf("perf script: %w", perr)
	case werr != nil:
		return nil, fmt.Errorf("perf script: %w: %s", werr, oneLine(stderr.String()))
	}
	return p, nil
}
