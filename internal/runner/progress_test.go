package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// The progress lines' numbers: ordinary values keep their short form, and a value that rounds
// up to the next unit is shown in that unit (999,600/s is 1M/s, 999.6 µs is 1ms), never in
// exponent notation (issue 20).
func TestProgressNumbers(t *testing.T) {
	line := statusLine(Status{Step: "load", Elapsed: 90 * time.Second, Units: 999_600, ExpectUnits: 2_000_000, Rate: 999_600}, "  ", "  ")
	if want := "load  1M/s  1:30  1M/2M (50%)"; line != want {
		t.Errorf("status line %q, want %q", line, want)
	}
	per := &result.Period{End: 60, Ops: map[string]result.PeriodOp{
		"insert": {Count: 1, Units: 999_600, PerSec: 999_600, CumUnits: 999_600, CumPerSec: 999_600, Latency: result.Latency{P99: 999.6}}}}
	if got := periodLine("load", per); !strings.Contains(got, "insert 1M/s (cum 1M/s, p99 1ms)") {
		t.Errorf("period line %q", got)
	}
	done := &result.Step{Name: "load", Status: result.StatusOK, Seconds: 0.42, Ops: map[string]*result.Op{
		"insert": {Count: 1, Units: 10_000, PerSec: 9999.6, Latency: result.Latency{P99: 999_999.6}}}}
	if got, want := doneLine("load", done), "load: ok in 0.42s - insert 10k (10k/s, p99 1s)"; got != want {
		t.Errorf("done line %q, want %q", got, want)
	}
}

// Every progress line of a step names its configuration before the step (issue 23): the
// start, the periods and the end of a step the runner runs, and its status lines (which the
// runner writes on a real-time ticker, so they are checked from the runner's status).
func TestProgressNamesTheConfiguration(t *testing.T) {
	c := NewManualClock(t0)
	var buf bytes.Buffer
	r := &Runner{Clock: c, Tick: time.Hour, Config: "innodb", Progress: NewProgress(&buf, false)}
	res := r.Run(context.Background(), Step{Name: "l.i1", Ops: []OpSpec{{Name: "insert"}}, Report: 10 * time.Second,
		Workers: []Worker{pacedWriter(c, 300, 10, func(int) time.Duration { return time.Millisecond })}})
	if res.Status != result.StatusOK || res.Name != "l.i1" {
		t.Fatalf("step %q: %s %s", res.Name, res.Status, res.Error)
	}
	want := []string{"innodb l.i1: started", "innodb l.i1 0:30: insert 10/s", "innodb l.i1: ok in 29.9s - insert 300"}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("progress:\n%s", buf.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %q, want it to start with %q", lines[i], w)
		}
	}
	buf.Reset()
	r.Progress = NewProgress(&buf, false) // a step that has written no period yet
	st := &stepStats{r: r, s: &Step{Name: "l.i1"}, start: t0, tot: make([]opStats, 1)}
	st.progress(t0.Add(10*time.Second), 1, 10, nil)
	if got := buf.String(); !strings.HasPrefix(got, "innodb l.i1: 10/s, 0:10") {
		t.Errorf("status line %q", got)
	}
	// Without a configuration (a runner of its own), the step alone.
	if got := (&Runner{}).label("l.i1"); got != "l.i1" {
		t.Errorf("label without a configuration: %q", got)
	}
}
