package stats

import (
	"errors"
	"math"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// Student's t quantiles t(0.975, df), from published tables (e.g. NIST/SEMATECH e-Handbook of
// Statistical Methods, 1.3.6.7.2), not from the code under test.
const (
	t975df2 = 4.302653
	t975df4 = 2.776445
)

// nearRel reports whether got is within a relative 1e-6 of want (the tables' digits).
func nearRel(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Abs(want) }

// wantInterval is exp(m ± t·s/√n) worked by hand from a sample's mean m, standard deviation s
// and the tabulated t.
func wantInterval(m, s, t float64, n int) (est, lo, hi float64) {
	h := t * s / math.Sqrt(float64(n))
	return math.Exp(m), math.Exp(m - h), math.Exp(m + h)
}

func checkInterval(t *testing.T, iv Interval, est, lo, hi float64, n int) {
	t.Helper()
	if !nearRel(iv.Estimate, est) || !nearRel(iv.Lo, lo) || !nearRel(iv.Hi, hi) || iv.N != n || iv.Level != Level {
		t.Errorf("interval %+v, want estimate %v in %v-%v over %d rounds at %v", iv, est, lo, hi, n, Level)
	}
}

func TestLogMeanIntervalStudentT(t *testing.T) {
	// mean 0.05; deviations .05 -.05 -.1 .1 0: sum of squares 0.025, variance 0.025/4.
	logs := []float64{0.1, 0, -0.05, 0.15, 0.05}
	iv, err := LogMeanInterval(logs, Level)
	if err != nil {
		t.Fatal(err)
	}
	est, lo, hi := wantInterval(0.05, math.Sqrt(0.025/4), t975df4, 5)
	checkInterval(t, iv, est, lo, hi, 5)
	if h := t975df4 * math.Sqrt(0.025/4) / math.Sqrt(5); !nearRel(iv.HalfWidthPct(), 100*(math.Exp(h)-1)) {
		t.Errorf("half-width %v%%, want %v%%", iv.HalfWidthPct(), 100*(math.Exp(h)-1))
	}
	if !iv.Contains(1) || iv.Contains(lo*0.999) || iv.Contains(hi*1.001) {
		t.Errorf("%+v: Contains wrong at 1 or beyond its bounds", iv)
	}
}

// TestRatioIntervalPairsRounds checks that rounds are paired: a base whose rate varies tenfold
// from round to round, matched by a configuration 1.1 times as fast in every round, is 1.1
// with no noise; the ratios 1, 1.21 and 1.1 are 1.1 with the interval of their logs.
func TestRatioIntervalPairsRounds(t *testing.T) {
	iv, err := RatioInterval([]float64{110, 1100, 11000}, []float64{100, 1000, 10000}, Level)
	if err != nil {
		t.Fatal(err)
	}
	checkInterval(t, iv, 1.1, 1.1, 1.1, 3)
	iv, err = RatioInterval([]float64{100, 121, 110}, []float64{100, 100, 100}, Level)
	if err != nil {
		t.Fatal(err)
	}
	l := math.Log(1.1) // logs 0, 2l, l: mean l, deviations -l, l, 0: variance l²
	est, lo, hi := wantInterval(l, l, t975df2, 3)
	checkInterval(t, iv, est, lo, hi, 3)
}

// TestGeomeanRatioIntervalByRound checks the at-a-glance interval: each round's sample is the
// mean of its steps' log ratios.
func TestGeomeanRatioIntervalByRound(t *testing.T) {
	// step 1's ratios e^0.2, e^0, e^0.1; step 2's e^0, e^0, e^0.2: round means 0.1, 0, 0.15.
	x := [][]float64{{math.Exp(0.2) * 50, 50, math.Exp(0.1) * 50}, {7, 70, math.Exp(0.2) * 700}}
	y := [][]float64{{50, 50, 50}, {7, 70, 700}}
	iv, err := GeomeanRatioInterval(x, y, Level)
	if err != nil {
		t.Fatal(err)
	}
	m := 0.25 / 3
	s := math.Sqrt((math.Pow(0.1-m, 2) + math.Pow(m, 2) + math.Pow(0.15-m, 2)) / 2)
	est, lo, hi := wantInterval(m, s, t975df2, 3)
	checkInterval(t, iv, est, lo, hi, 3)
}

func TestIntervalRefusesWhatItCannotJudge(t *testing.T) {
	if _, err := RatioInterval([]float64{2}, []float64{1}, Level); !errors.Is(err, ErrTooFew) {
		t.Errorf("one round: %v, want ErrTooFew", err)
	}
	if _, err := RatioInterval([]float64{2, 0}, []float64{1, 1}, Level); err == nil {
		t.Error("a zero rate: no error")
	}
	if _, err := LogMeanInterval([]float64{0, 1}, 1); err == nil {
		t.Error("level 1: no error")
	}
	if _, err := GeomeanRatioInterval([][]float64{{1, 2}}, [][]float64{{1}}, Level); err == nil {
		t.Error("rounds of different counts: no error")
	}
}

// repeatedRun is a run of configurations a and b in rounds, whose steps l.i0 and l.x ran at
// the rates given by round (0: the step failed), with a warmup that is never compared.
func repeatedRun(rates map[string][][2]float64) *result.Run {
	r := &result.Run{}
	rounds := len(rates["a"])
	for k := 1; k <= rounds; k++ {
		for _, cfg := range []string{"a", "b"} {
			c := result.Config{Name: result.RepeatName(cfg, k), Repeat: &result.Repeat{Config: cfg, Index: k, Count: rounds}}
			c.Steps = append(c.Steps, step("warmup", 1))
			for j, name := range []string{"l.i0", "l.x"} {
				c.Steps = append(c.Steps, step(name, rates[cfg][k-1][j]))
			}
			r.Configs = append(r.Configs, c)
		}
	}
	return r
}

// step is a step whose primary op ran at rate; a failed one for rate 0.
func step(name string, rate float64) result.Step {
	s := result.Step{Name: name, Primary: "insert", Status: result.StatusOK, Ops: map[string]*result.Op{"insert": {PerSec: rate}}}
	if rate == 0 {
		s.Status, s.Ops = result.StatusFailed, nil
	}
	return s
}

// TestGlanceIntervalsPairRepeats checks the intervals --repeat auto stops on, from a run's
// repeats: rounds paired by index, a round in which a step failed left out, the warmup never
// compared.
func TestGlanceIntervalsPairRepeats(t *testing.T) {
	r := repeatedRun(map[string][][2]float64{
		"a": {{100, 10}, {200, 20}, {100, 10}, {300, 30}},
		"b": {{110, 10}, {200, 22}, {0, 10}, {330, 33}}, // round 3: b's l.i0 failed
	})
	if got := GlanceRates(r); len(got) != 2 || got[0] != (Rate{"l.i0", "insert"}) || got[1] != (Rate{"l.x", "insert"}) {
		t.Fatalf("rates %v, want l.i0 and l.x (not the warmup)", got)
	}
	gs := GlanceIntervals(r, "a", Level)
	if len(gs) != 1 || gs[0].Config != "b" || gs[0].Interval == nil {
		t.Fatalf("intervals %+v, want b's against a", gs)
	}
	// rounds 1, 2 and 4: log means (ln1.1+0)/2, (0+ln1.1)/2, ln1.1.
	l := math.Log(1.1)
	m := (l/2 + l/2 + l) / 3
	s := math.Sqrt((2*math.Pow(l/2-m, 2) + math.Pow(l-m, 2)) / 2)
	est, lo, hi := wantInterval(m, s, t975df2, 3)
	checkInterval(t, *gs[0].Interval, est, lo, hi, 3)

	iv, err := StepInterval(RoundsOf(r, "b", GlanceRates(r)), RoundsOf(r, "a", GlanceRates(r)), Rate{"l.x", "insert"}, Level)
	if err != nil {
		t.Fatal(err)
	}
	// l.x over the four rounds: logs 0, l, 0, l.
	est, lo, hi = wantInterval(l/2, math.Sqrt(4*math.Pow(l/2, 2)/3), 3.182446, 4) // t(0.975, 3) from the tables
	checkInterval(t, iv, est, lo, hi, 4)
}

func TestGlanceIntervalsTooFewRounds(t *testing.T) {
	r := repeatedRun(map[string][][2]float64{"a": {{100, 10}, {100, 10}}, "b": {{0, 10}, {110, 11}}})
	gs := GlanceIntervals(r, "a", Level)
	if len(gs) != 1 || gs[0].Interval != nil {
		t.Errorf("intervals %+v: one round with every step finished has no interval", gs)
	}
}
