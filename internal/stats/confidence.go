package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The confidence of a ratio between two configurations of a run with repeats.
//
// The repeats of a run run interleaved in rounds (A#1 B#1 A#2 B#2 ...), so repeat k of a
// configuration and repeat k of the base ran side by side, under the same conditions of the
// machine. The interval pairs them by round, as Kalibera and Jones recommend for comparing
// two systems measured in alternation ("Rigorous Benchmarking in Reasonable Time", ISMM 2013,
// section 5: a ratio's interval from paired measurements): each round gives one ratio, their
// logarithms are a sample whose mean has a Student's t interval, and the interval of the
// ratio is that interval exponentiated (a geometric mean of the rounds' ratios, with a
// multiplicative interval: a ratio of 1.1 and one of 1/1.1 weigh alike).

// Level is the confidence level of the intervals the report and --repeat auto use.
const Level = 0.95

// Interval is a confidence interval of a ratio: Estimate is the geometric mean of the rounds'
// ratios, Lo and Hi the interval's bounds at Level, N the rounds it pairs.
type Interval struct {
	Estimate, Lo, Hi float64
	Level            float64
	N                int
}

// HalfWidthPct is the interval's relative half-width in percent: half its width in log space,
// exponentiated, less one (100*(sqrt(Hi/Lo)-1)). Hi is Estimate times (1 + HalfWidthPct/100)
// and Lo Estimate divided by it.
func (iv Interval) HalfWidthPct() float64 { return 100 * (math.Sqrt(iv.Hi/iv.Lo) - 1) }

// Contains reports whether x lies inside the interval, bounds included.
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// ErrTooFew is the error of an interval of fewer than two rounds: a single ratio says
// nothing of the noise.
var ErrTooFew = errors.New("fewer than two paired rounds")

// LogMeanInterval is the Student's t interval, at level, of the mean of logs (a sample of
// logarithms of ratios), exponentiated: exp(m ± t(1-(1-level)/2, n-1)·s/√n), with m and s the
// sample's mean and standard deviation (n-1 in the denominator). Every log must be finite.
func LogMeanInterval(logs []float64, level float64) (Interval, error) {
	n := len(logs)
	switch {
	case n < 2:
		return Interval{}, ErrTooFew
	case !(level > 0 && level < 1):
		return Interval{}, fmt.Errorf("confidence level %v: want more than 0 and less than 1", level)
	case slices.ContainsFunc(logs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }):
		return Interval{}, errors.New("a ratio is zero, negative or not a number")
	}
	m, s := stat.MeanStdDev(logs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	h := t * s / math.Sqrt(float64(n))
	return Interval{Estimate: math.Exp(m), Lo: math.Exp(m - h), Hi: math.Exp(m + h), Level: level, N: n}, nil
}

// RatioInterval is the interval, at level, of the ratio of x to y paired by index (x[i] and
// y[i] measured in round i): LogMeanInterval of log(x[i]/y[i]).
func RatioInterval(x, y []float64, level float64) (Interval, error) {
	if len(x) != len(y) {
		return Interval{}, fmt.Errorf("%d figures paired with %d", len(x), len(y))
	}
	logs := make([]float64, len(x))
	for i := range x {
		logs[i] = math.Log(x[i] / y[i])
	}
	return LogMeanInterval(logs, level)
}

// GeomeanRatioInterval is the interval, at level, of the geometric mean over k figures (the
// steps) of the ratio of x to y: x[j][i] and y[j][i] are figure j in round i. Each round's
// geometric mean of its k ratios is one sample (the mean of the k log ratios), so the
// interval is LogMeanInterval of those means: the at-a-glance figure's interval, its rounds
// paired as its steps are.
func GeomeanRatioInterval(x, y [][]float64, level float64) (Interval, error) {
	if len(x) == 0 || len(x) != len(y) {
		return Interval{}, fmt.Errorf("%d figures paired with %d", len(x), len(y))
	}
	rounds := len(x[0])
	logs := make([]float64, rounds)
	for j := range x {
		if len(x[j]) != rounds || len(y[j]) != rounds {
			return Interval{}, fmt.Errorf("figure %d: %d and %d rounds, want %d", j, len(x[j]), len(y[j]), rounds)
		}
		for i := range rounds {
			logs[i] += math.Log(x[j][i]/y[j][i]) / float64(len(x))
		}
	}
	return LogMeanInterval(logs, level)
}
