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
// step without it say why (a configuration's steps all lack what its server lacks). It is not
// safe for concurrent use; the runner calls it from one goroutine.
type ServerCounterUsage struct {
	Engine engine.ServerCounters

	begin, last map[string]float64 // the step's first reading, and the latest
	beginErr    error              // why the step's first reading failed
	told        map[string]string  // the unread groups a step's notes said, and why
}

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
