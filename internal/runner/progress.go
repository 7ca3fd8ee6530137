package runner

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// plainEvery is how often the plain (non-terminal) progress writes a line.
const plainEvery = 10 * time.Second

// idleShown is how long a step must have made no progress before its status line says so.
const idleShown = 10 * time.Second

// NewProgress returns a Progress that writes to w. On a terminal it keeps one live line,
// rewritten in place every tick (step, rate, elapsed, done/expected with percent and ETA, or
// elapsed/duration for a fixed-duration step) and replaced by a one-line result when the step
// ends. Otherwise (a log, CI) it writes a plain line when a step starts, every 10 seconds, and
// when it ends.
func NewProgress(w io.Writer, terminal bool) Progress {
	p := &progress{w: w, terminal: terminal}
	if f, ok := w.(*os.File); ok && terminal {
		p.fd = int(f.Fd())
	} else {
		p.fd = -1
	}
	return p
}

type progress struct {
	mu        sync.Mutex
	w         io.Writer
	terminal  bool
	fd        int // the terminal's descriptor, for its width; -1 if unknown
	live      bool
	lastPlain time.Duration
	label     string // the running step's label, for its done line
}

// label is a step's name in the progress lines: the configuration first ("innodb l.i1"), so
// that every line says which configuration it belongs to.
func (r *Runner) label(step string) string {
	if r.Config == "" {
		return step
	}
	return r.Config + " " + step
}

func (p *progress) StepStarted(name string, expectUnits int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastPlain, p.label = 0, name
	if p.terminal {
		p.line(name + "  starting")
		return
	}
	if expectUnits > 0 {
		fmt.Fprintf(p.w, "%s: started, %s expected\n", name, numfmt.Count(float64(expectUnits)))
	} else {
		fmt.Fprintf(p.w, "%s: started\n", name)
	}
}

func (p *progress) Tick(s Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		p.line(statusLine(s, "  ", "  "))
		return
	}
	if s.Elapsed-p.lastPlain >= plainEvery {
		p.lastPlain = s.Elapsed
		fmt.Fprintln(p.w, statusLine(s, ": ", ", "))
	}
}

func (p *progress) StepDone(r *result.Step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.live = false
	}
	label := r.Name
	if p.label == r.Name || strings.HasSuffix(p.label, " "+r.Name) {
		label = p.label // the configuration's name and the step's
	}
	fmt.Fprintln(p.w, doneLine(label, r))
}

// Period writes a line for a period of a step that reports them (Step.Report): its end, the
// rows in the table when known, and each operation's units, rate over the period and since the
// start, and p99 over the period. On a terminal it replaces the live line, which the next tick
// redraws.
func (p *progress) Period(step string, per *result.Period) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.live = false
	}
	fmt.Fprintln(p.w, periodLine(step, per))
	// The period line says more than the plain status line: hold that one back for as long.
	p.lastPlain = time.Duration(per.End * float64(time.Second))
}

// periodLine formats a period: "run 120s: rows 1.2M; insert 10.1k/s (cum 11k/s, p99 4ms); ...".
func periodLine(step string, per *result.Period) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", step, clock(time.Duration(per.End*float64(time.Second))))
	if per.Rows > 0 {
		fmt.Fprintf(&b, ": rows %s", numfmt.Count(float64(per.Rows)))
	}
	sep := ": "
	if per.Rows > 0 {
		sep = "; "
	}
	for _, n := range sortedKeys(per.Ops) {
		op := per.Ops[n]
		if op.CumUnits == 0 && op.Errors == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s%s %s/s (cum %s/s", sep, n, numfmt.Count(op.PerSec), numfmt.Count(op.CumPerSec))
		if op.Count > 0 {
			fmt.Fprintf(&b, ", p99 %s", numfmt.Duration(op.Latency.P99))
		}
		if op.Errors > 0 {
			fmt.Fprintf(&b, ", %d errors", op.Errors)
		}
		b.WriteString(")")
		sep = "; "
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// line rewrites the live line, cut to the terminal's width so that it never wraps.
func (p *progress) line(s string) {
	if p.fd >= 0 {
		if width, _, err := term.GetSize(p.fd); err == nil && width > 1 && len(s) >= width {
			s = s[:width-1]
		}
	}
	fmt.Fprint(p.w, "\r"+s+"\x1b[K")
	p.live = true
}

// statusLine formats a running step: name, rate, elapsed, what is known of the end and, when
// it has made no progress for idleShown or more, for how long, with first after the name and
// sep between the other parts.
func statusLine(s Status, first, sep string) string {
	parts := []string{numfmt.Count(s.Rate) + "/s"}
	switch {
	case s.ExpectUnits > 0:
		pct := float64(s.Units) / float64(s.ExpectUnits) * 100
		parts = append(parts, clock(s.Elapsed),
			fmt.Sprintf("%s/%s (%.0f%%)", numfmt.Count(float64(s.Units)), numfmt.Count(float64(s.ExpectUnits)), pct))
		if s.ETA > 0 {
			parts = append(parts, "ETA "+clock(s.ETA))
		}
	case s.Duration > 0:
		parts = append(parts, clock(s.Elapsed)+"/"+clock(s.Duration), numfmt.Count(float64(s.Units))+" done")
	default:
		parts = append(parts, clock(s.Elapsed), numfmt.Count(float64(s.Units))+" done")
	}
	if s.Idle >= idleShown {
		parts = append(parts, "nothing completed for "+clock(s.Idle))
	}
	return s.Step + first + strings.Join(parts, sep)
}

// doneLine formats a finished step: its label, status, time, and each operation's count and
// rate.
func doneLine(label string, r *result.Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s", label, r.Status, seconds(r.Seconds))
	if r.Error != "" && r.Status != result.StatusInterrupted {
		fmt.Fprintf(&b, ": %s", r.Error)
	}
	names := make([]string, 0, len(r.Ops))
	for n, op := range r.Ops {
		if op.Count > 0 || op.Errors > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		op := r.Ops[n]
		sep := "; "
		if i == 0 {
			sep = " - "
		}
		fmt.Fprintf(&b, "%s%s %s (%s/s, p99 %s)", sep, n, numfmt.Count(float64(op.Units)), numfmt.Count(op.PerSec),
			numfmt.Duration(op.Latency.P99))
		if op.Errors > 0 {
			fmt.Fprintf(&b, " %d errors", op.Errors)
		}
	}
	return b.String()
}

// clock formats a duration as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// seconds formats a step's duration: 0.42s, 12.3s, 1:02:03.
func seconds(s float64) string {
	if s < 60 {
		return numfmt.Num(s) + "s"
	}
	return clock(time.Duration(s * float64(time.Second)))
}
