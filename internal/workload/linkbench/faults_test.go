package linkbench

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// interrupting is a key-value engine that cancels the run's context at one moment, as Ctrl-C
// would: while the load creates its tables, when the batch-th write batch is made (a client
// opens), or at the first iterator (verification, when no request ran).
type interrupting struct {
	kv.DB
	cancel  context.CancelFunc
	declare bool
	batch   int64
	iter    bool
	batches atomic.Int64
}

// DeclareRanges is the tables' creation: the interrupt reaches the engine there.
func (e *interrupting) DeclareRanges(ranges []kv.Range) error {
	if e.declare {
		e.cancel()
		return context.Canceled
	}
	return kv.DeclareRanges(e.DB, ranges)
}

func (e *interrupting) NewBatch() kv.Batch {
	if e.batches.Add(1) == e.batch {
		e.cancel()
	}
	return e.DB.NewBatch()
}

func (e *interrupting) NewIter(lo, hi []byte) (kv.Iter, error) {
	if e.iter {
		e.cancel()
	}
	return e.DB.NewIter(lo, hi)
}

// TestInterruptedSetupIsInterrupted interrupts the run during the load's setup (creating the
// tables), the request phase's setup (opening its clients) and verification: each step ends
// interrupted, not failed, and Run returns context.Canceled.
func TestInterruptedSetupIsInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []string
		set   func(e *interrupting)
		want  string // the interrupted step
	}{
		{"load setup", nil, func(e *interrupting) { e.declare = true }, "load"},
		// One link loader and the node loader open the first two clients.
		{"request setup", nil, func(e *interrupting) { e.batch = 3 }, "run.1"},
		{"verification", []string{"load"}, func(e *interrupting) { e.iter = true }, "load"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			db := open(t, ctx, pebble.Driver(), nil, t.TempDir()).(kv.DB)
			eng := &interrupting{DB: db, cancel: cancel}
			tt.set(eng)
			p := tinyParams(t)
			p.MaxID1, p.Variant = 1001, workload.Corrected
			if tt.steps != nil {
				p.Steps = tt.steps
			}
			w := mustNew(t, p)
			steps, err := runOn(t, ctx, w, eng)
			if !errors.Is(err, context.Canceled) || len(steps) == 0 {
				t.Fatalf("Run = %v after %d steps, want context.Canceled", err, len(steps))
			}
			last := steps[len(steps)-1]
			if last.Name != tt.want || last.Status != result.StatusInterrupted {
				t.Errorf("last step %s: %s %q, want %s interrupted", last.Name, last.Status, last.Error, tt.want)
			}
		})
	}
}

// TestRetriesEndWithTheStep holds SQLite's write lock from another connection during a request
// interval, with no busy timeout: the requests conflict and are retried, backing off, until
// the interval's end stops their retries (the reference's 999 retries would take hours). The
// interval ends ok, with the requests that gave up counted as errors and every retry counted;
// verification passes.
func TestRetriesEndWithTheStep(t *testing.T) {
	ctx := context.Background()
	eng := open(t, ctx, sqldb.SQLiteDriver(), map[string]string{"busy_timeout_ms": "0"}, t.TempDir())
	p := tinyParams(t)
	p.MaxID1, p.Variant, p.Intervals, p.IntervalSeconds = 1001, workload.Corrected, 1, 0.5
	w := mustNew(t, p)
	st, err := store.Open(eng, store.Options{Corrected: true})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := eng.(sqldb.DB).SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The lock is released when the interval's workers have returned, before verification.
	unlock := &stepDone{done: func() error { _, err := conn.ExecContext(ctx, "ROLLBACK"); return err }}
	r := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock(), Progress: unlock}}, eng, st)
	if s := r.load(ctx); s.Status != result.StatusOK {
		t.Fatalf("load: %s %s", s.Status, s.Error)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var steps []*result.Step
	err = r.requestPhase(ctx, func(s *result.Step) { steps = append(steps, s) })
	if unlock.err != nil {
		t.Fatal(unlock.err)
	}
	if err != nil || len(steps) != 1 {
		t.Fatalf("request phase: %v, %d steps", err, len(steps))
	}
	s := steps[0]
	// A requester's operations run one at a time: each gives up once, at the interval's end.
	var retries, errs int64
	for op := profile.Op(0); op < profile.Op(profile.NumOps); op++ {
		retries += s.Retries[op.String()]
		errs += s.Ops[op.String()].Errors
	}
	if s.Status != result.StatusOK || retries == 0 || errs == 0 || errs > int64(p.Requesters) {
		t.Errorf("%s: %s %q, %d retries, %d errors (want one per requester at most): %+v",
			s.Name, s.Status, s.Error, retries, errs, s.Retries)
	}
	if s.Verify == nil || !s.Verify.OK {
		t.Errorf("verify %+v", s.Verify)
	}
}

// stepDone is a runner.Progress that calls done when a step's workers have returned.
type stepDone struct {
	done func() error
	err  error
}

func (p *stepDone) StepStarted(string, int64) {}
func (p *stepDone) Tick(runner.Status)        {}
func (p *stepDone) StepDone(s *result.Step) {
	if s.Name != "load" {
		p.err = p.done()
	}
}

// afterCreate runs then after the store's Create.
type afterCreate struct {
	store.Store
	then func() error
}

func (s afterCreate) Create(ctx context.Context) error {
	if err := s.Store.Create(ctx); err != nil {
		return err
	}
	return s.then()
}

