package workload

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// hogSampler starts CPU hogs in the process over a step, one more each time another
// hogs-th of the step has passed (at the runner's ticks): goroutines that spin until the step
// ends, taking their share of the processors Go's scheduler has, so that the step's reader
// gets a share of the CPU that shrinks as the step goes on, 1/(1+k) with k hogs.
type hogSampler struct {
	span    time.Duration // the step's duration
	hogs    int
	begin   time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
	at      time.Time // when the first hog started; zero if none did
	started int
}

func (h *hogSampler) Begin(_ context.Context, now time.Time) {
	h.begin, h.stop = now, make(chan struct{})
}

func (h *hogSampler) Sample(_ context.Context, now time.Time) map[string]float64 {
	if h.hogs == 0 {
		return nil
	}
	for want := min(int(float64(h.hogs)*float64(now.Sub(h.begin))/float64(h.span)), h.hogs); h.started < want; h.started++ {
		if h.at.IsZero() {
			h.at = now
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			for n := 0; ; n++ {
				if n%1024 == 0 {
					select {
					case <-h.stop:
						return
					default:
					}
				}
			}
		}()
	}
	return nil
}

func (h *hogSampler) End(context.Context, time.Time, *result.Step) {
	close(h.stop)
	h.wg.Wait()
}

// The steady check on real steps of pebble point reads for a fixed duration, under the
// runner and the samplers of a run: a step whose reader gets a shrinking share of the CPU
// (one more CPU hog every fifteenth of the step, sharing the one processor Go may use with it:
// a falling rate, down to a sixteenth) is flagged not steady, and the same step without them is
// not, unless other processes' CPU moved by a fifth of a CPU between its halves or the
// reader's own CPU a second by 5% (a shared machine: then the test cannot tell, and skips). The hogs start at the runner's own ticks. A
// rate cut once, at the halfway point, was flagged only most of the time: the series less its
// linear trend is then autocorrelated for many lags, the bootstrap's blocks are long, and under
// CI's load p reached 0.13 for a 32% fall.
func TestSteadyVerdictOfARealStep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two steps of 10 s")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range []struct {
		name  string
		hogs  int
		state string
	}{{"steady", 0, result.VerdictOK}, {"falling", 15, result.VerdictFlag}} {
		t.Run(c.name, func(t *testing.T) {
			res, hog := pebbleReads(t, c.hogs)
			if res.Status != result.StatusOK {
				t.Fatalf("status %s: %s", res.Status, res.Error)
			}
			var v *result.Verdict
			for i := range res.Verdicts {
				if res.Verdicts[i].Check == "steady" {
					v = &res.Verdicts[i]
				}
			}
			st := res.Steady
			if v == nil || st == nil {
				t.Fatalf("no steady verdict or record: %+v %+v", res.Verdicts, st)
			}
			t.Logf("%s: %s", v.State, describe(st))
			if shift, own, ok := cpuShift(res); c.hogs == 0 && v.State != c.state && (!ok || shift > 0.2 || own > 0.05) {
				t.Skipf("from the first half of the step to the second other processes' CPU changed by %.2f CPUs and the reader's by %.0f%% (measured: %v): "+
					"a rate that moved with them is no steady rate to test (%s)", shift, 100*own, ok, describe(st))
			}
			if v.State != c.state {
				t.Errorf("steady %s (%s), want %s: %s", v.State, v.Message, c.state, describe(st))
			}
			if c.hogs > 0 && hog.at.IsZero() {
				t.Error("the hogs never started")
			}
			if c.hogs > 0 && (st.ChangePct > -10 || st.SettleSeconds != nil && *st.SettleSeconds < hog.span.Seconds()/2) {
				t.Errorf("a falling rate: %s, want a fall, not settled in its first half", describe(st))
			}
		})
	}
}

// cpuShift returns how many CPUs more or fewer other processes than this one used in the
// second half of res than in its first, and by what fraction this process's own CPU a second
// changed (the reader's share of a contended host), from its per-second host and process CPU
// (the OS sampler's); ok is false where they were not measured.
func cpuShift(res *result.Step) (other, own float64, ok bool) {
	n := res.Intervals.Len()
	var halves [2]struct{ other, own, secs float64 }
	for i := range n {
		host, ok1 := res.Intervals.Metric(i, measure.KeyCPU)
		self, ok2 := res.Intervals.Metric(i, measure.KeyDBCPU)
		secs, ok3 := res.Intervals.Metric(i, measure.KeySeconds)
		if !ok1 || !ok2 || !ok3 {
			return 0, 0, false
		}
		h := &halves[min(2*i/n, 1)]
		h.other += max(host-self, 0)
		h.own += self
		h.secs += secs
	}
	if halves[0].secs <= 0 || halves[1].secs <= 0 || halves[0].own <= 0 {
		return 0, 0, false
	}
	first, second := halves[0].own/halves[0].secs, halves[1].own/halves[1].secs
	return math.Abs(halves[1].other/halves[1].secs - halves[0].other/halves[0].secs), math.Abs(second-first) / first, true
}

// describe says what the steady check found.
func describe(st *result.Steady) string {
	settle := "never"
	if st.SettleSeconds != nil {
		settle = fmt.Sprintf("%.1f s", *st.SettleSeconds)
	}
	return fmt.Sprintf("%d intervals, median %.0f/s, change %.1f%%, p %.3f, settled %s", st.Intervals, st.MedianPerSec, st.ChangePct, st.PValue, settle)
}

// pebbleReads runs a 10-second step of point reads of 1,000 keys of pebble, with the samplers
// of a run, ticking every 200 ms (49 whole intervals, each long enough for the scheduler's 10 ms
// slices between the reader and the hogs to average out), and hogs CPU hogs started over it.
func pebbleReads(t *testing.T, hogs int) (*result.Step, *hogSampler) {
	ctx := context.Background()
	dir := t.TempDir()
	db := enginetest.Open(t, ctx, pebble.Driver(), "", nil, dir).(kv.DB)
	t.Cleanup(func() { db.Close() })
	keys := make([][]byte, 1000)
	b := db.NewBatch()
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key%06d", i)
		b.Set(keys[i], []byte("value"))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	const duration = 10 * time.Second
	hog := &hogSampler{span: duration, hogs: hogs}
	r, _ := configRunner(&runner.Runner{Clock: runner.SystemClock(), Tick: 200 * time.Millisecond}, db, dir)
	r.Samplers = append(r.Samplers, hog)
	var buf []byte
	read := func(ctx context.Context, rec *runner.Recorder) error {
		for i := 0; ctx.Err() == nil; i++ {
			if err := rec.Do(0, time.Time{}, func() (int64, error) {
				var err error
				buf, _, err = db.Get(keys[i%len(keys)], buf[:0])
				return 1, err
			}); err != nil {
				return err
			}
		}
		return nil
	}
	res := r.Run(ctx, runner.Step{Name: "qp", Primary: "get", Ops: []runner.OpSpec{{Name: "get"}}, Duration: duration,
		Workers: []runner.Worker{{Run: read}}})
	return res, hog
}
