package iibench

import (
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestRateLimitedInsertsAreOpenLoop runs inserts under --max-insert-rate on engines with a fixed
// service time, on the manual clock: below the rate's interval every batch starts when due, its
// response time is its service time and the target is met; above it the inserter falls behind,
// the response times grow with the queue and the target is missed. Without a rate there is no
// response time and no target.
func TestRateLimitedInsertsAreOpenLoop(t *testing.T) {
	for _, c := range []struct {
		name              string
		rate              float64
		service           time.Duration
		met               bool
		achieved          float64       // rows a second
		rtP50, rtMax, svc time.Duration // response time p50 and max, service time max
	}{
		// 20 batches of 100 rows 10 ms apart, each 4 ms: the last ends at 194 ms.
		{"fast engine", 10_000, 4 * time.Millisecond, true, 2000 / 0.194, 4 * time.Millisecond, 4 * time.Millisecond, 4 * time.Millisecond},
		// 20 ms each: batch k, due at 10k ms, ends at 20(k+1) ms: a response time of 10k + 20 ms.
		{"slow engine", 10_000, 20 * time.Millisecond, false, 2000 / 0.4, 110 * time.Millisecond, 210 * time.Millisecond, 20 * time.Millisecond},
		{"no rate", 0, 4 * time.Millisecond, true, 2000 / 0.08, 0, 0, 4 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			db := &clockedDB{DB: openNull(t), clock: clock, manual: clock, service: c.service}
			p, _ := DefaultParams("tiny")
			p.MaxRows, p.InsertBatch, p.MaxInsertRate, p.QueryThreads, p.SecondaryIndexes = 2000, 100, c.rate, 0, 0
			w := mustNew(t, p)
			st, err := runOn(t, context.Background(), w, db, &runner.Runner{Clock: clock})
			if err != nil || st.Status != result.StatusOK {
				t.Fatalf("%v %s", err, st.Error)
			}
			ins := st.Ops["insert"]
			near := func(got float64, want time.Duration) bool {
				return math.Abs(got-float64(want.Microseconds())) <= 0.01*float64(want.Microseconds())
			}
			if !near(ins.Latency.Max, c.svc) {
				t.Errorf("service time max %.0f us, want %v", ins.Latency.Max, c.svc)
			}
			if c.rate == 0 {
				if st.Target != nil || ins.Response != nil {
					t.Errorf("no rate: target %+v, response time %+v", st.Target, ins.Response)
				}
				return
			}
			if ins.Response == nil || !near(ins.Response.P50, c.rtP50) || !near(ins.Response.Max, c.rtMax) {
				t.Errorf("response time %+v, want p50 %v, max %v", ins.Response, c.rtP50, c.rtMax)
			}
			tg := st.Target
			if tg == nil || tg.InsertsPerSec != c.rate || tg.SLAMet != c.met || math.Abs(tg.AchievedInsertsPerSec-c.achieved) > 1 {
				t.Errorf("target %+v, want %g rows/s met %v, achieved %.0f", tg, c.rate, c.met, c.achieved)
			}
		})
	}
}

// TestPacedThreadsAreEvenlySpaced checks the schedules of three rate-limited insert threads:
// together their batches are due evenly spaced, one every third of a thread's interval.
func TestPacedThreadsAreEvenlySpaced(t *testing.T) {
	clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, _ := DefaultParams("tiny")
	p.InsertThreads, p.InsertBatch, p.MaxInsertRate = 3, 100, 3000 // each thread a batch every 100 ms
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	r := &run{p: &p, env: workload.Env{Runner: &runner.Runner{Clock: clock}}}
	start := clock.Now()
	var due []time.Duration
	for c := 0; c < p.InsertThreads; c++ {
		pace := r.pacer(start, c)
		for i := 0; i < 10; i++ {
			at, err := pace.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			due = append(due, at.Sub(start))
		}
	}
	slices.Sort(due)
	for i, d := range due {
		if want := time.Duration(i) * 100 * time.Millisecond / 3; d-want > time.Microsecond || want-d > time.Microsecond {
			t.Fatalf("batch %d of all threads is due at %v, want %v", i, d, want)
		}
	}
	if (&run{p: &Params{}}).pacer(start, 0) != nil {
		t.Error("a pacer without a rate")
	}
}

