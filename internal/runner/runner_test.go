package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// within reports whether got is within rel (relative) of want.
func within(got, want, rel float64) bool { return math.Abs(got-want) <= math.Abs(want)*rel }

// pacedWriter is an open-loop writer of n operations at perSec a second whose i-th operation
// takes cost(i) on the manual clock.
func pacedWriter(c *ManualClock, n int, perSec float64, cost func(i int) time.Duration) Worker {
	return Worker{Run: func(ctx context.Context, rec *Recorder) error {
		p := NewPacer(c, rec.Now(), perSec)
		for i := 0; i < n; i++ {
			intended, err := p.Next(ctx)
			if err != nil {
				return err
			}
			if err := rec.Do(0, intended, func() (int64, error) {
				c.Advance(cost(i))
				return 1, nil
			}); err != nil {
				return err
			}
		}
		return nil
	}}
}

// An injected stall shows up in the response time of the open-loop writer (queueing: the
// following operations catch up back-to-back) but not in its service time.
func TestStallShowsInResponseTimeNotServiceTime(t *testing.T) {
	tests := []struct {
		name        string
		stallAt     int // -1: none
		wantRtP99   func(us float64) bool
		wantRtMaxUs float64
	}{
		{"stall", 50, func(us float64) bool { return us >= 1e6 }, 2e6},
		{"no stall", -1, func(us float64) bool { return within(us, 1e3, 0.01) }, 1e3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewManualClock(t0)
			cost := func(i int) time.Duration {
				if i == tt.stallAt {
					return 2 * time.Second
				}
				return time.Millisecond
			}
			r := &Runner{Clock: c, Tick: time.Hour}
			res := r.Run(context.Background(), Step{Name: "stall", Ops: []OpSpec{{Name: "insert", Background: true}},
				Workers: []Worker{pacedWriter(c, 100, 10, cost)}})
			if res.Status != result.StatusOK {
				t.Fatalf("status %s: %s", res.Status, res.Error)
			}
			op := res.Ops["insert"]
			if op.Count != 100 || op.Units != 100 || !op.Background {
				t.Fatalf("count %d units %d background %v", op.Count, op.Units, op.Background)
			}
			if op.Response == nil {
				t.Fatal("no response time for an open-loop writer")
			}
			if !within(op.Latency.P99, 1e3, 0.01) {
				t.Errorf("service p99 = %v us, want ~1ms", op.Latency.P99)
			}
			if !tt.wantRtP99(op.Response.P99) {
				t.Errorf("response p99 = %v us", op.Response.P99)
			}
			if !within(op.Response.Max, tt.wantRtMaxUs, 0.01) {
				t.Errorf("response max = %v us, want ~%v", op.Response.Max, tt.wantRtMaxUs)
			}
			if op.Response.P99 < op.Latency.P99 || op.Response.Max < op.Latency.Max {
				t.Errorf("response %+v below service %+v", *op.Response, op.Latency)
			}
		})
	}
}

// The achieved rate of a paced writer falls short of its target when its operations are slower
// than the pace, and the SLA says so.
func TestAchievedRateAndSLA(t *testing.T) {
	tests := []struct {
		cost    time.Duration
		wantMet bool
	}{
		{150 * time.Millisecond, false},
		{time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.cost.String(), func(t *testing.T) {
			c := NewManualClock(t0)
			const target = 10.0
			r := &Runner{Clock: c, Tick: time.Hour}
			res := r.Run(context.Background(), Step{Name: "rate", Ops: []OpSpec{{Name: "insert"}},
				Workers: []Worker{pacedWriter(c, 50, target, func(int) time.Duration { return tt.cost })}})
			op := res.Ops["insert"]
			if res.Seconds <= 0 || op.PerSec != float64(op.Units)/res.Seconds {
				t.Fatalf("seconds %v per_sec %v units %d", res.Seconds, op.PerSec, op.Units)
			}
			if got := op.PerSec >= SLAThreshold*target; got != tt.wantMet {
				t.Errorf("achieved %v/s of %v/s", op.PerSec, target)
			}
			sla := SLA(target, op.PerSec)
			if sla.SLAMet != tt.wantMet || sla.InsertsPerSec != target || sla.AchievedInsertsPerSec != op.PerSec {
				t.Errorf("SLA = %+v", *sla)
			}
		})
	}
}

func TestSLABoundary(t *testing.T) {
	tests := []struct {
		target, achieved float64
		met              bool
	}{
		{10, 9.5, true},
		{10, 9.4999, false},
		{100, 95, true},
		{100, 94.99, false},
		{1000, 950, true},
		{3, 2.85, true},
		{200, 190, true},
		{200, 189.99999, false},
		{10, 12, true},
		{0, 0, true},
	}
	for _, tt := range tests {
		if got := SLA(tt.target, tt.achieved).SLAMet; got != tt.met {
			t.Errorf("SLA(%v, %v).SLAMet = %v, want %v", tt.target, tt.achieved, got, tt.met)
		}
	}
}

