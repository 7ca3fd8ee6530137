package perf

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// SoftwareEvents are the events every machine counts, hardware counters or not.
func SoftwareEvents() []string {
	return []string{"task-clock", "context-switches", "cpu-migrations", "page-faults", "minor-faults", "major-faults"}
}

// ReferenceEvents are the groups of events the reference's scripts count, one perf stat per
// group (mytools bench/ibench/np.sh), with task-clock added to the first: most are hardware
// events, "<not supported>" on a machine without counters (a VM's).
func ReferenceEvents() [][]string {
	return [][]string{
		{"task-clock", "cpu-clock", "cycles", "bus-cycles", "instructions", "branches", "branch-misses"},
		{"cache-references", "cache-misses", "stalled-cycles-backend", "stalled-cycles-frontend"},
		{"L1-dcache-loads", "L1-dcache-load-misses", "L1-dcache-stores"},
		{"dTLB-loads", "dTLB-load-misses", "dTLB-stores", "dTLB-store-misses"},
		{"iTLB-load-misses", "iTLB-loads", "L1-icache-loads-misses", "L1-icache-loads"},
		{"LLC-loads", "LLC-load-misses", "LLC-stores", "LLC-store-misses", "LLC-prefetches"},
		{"alignment-faults", "context-switches", "migrations", "major-faults", "minor-faults", "faults"},
	}
}

// StatOptions say what perf stat counts.
type StatOptions struct {
	// Perf is perf's binary; "" is "perf" on PATH.
	Perf string
	// PIDs are the processes counted, with their threads and the children they fork later;
	// the first is the main one, as RecordOptions.PIDs'.
	PIDs []int
	// Events are perf's event names; none is SoftwareEvents.
	Events []string
	// Dir is where perf's temporary directory (its output file) is made; "" is the system's.
	// Stop and Close remove it.
	Dir string
}

// Stat is a running perf stat. Its methods are not safe for concurrent use; Stop or Close
// must be called.
type Stat struct {
	s      *session
	events []string
}

// StartStat starts perf stat on o.PIDs with its events disabled and returns once perf is
// attached and ready, bounded by ctx. Its error says what perf printed.
func StartStat(ctx context.Context, o StatOptions) (*Stat, error) {
	pids, err := pidList(o.PIDs)
	if err != nil {
		return nil, fmt.Errorf("perf stat: %w", err)
	}
	events := o.Events
	if len(events) == 0 {
		events = SoftwareEvents()
	}
	args := func(dir string) []string {
		return []string{"stat", "-x", ",", "--no-big-num", "-e", strings.Join(events, ","),
			"-p", pids, "-o", filepath.Join(dir, "stat.csv")}
	}
	s, err := start(ctx, o.Perf, o.Dir, o.PIDs, args)
	if err != nil {
		return nil, fmt.Errorf("perf stat: %w", err)
	}
	return &Stat{s: s, events: events}, nil
}

// Enable starts counting, bounded by ctx and ControlTimeout.
func (st *Stat) Enable(ctx context.Context) error {
	if err := st.s.command(ctx, "enable"); err != nil {
		return fmt.Errorf("perf stat: %w", err)
	}
	return nil
}

// Disable stops counting until the next Enable, bounded by ctx and ControlTimeout.
func (st *Stat) Disable(ctx context.Context) error {
	if err := st.s.command(ctx, "disable"); err != nil {
		return fmt.Errorf("perf stat: %w", err)
	}
	return nil
}

// Stop ends perf (SIGINT, a wait bounded by ctx and StopTimeout, then SIGKILL), removes its
// files and returns its counts over the enabled time: the events asked, in order, an event
// missing from perf's output with the reason. The outcome is Recording.Stop's.
func (st *Stat) Stop(ctx context.Context) ([]result.Counter, Outcome, error) {
	defer st.s.close()
	out, killed := st.s.stop(ctx)
	f, err := os.Open(filepath.Join(st.s.dir, "stat.csv"))
	if err != nil {
		return nil, out, fmt.Errorf("perf stat: %w", err)
	}
	defer f.Close()
	got, err := ParseStat(f)
	if err == nil && len(got) == 0 && (killed || out.Partial) {
		err = errors.New("no counts: " + st.s.reason())
	}
	if err != nil {
		return nil, out, fmt.Errorf("perf stat: %w", err)
	}
	return inOrder(st.events, got), out, nil
}

// Close ends perf without reading its counts and removes its files; it does nothing after
// Stop.
func (st *Stat) Close() {
	st.s.close()
}

// inOrder is the counters of events, in order, from got: the first of got with the event's
// name, or with its name for one PMU ("cpu_core/cycles/" on a hybrid CPU).
func inOrder(events []string, got []result.Counter) []result.Counter {
	used := make([]bool, len(got))
	out := make([]result.Counter, len(events))
	for i, e := range events {
		out[i] = result.Counter{Event: e, Reason: "not in perf stat's output"}
		for j, c := range got {
			if !used[j] && (c.Event == e || strings.HasSuffix(c.Event, "/"+e+"/")) {
				used[j], out[i] = true, c
				out[i].Event = e
				break
			}
		}
	}
	return out
}

// ParseStat parses perf stat -x, output (value, unit, event, running time, running
// percentage, metric value, metric unit), one counter a line in perf's order: the value, or
// nil and the reason ("<not supported>", "<not counted>"); the unit ("msec"); the running
// percentage when it is below 100 (perf multiplexed the event and scaled its value). Comment
// lines, blank lines and a metric's lines without an event are skipped.
func ParseStat(r io.Reader) ([]result.Counter, error) {
	var out []result.Counter
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(f) < 3 {
			return nil, fmt.Errorf("perf stat line %d: not value,unit,event,...: %q", n, line)
		}
		if f[2] == "" {
			continue
		}
		c, err := counter(f)
		if err != nil {
			return nil, fmt.Errorf("perf stat line %d: %w", n, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf stat's output: %w", err)
	}
	return out, nil
}

// counter is a line's counter, from its fields.
func counter(f []string) (result.Counter, error) {
	c := result.Counter{Event: f[2], Unit: f[1]}
	if strings.HasPrefix(f[0], "<") {
		c.Reason = f[0]
		return c, nil
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return c, fmt.Errorf("%s's value %q: %w", c.Event, f[0], err)
	}
	c.Value = &v
	if len(f) > 4 && f[4] != "" {
		pct, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return c, fmt.Errorf("%s's running percentage %q: %w", c.Event, f[4], err)
		}
		if pct < 100 {
			c.RunningPct = &pct
		}
	}
	return c, nil
}