// TestInterruptDuringSetupAndVerification cancels the run's context (Ctrl-C) just before the
// table is created and just before verification, on SQLite and Pebble: the step is
// interrupted, not failed, and Run returns context.Canceled.
func TestInterruptDuringSetupAndVerification(t *testing.T) {
	for _, d := range []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver()} {
		for _, phase := range []string{"create", "verify"} {
			t.Run(d.Name+"/"+phase, func(t *testing.T) {
				eng := engineCase{driver: d}.open(t, context.Background())
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p, _ := DefaultParams("tiny")
				p.MaxRows, p.QueryThreads = 2000, 0
				w := mustNew(t, p)
				w.hooks = &testHooks{}
				if phase == "create" {
					w.hooks.create = cancel
				} else {
					w.hooks.verify = cancel
				}
				st, err := runOn(t, ctx, w, eng, nil)
				if !errors.Is(err, context.Canceled) || st.Status != result.StatusInterrupted || st.Error != "interrupted" || st.Verify != nil {
					t.Errorf("Ctrl-C before %s: %v; step %s %q, verify %+v", phase, err, st.Status, st.Error, st.Verify)
				}
			})
		}
	}
}

// errHuge is a driver error that repeats a whole statement with its values, as some drivers'
// messages do.
var errHuge = errors.New("near 'VALUES ('2026-01-01 00:00:00',1,2,3,4.5,'aaaaaaXXXX')" +
	strings.Repeat(",('2026-01-01 00:00:00',1,2,3,4.5,'aaaaaaXXXX')", 5000) + "'")

// failingBackend makes every insert fail with err.
type failingBackend struct {
	backend
	err error
}

func (f *failingBackend) newSession(ctx context.Context) (session, error) {
	s, err := f.backend.newSession(ctx)
	if err != nil {
		return nil, err
	}
	return &failingSession{session: s, err: f.err}, nil
}

type failingSession struct {
	session
	err error
}

func (s *failingSession) insert(context.Context, []Row) error {
	return runner.OpError("insert into "+tableName, s.err)
}

// TestErrorsDoNotCarryStatements fails the inserts of a run on SQLite with a driver error that
// repeats 300 KB of a statement: the step's error names the operation and keeps the driver's
// message to its first runner.MaxErrorText bytes.
func TestErrorsDoNotCarryStatements(t *testing.T) {
	ctx := context.Background()
	eng := engineCase{driver: sqldb.SQLiteDriver()}.open(t, ctx)
	p, _ := DefaultParams("tiny")
	p.QueryThreads = 0
	w := mustNew(t, p)
	r, err := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}, eng)
	if err != nil {
		t.Fatal(err)
	}
	r.be = &failingBackend{backend: r.be, err: errHuge}
	st := r.step(ctx)
	if st.Status != result.StatusFailed || len(st.Error) > runner.MaxErrorText+100 || !strings.HasPrefix(st.Error, "insert into purchases_index: near 'VALUES") ||
		!strings.HasSuffix(st.Error, "more bytes)") {
		t.Errorf("step %s, error of %d bytes: %.500s", st.Status, len(st.Error), st.Error)
	}
}

