package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
)

// ServerCounterUsage samples a server's own counters (engine.ServerCounters) into each
// interval and a step's usage: the differences of the cumulative counters since the
// previous reading, under the raw keys of the same names (measure.KeySrv*). A reading that
// fails or takes longer than statsTimeout is left out: the interval after it covers both. A
// counter missing from either end of a step is not measured in it, and the notes of the first
// step without it say why (a configuration's steps all lack what its server lacks). Where the
// server publishes counters late (PostgreSQL), the first step too short for that not to
// matter says so. It is not
// safe for concurrent use; the runner calls it from one goroutine.
type ServerCounterUsage struct {
	Engine engine.ServerCounters

	begin, last map[string]float64 // the step's first reading, and the latest
	beginErr    error              // why the step's first reading failed
	told        map[string]string  // the unread groups a step's notes said, and why
	toldLag     bool               // whether a step's notes said that the counters lag
}

// lagSteps is how many times the server's publication lag (engine.Counters.Lag) a step must
// last for a note not to say that its figures may be off by that much work: under a thirtieth.
const lagSteps = 30

// NewServerCounterUsage returns the sampler of eng's server counters.
func NewServerCounterUsage(eng engine.ServerCounters) *ServerCounterUsage {
	return &ServerCounterUsage{Engine: eng}
}

// Begin implements runner.Sampler: the step's baseline.
func (s *ServerCounterUsage) Begin(ctx context.Context, now time.Time) {
	c, err := s.read(ctx)
	s.begin, s.beginErr = c.Values, err
	s.last = s.begin
}

// Sample implements runner.Sampler: the counters' growth since the previous reading.
func (s *ServerCounterUsage) Sample(ctx context.Context, now time.Time) map[string]float64 {
	c, err := s.read(ctx)
	if err != nil {
		return nil
	}
	d := diffCounters(s.last, c.Values)
	if c.Values != nil {
		s.last = c.Values
	}
	return d
}

// End implements runner.Sampler: the counters' growth over the step, into res.Usage, and a
// note for each counter group that could not be read.
func (s *ServerCounterUsage) End(ctx context.Context, now time.Time, res *result.Step) {
	c, err := s.read(context.WithoutCancel(ctx))
	if err == nil {
		err = s.beginErr
	}
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the server's counters are not measured: %v", err))
		return
	}
	d := diffCounters(s.begin, c.Values)
	if len(d) > 0 && res.Usage == nil {
		res.Usage = map[string]float64{}
	}
	maps.Copy(res.Usage, d)
	if len(d) > 0 {
		res.SrvFrom = c.From
	}
	if c.Lag > 0 && len(c.Lagging) > 0 && res.Seconds < lagSteps*c.Lag.Seconds() && !s.toldLag {
		s.toldLag = true
		res.Notes = append(res.Notes, fmt.Sprintf("the server publishes its counters %s up to %s late: in a step of %.1f s (and any other under %.0f s) their figures may miss up to %s of its last work and take in as much of the step before's (docs/efficiency.md, The server's own counters)",
			strings.Join(c.Lagging, ", "), c.Lag, res.Seconds, lagSteps*c.Lag.Seconds(), c.Lag))
	}
	for _, g := range slices.Sorted(maps.Keys(c.Unread)) {
		why := firstLine(c.Unread[g])
		if s.told[g] == why {
			continue
		}
		if s.told == nil {
			s.told = map[string]string{}
		}
		s.told[g] = why
		res.Notes = append(res.Notes, fmt.Sprintf("the server's counters of %s are not measured (-): %s", g, why))
	}
}

func (s *ServerCounterUsage) read(ctx context.Context) (engine.Counters, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	return s.Engine.ServerCounters(ctx)
}

// diffCounters is the growth of each counter in both readings from a to b; a counter that
// went back (the server restarted, its statistics were reset) is left out, as not measured.
func diffCounters(a, b map[string]float64) map[string]float64 {
	if a == nil || b == nil {
		return nil
	}
	out := make(map[string]float64, len(b))
	for k, v := range b {
		if was, ok := a[k]; ok && v >= was {
			out[k] = v - was
		}
	}
	return out
}

// firstLine is the first line of a message.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
