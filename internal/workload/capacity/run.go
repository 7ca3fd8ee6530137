package capacity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// Level runs one level of the search: a step named name whose paced clients each aim at rate.
type Level func(ctx context.Context, name string, rate float64) *result.Step

// Judge says how a workload's level is judged: the paced op whose rate and response time count,
// the clients that share the rate (the achieved rate is per client) and what the rate counts.
type Judge struct {
	Op      string
	Clients int
	Units   string
}

// StepName is the name of the i-th level (1-based): cap.i.
func StepName(i int) string { return fmt.Sprintf("cap.%d", i) }

// Run runs the search of p: level after level on clock, each emitted with its verdict in
// Capacity, the writers idle for p.CooloffSeconds before each level but the first (a wait
// bounded by ctx). It returns the first error emit returns: a level whose step did not end ok
// ends the search (an interrupted or stalled engine goes no further).
func Run(ctx context.Context, p Params, clock runner.Clock, j Judge, level Level, emit func(*result.Step) error) error {
	s := NewSearch(p)
	cool := time.Duration(p.CooloffSeconds * float64(time.Second))
	for i := 1; ; i++ {
		rate, ok := s.Next()
		if !ok {
			return nil
		}
		var idle float64
		if i > 1 && cool > 0 {
			t0 := clock.Now()
			if err := clock.SleepUntil(ctx, t0.Add(cool)); err != nil {
				return err
			}
			idle = clock.Now().Sub(t0).Seconds()
		}
		st := level(ctx, StepName(i), rate)
		l := j.Level(st, rate, p)
		l.CooloffSeconds = idle
		st.Capacity = l
		s.Record(rate, l.Verdict == result.VerdictPass)
		if err := emit(st); err != nil {
			return err
		}
	}
}

// Level judges step st, run at rate per client, against p's limits.
func (j Judge) Level(st *result.Step, rate float64, p Params) *result.CapacityLevel {
	l := &result.CapacityLevel{Step: st.Name, Rate: rate, Units: j.Units}
	var reasons []string
	if st.Status != result.StatusOK {
		reasons = append(reasons, fmt.Sprintf("step %s: %s", st.Status, st.Error))
	}
	if op := st.Ops[j.Op]; op != nil {
		l.Achieved = op.PerSec / float64(max(j.Clients, 1))
		lat := op.Latency
		if op.Response != nil {
			lat = *op.Response
		}
		if op.Count > 0 {
			p99 := lat.P99
			l.P99Us = &p99
		}
	}
	if l.Achieved < DipLimit*rate {
		reasons = append(reasons, fmt.Sprintf("rate: achieved %s/s, more than 10%% below %s/s",
			numfmt.Num(l.Achieved), numfmt.Num(rate)))
	}
	if p.P99 > 0 {
		lim := float64(p.P99.Microseconds())
		l.P99LimitUs = &lim
		if l.P99Us != nil && *l.P99Us > lim {
			reasons = append(reasons, fmt.Sprintf("p99: %v above %v", time.Duration(*l.P99Us*1e3).Round(time.Millisecond), p.P99))
		}
	}
	reasons = append(reasons, debt(l, st.EngineStats, p)...)
	l.Verdict, l.Reason = result.VerdictPass, strings.Join(reasons, "; ")
	if len(reasons) > 0 {
		l.Verdict = result.VerdictFail
	}
	return l
}

// debt records the named counters the engine reported at the level's end in l and returns a
// reason for each above its limit; a counter the engine does not report is unmeasured, not
// passed.
func debt(l *result.CapacityLevel, stats map[string]float64, p Params) []string {
	var reasons []string
	for _, k := range p.DebtKeys() {
		v, ok := stats[k]
		if !ok {
			l.DebtUnmeasured = append(l.DebtUnmeasured, k)
			continue
		}
		if l.Debt == nil {
			l.Debt = map[string]float64{}
		}
		l.Debt[k] = v
		if v > p.Debt[k] {
			reasons = append(reasons, fmt.Sprintf("debt: %s %s above %s", k, numfmt.Num(v), numfmt.Num(p.Debt[k])))
		}
	}
	return reasons
}