// TestCheckEngine checks the limits refused before any work: an insert statement above MariaDB's
// max_allowed_packet (only on innodb and myrocks; the largest accepted batch is one row below
// the first refused), and in the reference variant more rows than an int transactionid holds
// (only on the servers, and not in the corrected variant).
func TestCheckEngine(t *testing.T) {
	drivers := []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver(), sqldb.PostgresDriver(), sqldb.InnoDBDriver(), sqldb.MyRocksDriver()}
	check := func(set func(*Params)) map[string]string {
		p, _ := DefaultParams("small")
		set(&p)
		w := mustNew(t, p)
		out := map[string]string{}
		for _, d := range drivers {
			if err := w.CheckEngine(d); err != nil {
				out[d.Name] = err.Error()
			}
		}
		return out
	}
	if got := check(func(*Params) {}); len(got) != 0 {
		t.Errorf("the defaults are refused: %v", got)
	}
	pad := func(p *Params) { p.CharFields, p.CharLength = 4, 3000 }
	limit := func() int { p, _ := DefaultParams("small"); pad(&p); return p.maxMariaRows() }()
	got := check(func(p *Params) { pad(p); p.InsertBatch = limit + 1 })
	for _, name := range []string{"innodb", "myrocks"} {
		if !strings.Contains(got[name], "max_allowed_packet (16 MiB) on "+name) || !strings.Contains(got[name], "at most "+strconv.Itoa(limit)+" rows per insert") {
			t.Errorf("%s: %q", name, got[name])
		}
	}
	if len(got) != 2 {
		t.Errorf("refused: %v, want innodb and myrocks only", got)
	}
	if got := check(func(p *Params) { pad(p); p.InsertBatch = limit }); len(got) != 0 {
		t.Errorf("%d rows per insert refused: %v", limit, got)
	}
	got = check(func(p *Params) { p.MaxRows = math.MaxInt32 + 1 })
	if len(got) != 3 || !strings.Contains(got["postgres"], "--variant corrected makes it a bigint") {
		t.Errorf("2^31 rows in the reference variant: %v", got)
	}
	if got := check(func(p *Params) { p.MaxRows, p.Variant = math.MaxInt32+1, workload.Corrected }); len(got) != 0 {
		t.Errorf("2^31 rows in the corrected variant: %v", got)
	}
}

// TestLargestBatchRunsOnMariaDB runs, on a real InnoDB server in both variants, one batch of the
// most rows CheckEngine accepts with the widest rows (16 padding columns of 750 bytes): the
// statement, text or prepared, fits in the server's max_allowed_packet, and the rows verify.
func TestLargestBatchRunsOnMariaDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	eng, _ := sqldbtest.InnoDB().Start(t, ctx, false)
	for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
		p, _ := DefaultParams("tiny")
		p.Variant, p.CharFields, p.CharLength, p.QueryThreads = v, 16, 750, 0
		p.InsertBatch = p.maxMariaRows()
		p.MaxRows = int64(p.InsertBatch)
		w := mustNew(t, p)
		if err := w.CheckEngine(sqldb.InnoDBDriver()); err != nil {
			t.Fatal(err)
		}
		st, err := runOn(t, ctx, w, eng, nil)
		if err != nil || st.Status != result.StatusOK || st.Verify == nil || !st.Verify.OK {
			t.Fatalf("%s: one batch of %d rows: %v %s, verify %+v", v, p.InsertBatch, err, st.Error, st.Verify)
		}
	}
}

// TestFrozenServer freezes a managed InnoDB server (SIGSTOP) just before the table is created
// and just before verification: the step fails with the stall error that names the
// configuration and the phase, not interrupted and not held for ever.
func TestFrozenServer(t *testing.T) {
	for _, phase := range []string{"create", "verify"} {
		t.Run(phase, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			eng, _ := sqldbtest.InnoDB().Start(t, ctx, false)
			p, _ := DefaultParams("tiny")
			p.MaxRows, p.QueryThreads = 2000, 0
			w := mustNew(t, p)
			freeze := func() {
				if err := syscall.Kill(eng.(engine.Server).ServerPID(), syscall.SIGSTOP); err != nil {
					t.Error(err)
				}
			}
			w.hooks = &testHooks{}
			want := "innodb (creating the table) stalled: nothing completed for 2s"
			if phase == "create" {
				w.hooks.create = freeze
			} else {
				w.hooks.verify = freeze
				want = "innodb (verification) stalled: nothing completed for 2s"
			}
			rn := &runner.Runner{Clock: runner.SystemClock(), StallTimeout: 2 * time.Second, Config: "innodb"}
			st, err := runOn(t, ctx, w, eng, rn)
			if err == nil || errors.Is(err, context.Canceled) || st.Status != result.StatusFailed || st.Error != want || st.Verify != nil {
				t.Errorf("server frozen before %s: %v; step %s %q, verify %+v; want failed: %q", phase, err, st.Status, st.Error, st.Verify, want)
			}
		})
	}
}
