package verdict

import (
	"fmt"
	"math"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/stats"
)

// MinSteadyIntervals is the fewest whole intervals the steady check tests: with fewer, no
// trend test can tell a trend from noise.
const MinSteadyIntervals = 10

// steady is the steady-state check of step s: whether the per-second rate of its primary
// operation was stationary over its measured time. It tests the rates of the whole intervals
// after any warm-up for a trend (stats.TrendTest) and flags the step when the trend is
// significant (its p-value under steady_alpha) and its Theil-Sen slope moves the rate over the
// measured time by more than the steady threshold's percentage of the median rate. It records
// the test and the time the rate took to settle (within settle_band percent of its final
// level, stats.Settle) in s.Steady. A step without a primary operation gets no verdict; one
// with too few intervals is unmeasured.
func steady(s *result.Step, th Thresholds) []result.Verdict {
	if s.Primary == "" {
		return nil
	}
	all, ends := intervalRates(s)
	skip := 0
	if s.Warmup != nil {
		for skip < len(ends) && ends[skip] <= s.Warmup.Seconds+1e-9 {
			skip++
		}
	}
	rates := all[skip:]
	if len(rates) < MinSteadyIntervals {
		return []result.Verdict{unmeasured("steady", fmt.Sprintf("%d whole intervals of %s measured: a trend test needs at least %d",
			len(rates), s.Primary, MinSteadyIntervals))}
	}
	tr, _ := stats.TrendTest(rates)
	from := 0.0
	if skip > 0 {
		from = ends[skip-1]
	}
	st := &result.Steady{Op: s.Primary, Intervals: len(rates), Seconds: ends[len(ends)-1] - from,
		MedianPerSec: stats.Median(append([]float64(nil), rates...)), MeanOf: tr.Mean, S: tr.S, PValue: tr.P,
		Block: tr.Block, SlopePerSec: tr.Slope, SettleBandPct: th.Of("settle_band")}
	if st.MedianPerSec > 0 {
		st.ChangePct = tr.Slope * st.Seconds / st.MedianPerSec * 100
	}
	if i, ok := stats.Settle(all, st.SettleBandPct); ok {
		secs := 0.0
		if i > 0 {
			secs = ends[i-1]
		}
		st.SettleSeconds = &secs
	}
	s.Steady = st
	if st.MedianPerSec <= 0 {
		return []result.Verdict{unmeasured("steady", fmt.Sprintf("the median rate of %s was 0: no change can be told as a share of it", s.Primary))}
	}
	limit, change := th.Of("steady"), math.Abs(st.ChangePct)
	if tr.P < th.Of("steady_alpha") && change > limit {
		return []result.Verdict{flag("steady", change, limit, steadyMessage(s.Name, st))}
	}
	v := pass("steady", change, limit)
	if st.SettleSeconds != nil {
		v.Message = fmt.Sprintf("steady; %s settled within %s%% of its final rate after %s", st.Op, numfmt.Num(st.SettleBandPct), numfmt.Seconds(*st.SettleSeconds))
	}
	return []result.Verdict{v}
}

// steadyMessage says a flagged steady check in words.
func steadyMessage(step string, st *result.Steady) string {
	dir := "rose"
	if st.ChangePct < 0 {
		dir = "fell"
	}
	return fmt.Sprintf("%s rate %s %s%% over the %s measured in %s (trend p %s): not steady, its mean hides the trend",
		st.Op, dir, numfmt.Num(math.Abs(st.ChangePct)), numfmt.Seconds(st.Seconds), step, numfmt.Num(st.PValue))
}

// intervalRates returns the rate of s's primary operation in each whole interval of its
// series (every one but the last, which the step's end cuts short; one of no length is left
// out), each its units over its length, and the end of each such interval in seconds from the
// step's start. An interval without the operation did none of it: its rate is 0.
func intervalRates(s *result.Step) (rates, ends []float64) {
	ivs := s.Intervals
	from := s.StartedAt
	for i := range ivs.Len() - 1 {
		end := ivs.Time(i)
		secs := end.Sub(from).Seconds()
		from = end
		if secs <= 0 {
			continue
		}
		o, _ := ivs.Op(i, s.Primary)
		rates = append(rates, float64(o.Units)/secs)
		ends = append(ends, end.Sub(s.StartedAt).Seconds())
	}
	return rates, ends
}