// TestLoadErrorIsShort makes SQLite refuse every node the load inserts with a 100 KB message
// full of numbers, as a driver that repeats a statement's values would: the load fails with an
// error that names the operation and keeps 512 bytes of the message.
func TestLoadErrorIsShort(t *testing.T) {
	ctx := context.Background()
	eng := open(t, ctx, sqldb.SQLiteDriver(), nil, t.TempDir())
	p := tinyParams(t)
	p.MaxID1, p.Variant, p.Steps = 1001, workload.Corrected, []string{"load"}
	w := mustNew(t, p)
	st, err := store.Open(eng, store.Options{Corrected: true})
	if err != nil {
		t.Fatal(err)
	}
	values := strings.Repeat("(1, 2, 3, 4), ", 7000)
	trigger := "CREATE TRIGGER refuse BEFORE INSERT ON nodetable BEGIN SELECT RAISE(ABORT, '" + values + "'); END"
	db := eng.(sqldb.DB).SQL()
	r := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}, eng,
		afterCreate{st, func() error { _, err := db.ExecContext(ctx, trigger); return err }})
	s := r.load(ctx)
	if s.Status != result.StatusFailed || !strings.Contains(s.Error, "insert nodes: ") || len(s.Error) > 1024 ||
		!strings.Contains(s.Error, "more bytes)") {
		t.Errorf("load: %s, error of %d bytes: %.300s", s.Status, len(s.Error), s.Error)
	}
}

// TestLoadBatchAtTheLimit loads with the largest --load-batch on SQLite, whose statements take
// fewer bind parameters than 10,000 links need: the store splits the batch, and the load
// verifies.
func TestLoadBatchAtTheLimit(t *testing.T) {
	ctx := context.Background()
	eng := open(t, ctx, sqldb.SQLiteDriver(), nil, t.TempDir())
	p := tinyParams(t)
	p.Variant, p.LoadBatch, p.Steps = workload.Corrected, 10000, []string{"load"}
	if d := eng.(sqldb.DB).Dialect(); d.MaxParams() >= 7*p.LoadBatch {
		t.Fatalf("SQLite takes %d bind parameters: the test needs fewer than %d", d.MaxParams(), 7*p.LoadBatch)
	}
	w := mustNew(t, p)
	steps, err := runOn(t, ctx, w, eng)
	if err != nil || len(steps) != 1 || steps[0].Verify == nil || !steps[0].Verify.OK {
		t.Fatalf("load: %v, %+v", err, steps)
	}
}

// freezingStore calls freeze before its n-th call named point (Create, Rows: verification's
// first read, Client, CreateIndex).
type freezingStore struct {
	store.Store
	point  string
	n      int64
	calls  *atomic.Int64
	freeze func()
}

func (s freezingStore) at(point string) {
	if point == s.point && s.calls.Add(1) == s.n {
		s.freeze()
	}
}

func (s freezingStore) Create(ctx context.Context) error { s.at("Create"); return s.Store.Create(ctx) }
func (s freezingStore) CreateIndex(ctx context.Context) error {
	s.at("CreateIndex")
	return s.Store.CreateIndex(ctx)
}

func (s freezingStore) Rows(ctx context.Context) (store.Rows, error) {
	s.at("Rows")
	return s.Store.Rows(ctx)
}

func (s freezingStore) Client(ctx context.Context) (store.Client, error) {
	s.at("Client")
	return s.Store.Client(ctx)
}

// TestFrozenServer freezes a managed InnoDB server (SIGSTOP) before the load creates the
// tables, before verification, before the request phase opens its first client (after the
// load's two) and before the deferred index build, one statement long by nature: each time the
// step fails with the stall error that names the configuration (and the phase, outside the
// runner's steps), and the run ends.
func TestFrozenServer(t *testing.T) {
	c := sqldbtest.InnoDB()
	c.Require(t)
	for _, tc := range []struct {
		point    string
		n        int64
		steps    []string
		deferIdx bool
		want     string
	}{
		{"Create", 1, []string{"load"}, false, "load: create tables: innodb (load creating the tables) stalled: nothing completed for 2s"},
		{"Rows", 1, []string{"load"}, false, "load: innodb (verification after load) stalled: nothing completed for 2s"},
		{"Client", 3, nil, false, "run.1: innodb (run.1 opening the requesters' connections) stalled: nothing completed for 2s"},
		{"CreateIndex", 1, []string{"load"}, true, "index: innodb stalled: nothing completed for 2s"},
	} {
		t.Run(tc.point, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			eng, _ := c.Start(t, ctx, false) // stopped at the end, frozen or not
			p := tinyParams(t)
			p.MaxID1, p.DeferIndex = 1001, tc.deferIdx
			if tc.steps != nil {
				p.Steps = tc.steps
			}
			w := mustNew(t, p)
			var frozen atomic.Bool
			w.wrap = func(st store.Store) store.Store {
				return freezingStore{Store: st, point: tc.point, n: tc.n, calls: &atomic.Int64{}, freeze: func() {
					if err := syscall.Kill(eng.(engine.Server).ServerPID(), syscall.SIGSTOP); err != nil {
						t.Error(err)
					}
					frozen.Store(true)
				}}
			}
			steps, err := workloadtest.Run(ctx, w, eng, &runner.Runner{Clock: runner.SystemClock(),
				StallTimeout: 2 * time.Second, Config: "innodb"})
			if !frozen.Load() || err == nil || errors.Is(err, context.Canceled) || len(steps) == 0 {
				t.Fatalf("frozen %v; Run = %v after %d steps, want a stall", frozen.Load(), err, len(steps))
			}
			s := steps[len(steps)-1]
			if got := s.Name + ": " + s.Error; s.Status != result.StatusFailed || got != tc.want {
				t.Errorf("step %s %s: %q, want failed: %q", s.Name, s.Status, got, tc.want)
			}
		})
	}
}