// Four clients record disjoint known latencies; the step's totals equal one histogram of all of
// them.
func TestHistogramsMergeAcrossClients(t *testing.T) {
	c := NewManualClock(t0)
	var mu sync.Mutex // serializes the clients' operations so that each is timed alone
	const clients, perClient = 4, 1000
	all := measure.NewHistogram()
	var workers []Worker
	for cl := 0; cl < clients; cl++ {
		for i := 0; i < perClient; i++ {
			all.Record(int64(lat(cl, i)))
		}
		workers = append(workers, Worker{Client: cl, Run: func(ctx context.Context, rec *Recorder) error {
			for i := 0; i < perClient; i++ {
				mu.Lock()
				err := rec.Do(0, time.Time{}, func() (int64, error) {
					c.Advance(lat(rec.Client(), i))
					return 2, nil
				})
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			return nil
		}})
	}
	res := (&Runner{Clock: c, Tick: time.Millisecond}).Run(context.Background(),
		Step{Name: "merge", Ops: []OpSpec{{Name: "query"}}, Workers: workers})
	op := res.Ops["query"]
	if op.Count != clients*perClient || op.Units != 2*clients*perClient {
		t.Fatalf("count %d units %d", op.Count, op.Units)
	}
	if op.Response != nil {
		t.Errorf("closed-loop clients have a response time: %+v", *op.Response)
	}
	want := measure.Summarize(all)
	if !reflect.DeepEqual(op.Latency, want) {
		t.Errorf("merged latency\n %+v\nwant\n %+v", op.Latency, want)
	}
	if res.Clients != clients {
		t.Errorf("clients %d", res.Clients)
	}
}

// lat is client cl's i-th latency: client 0 in [1us, 1ms], client 1 in (1ms, 2ms], ...
func lat(cl, i int) time.Duration {
	return time.Duration(cl*perClientNs+(i+1)*1000) * time.Nanosecond
}

const perClientNs = 1000 * 1000

// loopUntilDone is a worker that does operations until its context is cancelled.
func loopUntilDone(client int, bg bool, stopped *atomic.Int32) Worker {
	return Worker{Client: client, Background: bg, Run: func(ctx context.Context, rec *Recorder) error {
		for ctx.Err() == nil {
			if err := rec.Do(0, time.Time{}, func() (int64, error) { runtime.Gosched(); return 1, nil }); err != nil {
				return err
			}
		}
		if stopped != nil {
			stopped.Add(1)
		}
		return ctx.Err()
	}}
}

// inFlightUntilCut is a worker whose one operation is in flight until the step is cut short
// (its OpContext cancelled), and then fails with the cancel's error, as a driver does.
func inFlightUntilCut(client int, stopped *atomic.Int32) Worker {
	return Worker{Client: client, Run: func(ctx context.Context, rec *Recorder) error {
		err := rec.Do(0, time.Time{}, func() (int64, error) {
			<-rec.OpContext().Done()
			return 0, fmt.Errorf("query: %w", rec.OpContext().Err())
		})
		stopped.Add(1)
		return err
	}}
}

// pacedLoop is loopUntilDone whose every operation is followed by a 10 ms sleep on c: on a
// ManualClock it is what moves time forward.
func pacedLoop(c Clock, client int, stopped *atomic.Int32) Worker {
	return Worker{Client: client, Run: func(ctx context.Context, rec *Recorder) error {
		for ctx.Err() == nil {
			if err := rec.Do(0, time.Time{}, func() (int64, error) { return 1, nil }); err != nil {
				return err
			}
			c.SleepUntil(ctx, c.Now().Add(10*time.Millisecond))
		}
		stopped.Add(1)
		return ctx.Err()
	}}
}

func TestStepEnds(t *testing.T) {
	boom := errors.New("boom: disk full")
	paced := NewManualClock(t0)
	tests := []struct {
		name       string
		clock      func() Clock
		duration   time.Duration
		workers    func(stopped *atomic.Int32, cancel context.CancelFunc) []Worker
		wantStatus string
		wantError  string
		prefix     bool  // wantError is a prefix of the error
		wantStop   int32 // workers that saw their context cancelled
		check      func(t *testing.T, res *result.Step)
	}{
		{
			name: "a failing worker fails the step and cancels the others",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{loopUntilDone(0, false, stopped), loopUntilDone(1, false, stopped),
					loopUntilDone(2, true, stopped),
					{Client: 3, Run: func(ctx context.Context, rec *Recorder) error {
						rec.Do(0, time.Time{}, func() (int64, error) { return 0, boom })
						return fmt.Errorf("insert: %w", boom)
					}}}
			},
			wantStatus: result.StatusFailed, wantError: "insert: boom: disk full", wantStop: 3,
			check: func(t *testing.T, res *result.Step) {
				if res.Ops["op"].Errors != 1 {
					t.Errorf("errors %d", res.Ops["op"].Errors)
				}
			},
		},
		{
			name: "an operation that another worker's failure cut short is no error",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{inFlightUntilCut(0, stopped),
					{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
						rec.Do(0, time.Time{}, func() (int64, error) { return 0, boom })
						return fmt.Errorf("insert: %w", boom)
					}}}
			},
			wantStatus: result.StatusFailed, wantError: "insert: boom: disk full", wantStop: 1,
			check: func(t *testing.T, res *result.Step) {
				if res.Ops["op"].Errors != 1 || res.Ops["op"].Count != 0 {
					t.Errorf("errors %d, count %d; want the failure only", res.Ops["op"].Errors, res.Ops["op"].Count)
				}
			},
		},
		{
			name: "an operation that Ctrl-C cut short is no error",
			workers: func(stopped *atomic.Int32, cancel context.CancelFunc) []Worker {
				return []Worker{inFlightUntilCut(0, stopped),
					{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
						rec.Do(0, time.Time{}, func() (int64, error) { return 1, nil })
						cancel() // Ctrl-C
						return inFlightUntilCut(1, stopped).Run(ctx, rec)
					}}}
			},
			wantStatus: result.StatusInterrupted, wantError: "interrupted", wantStop: 2,
			check: func(t *testing.T, res *result.Step) {
				if res.Ops["op"].Errors != 0 || res.Ops["op"].Count != 1 {
					t.Errorf("errors %d, count %d; want the one done operation and no error", res.Ops["op"].Errors, res.Ops["op"].Count)
				}
			},
		},
		{
			name: "an operation that fails at the step's normal end is an error", duration: 20 * time.Millisecond,
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{{Client: 0, Run: func(ctx context.Context, rec *Recorder) error {
					// A retry loop that gives up at the step's end, as LinkBench's requests do.
					rec.Do(0, time.Time{}, func() (int64, error) { <-ctx.Done(); return 0, ctx.Err() })
					stopped.Add(1)
					return nil
				}}}
			},
			wantStatus: result.StatusOK, wantStop: 1,
			check: func(t *testing.T, res *result.Step) {
				if res.Ops["op"].Errors != 1 {
					t.Errorf("errors %d, want 1", res.Ops["op"].Errors)
				}
			},
		},
		{
			name: "the first error wins",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{
					{Client: 0, Run: func(ctx context.Context, rec *Recorder) error { return errors.New("first") }},
					{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
						<-ctx.Done()
						return errors.New("second, caused by the cancel")
					}}}
			},
			wantStatus: result.StatusFailed, wantError: "first",
		},
		{
			name: "a panicking worker fails the step",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{loopUntilDone(0, false, stopped),
					{Client: 1, Run: func(ctx context.Context, rec *Recorder) error { panic("kaboom") }}}
			},
			wantStatus: result.StatusFailed, wantError: "panic in worker of client 1: kaboom\n", prefix: true, wantStop: 1,
		},
		{
			name: "an operation outside the step fails it instead of hanging the runner",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
					return rec.Do(2, time.Time{}, func() (int64, error) { return 1, nil })
				}}}
			},
			wantStatus: result.StatusFailed, prefix: true,
			wantError: "panic in worker of client 1: runner: op 2 out of range: the step has 2 operation types\n",
		},
		{
			name: "cancelling the parent context interrupts the step",
			workers: func(stopped *atomic.Int32, cancel context.CancelFunc) []Worker {
				var once sync.Once
				return []Worker{loopUntilDone(0, false, stopped), loopUntilDone(1, true, stopped),
					{Client: 1, Run: func(ctx context.Context, rec *Recorder) error {
						for i := 0; ctx.Err() == nil; i++ {
							rec.Do(0, time.Time{}, func() (int64, error) { return 1, nil })
							if i == 10 {
								once.Do(cancel) // Ctrl-C
							}
						}
						stopped.Add(1)
						return ctx.Err()
					}}}
			},
			wantStatus: result.StatusInterrupted, wantError: "interrupted", wantStop: 3,
			check: func(t *testing.T, res *result.Step) {
				if res.Ops["op"].Count < 11 {
					t.Errorf("what was measured is lost: count %d", res.Ops["op"].Count)
				}
			},
		},
		{
			// On the manual clock the step ends when its workers' sleeps have moved the clock to
			// the end of the Duration: after the paced worker's 300 operations of 10 ms.
			name: "Duration ends looping workers normally (manual clock)", duration: 3 * time.Second,
			clock: func() Clock { return paced },
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{loopUntilDone(0, false, stopped), pacedLoop(paced, 1, stopped), loopUntilDone(0, true, stopped)}
			},
			wantStatus: result.StatusOK, wantStop: 3,
			check: func(t *testing.T, res *result.Step) {
				if res.Seconds != 3 || res.Ops["op"].Count < 300 {
					t.Errorf("seconds %v, %d operations: want the duration, and at least the paced worker's 300", res.Seconds, res.Ops["op"].Count)
				}
			},
		},
		{
			name: "Duration ends looping workers normally (system clock)", duration: 20 * time.Millisecond,
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{loopUntilDone(0, false, stopped), loopUntilDone(1, true, stopped)}
			},
			wantStatus: result.StatusOK, wantStop: 2,
			check: func(t *testing.T, res *result.Step) {
				if res.Seconds != 0.02 || res.Ops["op"].Count == 0 {
					t.Errorf("seconds %v count %d", res.Seconds, res.Ops["op"].Count)
				}
			},
		},
		{
			name: "background workers are cancelled when the foreground ones are done",
			workers: func(stopped *atomic.Int32, _ context.CancelFunc) []Worker {
				return []Worker{loopUntilDone(7, true, stopped), loopUntilDone(8, true, stopped),
					{Client: 0, Run: func(ctx context.Context, rec *Recorder) error {
						for i := 0; i < 5; i++ {
							rec.Do(1, time.Time{}, func() (int64, error) { return 1, nil })
						}
						return nil
					}}}
			},
			wantStatus: result.StatusOK, wantStop: 2,
			check: func(t *testing.T, res *result.Step) {
				if res.Clients != 1 || res.Ops["fg"].Count != 5 {
					t.Errorf("clients %d fg count %d", res.Clients, res.Ops["fg"].Count)
				}
				if res.Fairness == nil || res.Fairness.Pct != 0 {
					t.Errorf("fairness %+v", res.Fairness)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stopped atomic.Int32
			r := &Runner{Tick: 5 * time.Millisecond}
			if tt.clock != nil {
				r.Clock = tt.clock()
			}
			res := r.Run(ctx, Step{Name: "end", Duration: tt.duration,
				Ops: []OpSpec{{Name: "op"}, {Name: "fg"}}, Workers: tt.workers(&stopped, cancel)})
			errOK := res.Error == tt.wantError || tt.prefix && strings.HasPrefix(res.Error, tt.wantError)
			if res.Status != tt.wantStatus || !errOK {
				t.Fatalf("status %q error %q, want %q %q", res.Status, res.Error, tt.wantStatus, tt.wantError)
			}
			if got := stopped.Load(); got != tt.wantStop {
				t.Errorf("%d workers saw the cancel, want %d", got, tt.wantStop)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestFairnessSummary(t *testing.T) {
	tests := []struct {
		ends []float64 // seconds after the start, one per client
		want *result.Fairness
	}{
		{nil, nil},
		{[]float64{10}, &result.Fairness{MinSeconds: 10, MaxSeconds: 10}},
		{[]float64{10, 12, 11}, &result.Fairness{MinSeconds: 10, MaxSeconds: 12, DiffSeconds: 2, Pct: 20}},
		{[]float64{0, 1}, &result.Fairness{MinSeconds: 0, MaxSeconds: 1, DiffSeconds: 1}},
	}
	for _, tt := range tests {
		ends := map[int]time.Time{}
		for i, s := range tt.ends {
			ends[i] = t0.Add(time.Duration(s * float64(time.Second)))
		}
		got := fairness(t0, ends)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("fairness(%v) = %+v, want %+v", tt.ends, got, tt.want)
		}
	}
}

// countingClock is a ManualClock that counts Now calls, so that a test can tell when the runner
// has taken a worker's end time.
type countingClock struct {
	*ManualClock
	calls atomic.Int64
}

func (c *countingClock) Now() time.Time {
	t := c.ManualClock.Now()
	c.calls.Add(1)
	return t
}

// Clients that do different amounts of work finish at different times, and fairness reports it.
// The clients take turns so that the virtual clock is deterministic.
func TestFairnessOfUnequalClients(t *testing.T) {
	c := &countingClock{ManualClock: NewManualClock(t0)}
	ops := []int{1, 2, 3} // operations of 100ms per client
	turns := make([]chan struct{}, len(ops))
	var started sync.WaitGroup // every worker runs: the runner has read the start time
	started.Add(len(ops))
	var workers []Worker
	for cl := range ops {
		turns[cl] = make(chan struct{})
		workers = append(workers, Worker{Client: cl, Run: func(ctx context.Context, rec *Recorder) error {
			started.Done()
			<-turns[cl]
			for i := 0; i < ops[cl]; i++ {
				rec.Do(0, time.Time{}, func() (int64, error) { c.Advance(100 * time.Millisecond); return 1, nil })
			}
			return nil
		}})
	}
	go func() {
		started.Wait()
		for cl := range ops {
			before := c.calls.Load()
			close(turns[cl])
			// Do reads the clock twice per operation, then the runner reads it once for the end
			// of the worker: only then may the next client move the clock.
			for c.calls.Load() < before+int64(2*ops[cl]+1) {
				runtime.Gosched()
			}
		}
	}()
	res := (&Runner{Clock: c, Tick: time.Hour}).Run(context.Background(),
		Step{Name: "fair", Ops: []OpSpec{{Name: "insert"}}, Workers: workers})
	// Client ends: 0.1s, 0.3s, 0.6s.
	f := res.Fairness
	if f == nil || !within(f.MinSeconds, 0.1, 1e-9) || !within(f.MaxSeconds, 0.6, 1e-9) ||
		!within(f.DiffSeconds, 0.5, 1e-9) || !within(f.Pct, 500, 1e-9) {
		t.Fatalf("fairness %+v", f)
	}
	if !within(res.Seconds, 0.6, 1e-9) || res.Clients != 3 {
		t.Errorf("seconds %v clients %d", res.Seconds, res.Clients)
	}
}

// tickSampler counts its calls and reports a metric under its own name; End records the
// number of intervals and ops the result had when it was called.
type tickSampler struct {
	name         string
	calls        atomic.Int64
	begun, ended int
	endIntervals int
	endOps       int
}

func (s *tickSampler) Begin(ctx context.Context, now time.Time) {
	s.begun++
	s.calls.Add(1)
}

func (s *tickSampler) Sample(ctx context.Context, now time.Time) map[string]float64 {
	n := s.calls.Add(1)
	return map[string]float64{s.name: float64(n)}
}

func (s *tickSampler) End(ctx context.Context, now time.Time, res *result.Step) {
	s.ended++
	s.endIntervals, s.endOps = res.Intervals.Len(), len(res.Ops)
	if res.Usage == nil {
		res.Usage = map[string]float64{}
	}
	res.Usage[s.name] = float64(s.calls.Load())
}

// Concurrent Do (closed and open loop, with retries and found rows) while the runner merges on
// a short real tick: every operation lands in exactly one interval and in the totals, and the
// samplers' metrics land in every interval. Run it with -race.
func TestIntervalsConcurrentDoAndSamplers(t *testing.T) {
	a, b := &tickSampler{name: "cpu"}, &tickSampler{name: "io"}
	var buf bytes.Buffer
	r := &Runner{Tick: time.Millisecond, Samplers: []Sampler{a, b}, Progress: NewProgress(&buf, false)}
	const workers = 6
	var ws []Worker
	for w := 0; w < workers; w++ {
		ws = append(ws, Worker{Client: w % 3, Background: w >= 3, Run: func(ctx context.Context, rec *Recorder) error {
			pacer := NewPacer(SystemClock(), rec.Now(), 1e6)
			// Run until the runner has ticked a few times, so that merging races with Do.
			for i := 0; a.calls.Load() < 6 || i < 1000; i++ {
				var intended time.Time
				if rec.Client() == 1 {
					intended, _ = pacer.Next(ctx)
				}
				op := Op(i % 2)
				if err := rec.Do(op, intended, func() (int64, error) { return 3, nil }); err != nil {
					return err
				}
				rec.Found(op, 2)
				if i%10 < 2 {
					rec.Retried(op)
				}
				if ctx.Err() != nil {
					break
				}
			}
			return nil
		}})
	}
	res := r.Run(context.Background(), Step{Name: "l.i1", Ops: []OpSpec{{Name: "insert"}, {Name: "delete"}},
		Workers: ws, ExpectUnits: 1000})
	if res.Status != result.StatusOK {
		t.Fatalf("status %s %s", res.Status, res.Error)
	}
	if res.Intervals.Len() < 2 {
		t.Fatalf("%d intervals", res.Intervals.Len())
	}
	for _, name := range []string{"insert", "delete"} {
		op := res.Ops[name]
		var count, units int64
		for i, in := range intervals(res.Intervals) {
			if in.Second != i+1 {
				t.Fatalf("interval %d has second %d", i, in.Second)
			}
			count += in.Ops[name].Count
			units += in.Ops[name].Units
		}
		if count != op.Count || units != op.Units || units != 3*count {
			t.Errorf("%s: intervals count %d units %d, totals %d %d", name, count, units, op.Count, op.Units)
		}
		if op.Found != 2*op.Count || res.Retries[name] == 0 {
			t.Errorf("%s: found %d retries %d count %d", name, op.Found, res.Retries[name], op.Count)
		}
		if op.Response == nil || op.Response.Max < op.Latency.P50 {
			t.Errorf("%s: open-loop client 1 has no response time", name)
		}
	}
	for _, in := range intervals(res.Intervals) {
		if in.Metrics["cpu"] == 0 || in.Metrics["io"] == 0 {
			t.Fatalf("interval %d metrics %v", in.Second, in.Metrics)
		}
	}
	// Begin, then one Sample per interval, then End with the result complete.
	if got := a.calls.Load(); got != int64(res.Intervals.Len())+1 {
		t.Errorf("sampler called %d times for %d intervals", got, res.Intervals.Len())
	}
	for _, s := range []*tickSampler{a, b} {
		if s.begun != 1 || s.ended != 1 || s.endIntervals != res.Intervals.Len() || s.endOps != 2 {
			t.Errorf("sampler %s: begun %d ended %d, saw %d intervals %d ops at End",
				s.name, s.begun, s.ended, s.endIntervals, s.endOps)
		}
		if res.Usage[s.name] != float64(s.calls.Load()) {
			t.Errorf("End's usage %v", res.Usage)
		}
	}
	if !strings.Contains(buf.String(), "l.i1") {
		t.Errorf("progress output %q", buf.String())
	}
}

func TestPacer(t *testing.T) {
	c := NewManualClock(t0)
	ctx := context.Background()
	p := NewPacer(c, t0, 4) // every 250ms
	for i := 0; i < 3; i++ {
		got, err := p.Next(ctx)
		want := t0.Add(time.Duration(i) * 250 * time.Millisecond)
		if err != nil || !got.Equal(want) || !c.Now().Equal(want) {
			t.Fatalf("Next %d = %v, %v (clock %v), want %v", i, got, err, c.Now(), want)
		}
	}
	// Fall 1s behind: the missed times come at once, without moving the clock.
	c.Advance(time.Second + 500*time.Millisecond) // now t0+2s
	for i := 3; i <= 8; i++ {
		got, _ := p.Next(ctx)
		if want := t0.Add(time.Duration(i) * 250 * time.Millisecond); !got.Equal(want) {
			t.Fatalf("Next %d = %v, want %v", i, got, want)
		}
		if !c.Now().Equal(t0.Add(2 * time.Second)) {
			t.Fatalf("the clock moved while catching up: %v", c.Now())
		}
	}
	if got, _ := p.Next(ctx); !got.Equal(t0.Add(2250*time.Millisecond)) || !c.Now().Equal(got) {
		t.Fatalf("after catching up: %v, clock %v", got, c.Now())
	}
	// No drift: the 1,000,000th time of a 3/s pacer is exact.
	p3 := NewPacer(c, t0, 3)
	p3.n = 999_999
	if got, _ := p3.Next(ctx); !got.Equal(t0.Add(333333 * time.Second)) {
		t.Errorf("drift: %v", got.Sub(t0))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Next(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next on a cancelled context: %v", err)
	}
	if got, err := NewPacer(c, t0, 0).Next(ctx); err != nil || !got.Equal(c.Now()) {
		t.Errorf("unlimited pacer: %v %v", got, err)
	}
}

func TestManualClock(t *testing.T) {
	c := NewManualClock(t0)
	ctx := context.Background()
	c.Advance(time.Second)
	c.Advance(-time.Hour)
	if err := c.SleepUntil(ctx, t0); err != nil || !c.Now().Equal(t0.Add(time.Second)) {
		t.Fatalf("the clock went backwards: %v %v", c.Now(), err)
	}
	if err := c.SleepUntil(ctx, t0.Add(time.Minute)); err != nil || !c.Now().Equal(t0.Add(time.Minute)) {
		t.Fatalf("SleepUntil did not move the clock: %v", c.Now())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.SleepUntil(cctx, t0.Add(time.Hour)); !errors.Is(err, context.Canceled) || !c.Now().Equal(t0.Add(time.Minute)) {
		t.Fatalf("SleepUntil on a cancelled context: %v, clock %v", err, c.Now())
	}
}

func TestSystemClockSleepUntilHonoursContext(t *testing.T) {
	c := SystemClock()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- c.SleepUntil(ctx, c.Now().Add(time.Hour)) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("SleepUntil = %v", err)
	}
	if err := c.SleepUntil(context.Background(), c.Now().Add(-time.Second)); err != nil {
		t.Fatalf("SleepUntil in the past = %v", err)
	}
}

func TestDoRecordsErrorsAndOpenLoop(t *testing.T) {
	c := NewManualClock(t0)
	rec := newRecorder(c, 4, 2)
	boom := errors.New("boom")
	if err := rec.Do(0, time.Time{}, func() (int64, error) { c.Advance(time.Second); return 5, boom }); err != boom {
		t.Fatalf("Do returned %v", err)
	}
	rec.Do(1, t0, func() (int64, error) { c.Advance(time.Millisecond); return 7, nil })
	got, spare := make([]opStats, 2), newOpBuffer(2)
	spare = rec.collect(got, spare)
	if got[0].errors != 1 || got[0].count != 0 || got[0].units != 0 || got[0].svc != nil {
		t.Errorf("failed op recorded as %+v", got[0])
	}
	if got[1].count != 1 || got[1].units != 7 || got[1].svc.Max() != int64(time.Millisecond) ||
		got[1].rt.Max() != int64(time.Second+time.Millisecond) {
		t.Errorf("open-loop op: %+v", got[1])
	}
	if rec.Client() != 4 || !rec.Now().Equal(c.Now()) {
		t.Errorf("client %d now %v", rec.Client(), rec.Now())
	}
	// The swapped-out buffer is reset and reused.
	rec.Do(1, time.Time{}, func() (int64, error) { return 1, nil })
	rec.collect(got, spare)
	if got[1].count != 2 || got[1].svc.Count() != 2 || got[1].rt.Count() != 1 {
		t.Errorf("second collect: %+v", got[1])
	}
}

func TestDoDoesNotAllocate(t *testing.T) {
	rec := newRecorder(SystemClock(), 0, 1)
	fn := func() (int64, error) { return 1, nil }
	intended := time.Now()
	rec.Do(0, intended, fn) // first use of each histogram allocates it
	if n := testing.AllocsPerRun(1000, func() { rec.Do(0, intended, fn) }); n != 0 {
		t.Fatalf("Do allocates %v times per call", n)
	}
}

func TestProgress(t *testing.T) {
	res := &result.Step{Name: "l.i0", Status: result.StatusOK, Seconds: 12.5,
		Ops: map[string]*result.Op{"insert": {Count: 1000, Units: 100000, PerSec: 8000, Latency: result.Latency{P99: 1500}}}}
	t.Run("plain", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, false)
		p.StepStarted("l.i0", 200000)
		for s := 1; s <= 25; s++ {
			p.Tick(Status{Step: "l.i0", Elapsed: time.Duration(s) * time.Second, Units: int64(s) * 4000,
				Rate: 4000, ExpectUnits: 200000, ETA: time.Minute})
		}
		p.StepDone(res)
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		// started, 10s, 20s, done.
		if len(lines) != 4 || strings.Contains(buf.String(), "\r") {
			t.Fatalf("plain output:\n%s", buf.String())
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "l.i0") {
				t.Errorf("line without the step name: %q", l)
			}
		}
		if !strings.Contains(lines[1], "l.i0: 4000/s, 0:10, 40k/200k (20%), ETA 1:00") || !strings.Contains(lines[3], "insert 100k (8000/s, p99 1.5ms)") {
			t.Errorf("plain output:\n%s", buf.String())
		}
	})
	t.Run("terminal", func(t *testing.T) {
		var buf bytes.Buffer
		p := NewProgress(&buf, true)
		p.StepStarted("qr100", 0)
		p.Tick(Status{Step: "qr100", Elapsed: 3 * time.Second, Units: 300, Rate: 100, Duration: 10 * time.Second})
		p.Tick(Status{Step: "qr100", Elapsed: 4 * time.Second, Units: 300, Duration: 10 * time.Second, Idle: 9 * time.Second})
		p.Tick(Status{Step: "qr100", Elapsed: 5 * time.Second, Units: 300, Duration: 10 * time.Second, Idle: 72 * time.Second})
		p.StepDone(&result.Step{Name: "qr100", Status: result.StatusFailed, Error: "boom", Seconds: 3})
		out := buf.String()
		if !strings.Contains(out, "\rqr100  100/s  0:03/0:10  300 done\x1b[K\rqr100  0/s  0:04/0:10  300 done\x1b[K") ||
			!strings.Contains(out, "\rqr100  0/s  0:05/0:10  300 done  nothing completed for 1:12\x1b[K") ||
			!strings.HasSuffix(out, "\r\x1b[Kqr100: failed in 3s: boom\n") {
			t.Errorf("terminal output %q", out)
		}
	})
}

func TestETA(t *testing.T) {
	tests := []struct {
		s    Status
		want time.Duration
	}{
		{Status{Elapsed: 10 * time.Second, Units: 100, ExpectUnits: 400}, 30 * time.Second},
		{Status{Elapsed: 10 * time.Second, Units: 400, ExpectUnits: 400}, 0},
		{Status{Elapsed: 10 * time.Second, ExpectUnits: 400}, 0},
		{Status{Elapsed: 4 * time.Second, Duration: 10 * time.Second}, 6 * time.Second},
		{Status{Elapsed: 11 * time.Second, Duration: 10 * time.Second}, 0},
		{Status{Elapsed: 11 * time.Second, Units: 5}, 0},
	}
	for _, tt := range tests {
		if got := eta(tt.s); got != tt.want {
			t.Errorf("eta(%+v) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func BenchmarkRecorderDo(b *testing.B) {
	fn := func() (int64, error) { return 1, nil }
	for _, bc := range []struct {
		name     string
		intended time.Time
	}{{"closed-loop", time.Time{}}, {"open-loop", time.Now()}} {
		b.Run(bc.name, func(b *testing.B) {
			rec := newRecorder(SystemClock(), 0, 1)
			b.ReportAllocs()
			for b.Loop() {
				rec.Do(0, bc.intended, fn)
			}
		})
	}
	// With the runner collecting the recorder on a 1ms tick meanwhile.
	b.Run("closed-loop-collected", func(b *testing.B) {
		rec := newRecorder(SystemClock(), 0, 1)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			into, spare := make([]opStats, 1), newOpBuffer(1)
			tk := time.NewTicker(time.Millisecond)
			defer tk.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tk.C:
					spare = rec.collect(into, spare)
				}
			}
		}()
		b.ReportAllocs()
		for b.Loop() {
			rec.Do(0, time.Time{}, fn)
		}
		close(stop)
		wg.Wait()
	})
}

// A Total operation holds the sum of every foreground operation of the step, interval by
// interval: count, units, found, errors and the merged latency; background operations and
// retries stay out of it.
func TestTotalOpSumsForegroundOps(t *testing.T) {
	c := NewManualClock(t0)
	all := measure.NewHistogram()
	var mu sync.Mutex
	const perClient = 500
	var workers []Worker
	for cl := 0; cl < 2; cl++ {
		for i := 0; i < perClient; i++ {
			all.Record(int64(lat(cl, i)))
		}
		workers = append(workers, Worker{Client: cl, Run: func(ctx context.Context, rec *Recorder) error {
			for i := 0; i < perClient; i++ {
				op := Op(rec.Client()) // client 0 reads, client 1 writes
				mu.Lock()
				err := rec.Do(op, time.Time{}, func() (int64, error) {
					c.Advance(lat(rec.Client(), i))
					return 1, nil
				})
				if op == 0 {
					rec.Found(op, 3)
				} else {
					rec.Retried(op)
				}
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			_ = rec.Do(1, time.Time{}, func() (int64, error) { return 0, errors.New("lost") })
			return nil
		}})
	}
	workers = append(workers, Worker{Client: 9, Background: true, Run: func(ctx context.Context, rec *Recorder) error {
		_ = rec.Do(2, time.Time{}, func() (int64, error) { return 100, nil })
		<-ctx.Done()
		return ctx.Err()
	}})
	res := (&Runner{Clock: c, Tick: time.Millisecond}).Run(context.Background(), Step{Name: "total",
		Ops:     []OpSpec{{Name: "read"}, {Name: "write"}, {Name: "bg", Background: true}, {Name: "requests", Total: true}},
		Workers: workers})
	if res.Status != result.StatusOK {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	tot := res.Ops["requests"]
	if tot.Count != 2*perClient || tot.Units != 2*perClient || tot.Found != 3*perClient || tot.Errors != 2 {
		t.Fatalf("total count %d units %d found %d errors %d", tot.Count, tot.Units, tot.Found, tot.Errors)
	}
	if want := measure.Summarize(all); !reflect.DeepEqual(tot.Latency, want) {
		t.Errorf("total latency\n %+v\nwant\n %+v", tot.Latency, want)
	}
	if res.Retries["requests"] != 0 || res.Retries["write"] != perClient {
		t.Errorf("retries %v", res.Retries)
	}
	var ivCount int64
	for _, in := range intervals(res.Intervals) {
		ivCount += in.Ops["requests"].Count
		if in.Ops["requests"].Count != in.Ops["read"].Count+in.Ops["write"].Count {
			t.Fatalf("interval %d: total %d != read %d + write %d", in.Second,
				in.Ops["requests"].Count, in.Ops["read"].Count, in.Ops["write"].Count)
		}
	}
	if ivCount != tot.Count {
		t.Errorf("intervals sum to %d, total %d", ivCount, tot.Count)
	}
}

func TestLimiterNeverBursts(t *testing.T) {
	c := NewManualClock(t0)
	ctx := context.Background()
	l := NewLimiter(c, t0, 4) // every 250ms
	for i := 0; i < 3; i++ {
		if got, _ := l.Next(ctx); !got.Equal(t0.Add(time.Duration(i) * 250 * time.Millisecond)) {
			t.Fatalf("Next %d = %v", i, got.Sub(t0))
		}
	}
	// Fall 1.5s behind: unlike a Pacer, the missed times are not given; the schedule restarts now.
	c.Advance(1500 * time.Millisecond) // now t0+2s
	got, _ := l.Next(ctx)
	if !got.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("after falling behind: %v, want 2s", got.Sub(t0))
	}
	if got, _ := l.Next(ctx); !got.Equal(t0.Add(2250*time.Millisecond)) || !c.Now().Equal(got) {
		t.Fatalf("the next one: %v, clock %v, want 2.25s", got.Sub(t0), c.Now().Sub(t0))
	}
	// Whatever the client's delays, consecutive starts are at least 1/rate apart.
	rng := rand.New(rand.NewPCG(1, 2))
	l = NewLimiter(c, c.Now(), 100)
	prev := time.Time{}
	for i := 0; i < 2000; i++ {
		got, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !prev.IsZero() && got.Sub(prev) < 10*time.Millisecond {
			t.Fatalf("start %d only %v after the previous", i, got.Sub(prev))
		}
		prev = got
		c.Advance(time.Duration(rng.Int64N(int64(25 * time.Millisecond))))
	}
}

// tickWaiter is a Sampler through which a worker waits for the runner's next tick: the tick
// that samples while the worker waits lets it go on.
type tickWaiter chan struct{}

func (tickWaiter) Begin(context.Context, time.Time) {}

func (w tickWaiter) Sample(context.Context, time.Time) map[string]float64 {
	select {
	case w <- struct{}{}:
	default: // no worker waits
	}
	return nil
}

func (tickWaiter) End(context.Context, time.Time, *result.Step) {}

// next waits for the runner's next tick, or until ctx is done.
func (w tickWaiter) next(ctx context.Context) error {
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestPeriods(t *testing.T) {
	c := NewManualClock(t0)
	ticks := make(tickWaiter)
	var mu sync.Mutex
	const n = 3000
	var seen []result.Period
	rows := int64(0)
	s := Step{Name: "periods", Ops: []OpSpec{{Name: "insert"}, {Name: "query"}},
		Report: 50 * time.Millisecond,
		OnPeriod: func(p *result.Period) {
			mu.Lock()
			p.Rows = rows
			mu.Unlock()
			seen = append(seen, *p)
		},
		Workers: []Worker{{Run: func(ctx context.Context, rec *Recorder) error {
			for i := 0; i < n; i++ {
				mu.Lock()
				err := rec.Do(Op(i%2), time.Time{}, func() (int64, error) {
					c.Advance(time.Millisecond)
					if i%2 == 0 {
						rows += 10
						return 10, nil
					}
					return 1, nil
				})
				mu.Unlock()
				if err != nil {
					return err
				}
				if i%100 == 0 {
					if err := ticks.next(ctx); err != nil { // a tick falls within the step here
						return err
					}
				}
			}
			return nil
		}}}}
	res := (&Runner{Clock: c, Tick: time.Millisecond, Samplers: []Sampler{ticks}}).Run(context.Background(), s)
	if res.Status != result.StatusOK {
		t.Fatalf("status %s: %s", res.Status, res.Error)
	}
	if len(res.Periods) < 2 || len(seen) != len(res.Periods) {
		t.Fatalf("%d periods, OnPeriod saw %d", len(res.Periods), len(seen))
	}
	var units, queries int64
	var end float64
	for i, p := range res.Periods {
		ins, q := p.Ops["insert"], p.Ops["query"]
		units += ins.Units
		queries += q.Units
		if ins.CumUnits != units || q.CumUnits != queries {
			t.Fatalf("period %d: cumulative %d/%d, sums %d/%d", i, ins.CumUnits, q.CumUnits, units, queries)
		}
		// OnPeriod runs after the period's records are collected: the rows it sees include those
		// of operations that have ended since, which count in the next period.
		if p.Rows < ins.CumUnits || i > 0 && p.Rows < res.Periods[i-1].Rows {
			t.Errorf("period %d: OnPeriod's rows %d not kept (cum inserts %d)", i, p.Rows, ins.CumUnits)
		}
		if !within(p.End, end+p.Seconds, 1e-9) {
			t.Fatalf("period %d ends at %v, after %v + %v", i, p.End, end, p.Seconds)
		}
		end = p.End
		if i < len(res.Periods)-1 && p.Seconds < 0.0495 || p.Seconds < 0.025 {
			t.Errorf("period %d of %d lasted %vs, against a 50ms report interval", i, len(res.Periods), p.Seconds)
		}
		if p.Seconds > 0 && !within(ins.PerSec, float64(ins.Units)/p.Seconds, 1e-9) {
			t.Errorf("period %d: per_sec %v for %d units in %vs", i, ins.PerSec, ins.Units, p.Seconds)
		}
		if !within(ins.CumPerSec, float64(ins.CumUnits)/p.End, 1e-9) {
			t.Errorf("period %d: cum_per_sec %v", i, ins.CumPerSec)
		}
		if ins.Count > 0 && (ins.Latency.P50 != 1000 || ins.Latency.Buckets != nil) {
			t.Errorf("period %d: latency %+v, want p50 1ms and no buckets", i, ins.Latency)
		}
	}
	if units != res.Ops["insert"].Units || queries != res.Ops["query"].Units {
		t.Errorf("periods sum to %d inserts and %d queries, step %d and %d", units, queries,
			res.Ops["insert"].Units, res.Ops["query"].Units)
	}
	if !within(end, float64(n)/1000, 1e-9) {
		t.Errorf("last period ends at %vs, the step ran %vs", end, float64(n)/1000)
	}
}

func TestProgressPeriodLine(t *testing.T) {
	per := &result.Period{End: 120, Seconds: 10, Rows: 1_200_000, Ops: map[string]result.PeriodOp{
		"insert": {Count: 101, Units: 101000, PerSec: 10100, CumUnits: 1_200_000, CumPerSec: 10000, Latency: result.Latency{P99: 4000}},
		"query":  {CumUnits: 0},
	}}
	var buf bytes.Buffer
	p := NewProgress(&buf, true)
	p.Tick(Status{Step: "run", Elapsed: 119 * time.Second, Units: 1_190_000, Rate: 10000})
	p.(PeriodProgress).Period("run", per)
	out := buf.String()
	// The live line is cleared, then the period is a line of its own; queries that have not
	// started are left out.
	if !strings.HasSuffix(out, "\r\x1b[Krun 2:00: rows 1.2M; insert 10.1k/s (cum 10k/s, p99 4ms)\n") {
		t.Errorf("terminal output %q", out)
	}
	// Off a terminal, a period line stands in for the plain status line of the same time.
	buf.Reset()
	plain := NewProgress(&buf, false)
	plain.StepStarted("run", 0)
	plain.(PeriodProgress).Period("run", per)
	plain.Tick(Status{Step: "run", Elapsed: 121 * time.Second, Units: 1_200_000, Rate: 10000})
	plain.Tick(Status{Step: "run", Elapsed: 130 * time.Second, Units: 1_300_000, Rate: 10000})
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "run 2:00: rows") ||
		!strings.HasPrefix(lines[2], "run: 10k/s, 2:10") {
		t.Errorf("plain output:\n%s", buf.String())
	}
	per.Rows = 0
	per.Ops["query"] = result.PeriodOp{Count: 5, Units: 5, PerSec: 0.5, CumUnits: 5, CumPerSec: 0.04, Errors: 2, Latency: result.Latency{P99: 2e6}}
	if got, want := periodLine("run", per), "run 2:00: insert 10.1k/s (cum 10k/s, p99 4ms); query 0.5/s (cum 0.04/s, p99 2s, 2 errors)"; got != want {
		t.Errorf("period line\n %q\nwant\n %q", got, want)
	}
}

// A last period much shorter than the report interval joins the one before it: its few
// operations would otherwise make a rate of a moment.
func TestShortLastPeriodJoinsThePrevious(t *testing.T) {
	var seen []result.Period
	s := &Step{Name: "run", Ops: []OpSpec{{Name: "insert"}}, Report: 10 * time.Second,
		OnPeriod: func(p *result.Period) { seen = append(seen, *p) }}
	st := &stepStats{r: &Runner{}, s: s, start: t0, lastPeriod: t0, every: time.Second,
		tot: make([]opStats, 1), per: make([]opStats, 1), prev: make([]opStats, 1)}
	add := func(units int64, lat time.Duration) {
		o := opStats{counts: counts{count: 1, units: units}, svc: measure.NewHistogram()}
		o.svc.Record(int64(lat))
		st.per[0].merge(&o)
		st.tot[0].merge(&o)
	}
	add(10_000, time.Millisecond)
	st.period(t0.Add(10*time.Second), true)
	add(10_000, time.Millisecond)
	st.period(t0.Add(20*time.Second), true)
	add(1000, 9*time.Millisecond) // one batch, 0.2 s after the last report
	st.period(t0.Add(20200*time.Millisecond), false)
	if len(st.periods) != 2 || len(seen) != 3 {
		t.Fatalf("%d periods, OnPeriod called %d times; want 2 and 3 (the joined one again)", len(st.periods), len(seen))
	}
	last := st.periods[1].Ops["insert"]
	if p := st.periods[1]; !within(p.Seconds, 10.2, 1e-9) || !within(p.End, 20.2, 1e-9) || last.Units != 11_000 ||
		last.Count != 2 || !within(last.PerSec, 11_000/10.2, 1e-9) || last.CumUnits != 21_000 || last.Latency.Max < 8900 {
		t.Errorf("joined period %+v, insert %+v", p, last)
	}
	// A last period of at least half the interval stays on its own.
	add(5000, time.Millisecond)
	st.period(t0.Add(25300*time.Millisecond), false)
	if len(st.periods) != 3 || st.periods[2].Ops["insert"].Units != 5000 || !within(st.periods[2].Seconds, 5.1, 1e-9) {
		t.Errorf("periods %+v", st.periods)
	}
}

// lockstepSampler drives a worker in step with the runner's ticks on a manual clock: at its
// k-th Sample it moves the clock one second on and has the worker record batches[k-1] units,
// which the next tick collects into an interval of exactly one second; after the last batch it
// lets the worker return, without moving the clock, so that any later interval has no length.
type lockstepSampler struct {
	clock   *ManualClock
	batches []int64
	k       int
	work    chan int64
	ack     chan struct{}
}

func (s *lockstepSampler) Begin(ctx context.Context, now time.Time) {}

func (s *lockstepSampler) Sample(ctx context.Context, now time.Time) map[string]float64 {
	s.k++
	switch {
	case s.k <= len(s.batches):
		s.clock.Advance(time.Second)
		select {
		case s.work <- s.batches[s.k-1]:
		case <-ctx.Done():
			return nil
		}
		select {
		case <-s.ack:
		case <-ctx.Done():
		}
	case s.k == len(s.batches)+1:
		close(s.work)
	}
	return nil
}

func (s *lockstepSampler) End(ctx context.Context, now time.Time, res *result.Step) {}

func (s *lockstepSampler) worker() Worker {
	return Worker{Run: func(ctx context.Context, rec *Recorder) error {
		for {
			select {
			case n, ok := <-s.work:
				if !ok {
					return nil
				}
				if err := rec.Do(0, time.Time{}, func() (int64, error) { return n, nil }); err != nil {
					return err
				}
				s.ack <- struct{}{}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}}
}

// The p50 and p99 of an op's per-second rate come from the step's whole intervals: with 20
// seconds at 100, 200, ... 2000 units (in a shuffled order), half of the seconds reached 1100
// and 99% of them (rounded: all 20) reached 100. Fewer than ten seconds have no percentiles.
func TestRatePercentilesOfIntervals(t *testing.T) {
	for _, n := range []int{20, 9} {
		c := NewManualClock(t0)
		s := &lockstepSampler{clock: c, work: make(chan int64), ack: make(chan struct{})}
		for i := range n {
			s.batches = append(s.batches, int64(100*(i+1)))
		}
		rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { s.batches[i], s.batches[j] = s.batches[j], s.batches[i] })
		r := &Runner{Clock: c, Tick: time.Millisecond, Samplers: []Sampler{s}}
		res := r.Run(context.Background(), Step{Name: "l.i0", Ops: []OpSpec{{Name: "insert"}}, Workers: []Worker{s.worker()}})
		if res.Status != result.StatusOK {
			t.Fatalf("status %s %s", res.Status, res.Error)
		}
		op := res.Ops["insert"]
		if want := int64(50 * n * (n + 1)); op.Units != want {
			t.Fatalf("%d seconds: %d units, want %d", n, op.Units, want)
		}
		if n < 10 {
			if op.RateP50 != nil || op.RateP99 != nil {
				t.Errorf("%d seconds have percentiles %v %v", n, op.RateP50, op.RateP99)
			}
			continue
		}
		if op.RateP50 == nil || op.RateP99 == nil {
			t.Fatalf("%d seconds: no percentiles", n)
		}
		if *op.RateP50 != 1100 || *op.RateP99 != 100 {
			t.Errorf("p50 %v p99 %v, want 1100 and 100", *op.RateP50, *op.RateP99)
		}
	}
}

// The last interval, which the step's end cuts short, has no say in the percentiles, however
// slow it looks; an interval of no length has none either.
func TestRatePercentilesSkipTheLastInterval(t *testing.T) {
	res := &result.Step{Ops: map[string]*result.Op{"insert": {}}, Intervals: &result.Series{}}
	at := t0
	add := func(d time.Duration, units int64) {
		at = at.Add(d)
		i := res.Intervals.Append(res.Intervals.Len()+1, at)
		res.Intervals.SetOp(i, "insert", result.IntervalOp{Units: units})
	}
	add(0, 0) // a tick at the very start
	for i := range 10 {
		add(2*time.Second, int64(2000*(i+1))) // 1000/s, 2000/s, ... 10000/s
	}
	add(100*time.Millisecond, 1) // 10/s
	ratePercentiles(res, t0, 0)
	op := res.Ops["insert"]
	if op.RateP50 == nil || op.RateP99 == nil {
		t.Fatal("no percentiles from ten whole intervals")
	}
	if *op.RateP50 != 6000 || *op.RateP99 != 1000 {
		t.Errorf("p50 %v p99 %v, want 6000 (the 5th highest of 10) and 1000 (the slowest whole second)", *op.RateP50, *op.RateP99)
	}
}

// usageSampler adds fixed usage totals to the step's result at its End.
type usageSampler map[string]float64

func (usageSampler) Begin(context.Context, time.Time)                     {}
func (usageSampler) Sample(context.Context, time.Time) map[string]float64 { return nil }
func (u usageSampler) End(_ context.Context, _ time.Time, res *result.Step) {
	res.Usage = maps.Clone(u)
}

// A step whose client used more of the CPUs than the runner's limit, or more than 85% of the
// CPUs it may run on, is client-bound; one at or under the limits, one whose client CPU was not measured (an embedded engine) and one run with
// no limit are not.
func TestClientBoundStep(t *testing.T) {
	server := usageSampler{measure.KeyClientCPU: 1.2, measure.KeyCPUAll: 2} // 60%
	embedded := usageSampler{measure.KeyDBCPU: 1.9, measure.KeyCPUAll: 2}
	for _, c := range []struct {
		name  string
		usage usageSampler
		limit float64
		want  bool
	}{
		{"above", server, 50, true},
		{"at", usageSampler{measure.KeyClientCPU: 1, measure.KeyCPUAll: 2}, 50, false},
		{"under", server, 70, false},
		{"embedded", embedded, 1, false},
		{"no limit", server, 0, false},
		// issue 23: more than 85% of the one CPU it may run on, 22.5% of all four
		{"its CPUs", usageSampler{measure.KeyClientCPU: 1.8, measure.KeyClientCPUs: 1, measure.KeySeconds: 2, measure.KeyCPUAll: 8}, 50, true},
		{"its CPUs at 85%", usageSampler{measure.KeyClientCPU: 1.7, measure.KeyClientCPUs: 1, measure.KeySeconds: 2, measure.KeyCPUAll: 8}, 50, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Clock: NewManualClock(t0), Tick: time.Hour, Samplers: []Sampler{c.usage}, ClientCPULimitPct: c.limit}
			res := r.Run(context.Background(), Step{Name: "qr100", Ops: []OpSpec{{Name: "query"}},
				Workers: []Worker{{Run: func(context.Context, *Recorder) error { return nil }}}})
			if res.Status != result.StatusOK || res.ClientBound != c.want {
				t.Errorf("status %s, client_bound %v; want %v", res.Status, res.ClientBound, c.want)
			}
		})
	}
}

// intervals returns every interval of s with its maps.
func intervals(s *result.Series) []result.Interval {
	out := make([]result.Interval, s.Len())
	for i := range out {
		out[i] = s.Interval(i)
	}
	return out
}

// fakeHistLog is a HistogramLog that keeps what it gets and fails the step's interval failAt
// (0: never).
type fakeHistLog struct {
	failAt, calls, closes int
	svc, rt               int64
	ops                   map[string]bool
	stepErr               error
}

func (l *fakeHistLog) Step(config, step string, start time.Time) (StepLog, error) {
	if l.stepErr != nil {
		return nil, l.stepErr
	}
	return l, nil
}

func (l *fakeHistLog) Interval(op string, start, end time.Time, svc, rt *measure.Histogram) error {
	l.calls++
	if l.calls == l.failAt {
		return errors.New("disk full")
	}
	if l.ops == nil {
		l.ops = map[string]bool{}
	}
	l.ops[op] = true
	if svc != nil {
		l.svc += svc.Count()
	}
	if rt != nil {
		l.rt += rt.Count()
	}
	return nil
}

func (l *fakeHistLog) Close() error { l.closes++; return nil }

// The step's HistogramLog gets every interval's histograms of every operation that measured a
// latency, and is closed once; a log that fails ends there, and the step, which runs on, says
// so in its notes; so does one that cannot be opened.
func TestHistogramLogGetsEveryInterval(t *testing.T) {
	run := func(l *fakeHistLog) *result.Step {
		c := NewManualClock(t0)
		w := Worker{Run: func(ctx context.Context, rec *Recorder) error {
			for i := range 200 {
				if err := rec.Do(0, c.Now().Add(-time.Millisecond), func() (int64, error) {
					c.Advance(time.Duration(i+1) * time.Microsecond)
					return 1, nil
				}); err != nil {
					return err
				}
			}
			return nil
		}}
		r := &Runner{Clock: c, Tick: time.Millisecond, Histograms: l, Config: "c"}
		return r.Run(context.Background(), Step{Name: "s", Ops: []OpSpec{{Name: "insert"}, {Name: "idle"}}, Workers: []Worker{w}})
	}
	l := &fakeHistLog{}
	res := run(l)
	if res.Status != result.StatusOK || l.svc != 200 || l.rt != 200 || l.closes != 1 || l.ops["idle"] || len(res.Notes) != 0 {
		t.Errorf("log got %d service and %d response times of ops %v, closed %d times; step %s, notes %q",
			l.svc, l.rt, l.ops, l.closes, res.Status, res.Notes)
	}
	l = &fakeHistLog{failAt: 1}
	res = run(l)
	if res.Status != result.StatusOK || l.calls != 1 || l.closes != 1 || len(res.Notes) != 1 ||
		!strings.Contains(res.Notes[0], "latency histograms logged only until") || !strings.Contains(res.Notes[0], "disk full") {
		t.Errorf("failed log: %d calls, closed %d times; step %s, notes %q", l.calls, l.closes, res.Status, res.Notes)
	}
	res = run(&fakeHistLog{stepErr: errors.New("cannot create")})
	if res.Status != result.StatusOK || len(res.Notes) != 1 || res.Notes[0] != "latency histograms not logged: cannot create" {
		t.Errorf("unopened log: step %s, notes %q", res.Status, res.Notes)
	}
}

// preparer records its calls; its Prepare takes an hour of the clock.
type preparer struct {
	clock *ManualClock
	calls []string
}

func (p *preparer) Prepare(_ context.Context, step string) {
	p.calls = append(p.calls, "prepare "+step)
	p.clock.Advance(time.Hour)
}
func (p *preparer) Begin(context.Context, time.Time) { p.calls = append(p.calls, "begin") }
func (p *preparer) Sample(context.Context, time.Time) map[string]float64 {
	return nil
}
func (p *preparer) End(context.Context, time.Time, *result.Step) { p.calls = append(p.calls, "end") }

// A Preparer's Prepare runs before the step's clock starts: the time it takes is not the
// step's.
func TestPreparerRunsBeforeTheStepStarts(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := NewManualClock(t0)
	p := &preparer{clock: clock}
	r := &Runner{Clock: clock, Tick: time.Hour, Samplers: []Sampler{p}}
	res := r.Run(context.Background(), Step{Name: "l.i0", Workers: []Worker{{Run: func(context.Context, *Recorder) error { return nil }}}})
	if !res.StartedAt.Equal(t0.Add(time.Hour)) || res.Seconds != 0 {
		t.Errorf("started at %v after %v s, want %v and 0: the preparation counted", res.StartedAt, res.Seconds, t0.Add(time.Hour))
	}
	if want := []string{"prepare l.i0", "begin", "end"}; !slices.Equal(p.calls, want) {
		t.Errorf("calls %q, want %q", p.calls, want)
	}
}
