package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// stepOf returns a step whose primary op "query" did rate(i) units in second i, for n whole
// seconds and a last interval of a tenth of a second that the step's end cut short; noise
// adds up to ±3% to every second.
func stepOf(n int, rate func(i int) float64) *result.Step {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &result.Step{Name: "qr100", Primary: "query", StartedAt: t0, Intervals: &result.Series{}}
	for i := range n {
		k := s.Intervals.Append(i+1, t0.Add(time.Duration(i+1)*time.Second))
		units := rate(i) * (0.97 + 0.06*rng.Float64())
		s.Intervals.SetOp(k, "query", result.IntervalOp{Count: 1, Units: int64(units)})
	}
	k := s.Intervals.Append(n+1, t0.Add(time.Duration(n)*time.Second+100*time.Millisecond))
	s.Intervals.SetOp(k, "query", result.IntervalOp{Count: 1, Units: 1})
	return s
}

func TestSteady(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		rate   func(i int) float64
		warmup float64
		state  string
	}{
		{"flat", 60, func(int) float64 { return 1000 }, 0, result.VerdictOK},
		{"decline", 60, func(i int) float64 { return 1000 - 5*float64(i) }, 0, result.VerdictFlag},
		{"drop halfway", 60, func(i int) float64 { return 1000 - 500*float64(i/30) }, 0, result.VerdictFlag},
		{"rise", 60, func(i int) float64 { return 1000 + 5*float64(i) }, 0, result.VerdictFlag},
		{"small decline", 60, func(i int) float64 { return 1000 - 0.5*float64(i) }, 0, result.VerdictOK},
		// The Theil-Sen slope is the bulk's: a ramp of a sixth of the step is no trend of it
		// (its settling time shows it), one of half of the step is, and a warm-up of the ramp
		// leaves it out.
		{"short ramp", 60, ramp(10), 0, result.VerdictOK},
		{"long ramp", 40, ramp(20), 0, result.VerdictFlag},
		{"long ramp after a warm-up", 40, ramp(20), 20, result.VerdictOK},
		{"too short", 9, func(int) float64 { return 1000 }, 0, result.VerdictUnmeasured},
		{"too short after a warm-up", 15, func(int) float64 { return 1000 }, 6, result.VerdictUnmeasured},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := stepOf(c.n, c.rate)
			if c.warmup > 0 {
				s.Warmup = &result.Warmup{AskedSeconds: c.warmup, Seconds: c.warmup, Intervals: int(c.warmup)}
			}
			vs := Step(s, nil)
			if len(vs) != 1 || vs[0].Check != "steady" || vs[0].State != c.state {
				t.Fatalf("verdicts %+v, want one steady %s", vs, c.state)
			}
			v := vs[0]
			if c.state == result.VerdictUnmeasured {
				if v.Message == "" || s.Steady != nil {
					t.Errorf("unmeasured without why, or with a test: %+v %+v", v, s.Steady)
				}
				return
			}
			st := s.Steady
			if st == nil || st.Op != "query" || st.Intervals != c.n-int(c.warmup) || st.Seconds != float64(c.n)-c.warmup {
				t.Fatalf("steady %+v", st)
			}
			if *v.Value != abs(st.ChangePct) || *v.Threshold != Defaults()["steady"] {
				t.Errorf("value %v threshold %v, change %v", *v.Value, *v.Threshold, st.ChangePct)
			}
			if c.state == result.VerdictFlag && (st.PValue >= 0.05 || v.Message == "") {
				t.Errorf("flagged with p %v, message %q", st.PValue, v.Message)
			}
		})
	}
}

// ramp returns a rate that rises from 100 to 1000 over the first secs seconds, then stays.
func ramp(secs int) func(i int) float64 {
	return func(i int) float64 { return 100 + 900*min(float64(i)/float64(secs), 1) }
}

// The settling time is where the rate entered the band of its final level, warm-up or not,
// and a higher threshold lets a trend pass.
func TestSteadySettleAndThresholds(t *testing.T) {
	s := stepOf(60, ramp(10))
	vs := Step(s, nil)
	if st := s.Steady.SettleSeconds; st == nil || *st < 8 || *st > 12 {
		t.Errorf("settled at %v s, want about 10", st)
	}
	if len(vs) != 1 || vs[0].State != result.VerdictOK || !strings.Contains(vs[0].Message, "settled within 10% of its final rate after") {
		t.Errorf("a 10 s ramp into a steady rate: %+v, want ok, saying when it settled", vs)
	}
	s = stepOf(60, func(i int) float64 { return 1000 - 5*float64(i) })
	th, err := Parse([]string{"steady=50"})
	if err != nil {
		t.Fatal(err)
	}
	if vs := Step(s, th); vs[0].State != result.VerdictOK {
		t.Errorf("a 30%% decline under a 50%% threshold: %+v", vs[0])
	}
	th, _ = Parse([]string{"steady_alpha=0"})
	if vs := Step(s, th); vs[0].State != result.VerdictOK {
		t.Errorf("a significance level of 0 flagged: %+v", vs[0])
	}
	if vs := Step(&result.Step{Name: "cleanup"}, nil); len(vs) != 0 {
		t.Errorf("a step without a primary op: %+v", vs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
