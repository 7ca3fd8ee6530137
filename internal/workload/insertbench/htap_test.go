package insertbench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/runner"
)

// waitClock is a ManualClock that tells on waits each time a goroutine starts waiting for a
// time, so that a test moves the clock only once the holder waits.
type waitClock struct {
	*runner.ManualClock
	waits chan time.Time
}

func (c waitClock) WaitUntil(ctx context.Context, t time.Time) error {
	c.waits <- t
	return c.ManualClock.WaitUntil(ctx, t)
}

// fakeSnapshots are a holder's connections: each begin and end is told on a channel, and
// begin fails while failBegin is above 0.
type fakeSnapshots struct {
	began, ended chan string // the table's name
	opened       int
	closed       int
	failBegin    int
	stats        map[string]float64 // what Stats returns; history_list_length grows by 1 a read
}

func (f *fakeSnapshots) open() (snapshotConn, error) {
	f.opened++
	return &fakeSnapshot{f: f}, nil
}

func (f *fakeSnapshots) Stats(context.Context) (map[string]float64, error) {
	f.stats["history_list_length"]++
	return map[string]float64{"history_list_length": f.stats["history_list_length"]}, nil
}

type fakeSnapshot struct {
	f *fakeSnapshots
	t *table
}

func (s *fakeSnapshot) begin(_ context.Context, t *table) error {
	s.f.began <- t.name
	if s.f.failBegin > 0 {
		s.f.failBegin--
		return errors.New("begin refused")
	}
	s.t = t
	return nil
}

func (s *fakeSnapshot) end(context.Context) error {
	s.f.ended <- s.t.name
	return nil
}

func (s *fakeSnapshot) close() { s.f.closed++ }

// startHolder runs a holder of hold on the fake snapshots with a clock at start until the
// returned cancel; the returned channel gives run's error.
func startHolder(f *fakeSnapshots, c waitClock, hold time.Duration, stats engine.Statser) (*holder, context.CancelFunc, <-chan error) {
	h := &holder{hold: hold, clock: c, t: &table{name: "pi1", no: 1}, open: f.open, stats: stats}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.run(ctx, context.Background()) }()
	return h, cancel, done
}

func newFakes() (*fakeSnapshots, waitClock, time.Time) {
	start := time.Unix(1_700_000_000, 0)
	return &fakeSnapshots{began: make(chan string), ended: make(chan string, 8), stats: map[string]float64{}},
		waitClock{runner.NewManualClock(start), make(chan time.Time)}, start
}

// TestHolderHoldsAndRepeats: a holder keeps each snapshot open for its time on the clock,
// ends it and begins the next at once; at the step's end it returns with the one it holds
// still open, which finish ends (after the step's figures are read). It counts what it held
// and reads the engine's stats before each end.
func TestHolderHoldsAndRepeats(t *testing.T) {
	f, c, start := newFakes()
	h, cancel, done := startHolder(f, c, 10*time.Second, f)
	if got := <-f.began; got != "pi1" {
		t.Fatalf("began on %s, want pi1", got)
	}
	if at := <-c.waits; !at.Equal(start.Add(10 * time.Second)) {
		t.Fatalf("holds until %v, want %v", at, start.Add(10*time.Second))
	}
	c.Advance(10 * time.Second)
	<-f.ended
	<-f.began // the next, at once
	if at := <-c.waits; !at.Equal(start.Add(20 * time.Second)) {
		t.Fatalf("holds the second until %v, want %v", at, start.Add(20*time.Second))
	}
	c.Advance(4 * time.Second)
	cancel() // the step ends 4 s into the second
	if err := <-done; err != nil {
		t.Fatalf("run = %v", err)
	}
	if len(f.ended) != 0 || h.snapshots != 1 || f.closed != 0 {
		t.Fatalf("at the step's end: %d more ends, %d snapshots counted, %d closed; want the second still open", len(f.ended), h.snapshots, f.closed)
	}
	c.Advance(time.Second) // the step's figures are read meanwhile
	h.finish(context.Background())
	<-f.ended
	h.finish(context.Background()) // nothing left: no second end
	if h.snapshots != 2 || h.held != 15*time.Second || h.errors != 0 {
		t.Errorf("snapshots %d, held %v, errors %d; want 2, 15s, 0", h.snapshots, h.held, h.errors)
	}
	if f.opened != 1 || f.closed != 1 {
		t.Errorf("opened %d, closed %d connections; want 1 and 1", f.opened, f.closed)
	}
	if got := h.debt["history_list_length"]; got != 2 {
		t.Errorf("debt read before the ends: history_list_length %v, want the larger of 2 readings, 2", got)
	}
}

// TestHolderRetriesErrors: an error is counted, the connection is closed, and the holder tries
// again on a new one a second later on the clock.
func TestHolderRetriesErrors(t *testing.T) {
	f, c, start := newFakes()
	f.failBegin = 1
	h, cancel, done := startHolder(f, c, 5*time.Second, nil)
	<-f.began // fails
	if at := <-c.waits; !at.Equal(start.Add(htapRetryWait)) {
		t.Fatalf("after an error waits until %v, want %v", at, start.Add(htapRetryWait))
	}
	c.Advance(htapRetryWait)
	<-f.began // succeeds
	<-c.waits
	c.Advance(5 * time.Second)
	<-f.ended
	<-f.began
	<-c.waits
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v", err)
	}
	h.finish(context.Background())
	<-f.ended
	if h.errors != 1 || h.snapshots != 2 {
		t.Errorf("errors %d, snapshots %d; want 1 and 2", h.errors, h.snapshots)
	}
	if f.opened != 2 || f.closed != 2 {
		t.Errorf("opened %d, closed %d connections; want 2 and 2 (a new one after the error)", f.opened, f.closed)
	}
	if h.debt != nil {
		t.Errorf("debt %v without stats", h.debt)
	}
}

// TestHolderStopsOnBlockingWriters: a connection on which a snapshot would stop the writers
// (SQLite outside WAL mode) ends the holder with the error, which fails the step.
func TestHolderStopsOnBlockingWriters(t *testing.T) {
	h := &holder{hold: time.Second, clock: runner.NewManualClock(time.Unix(0, 0)), t: &table{name: "pi1"},
		open: func() (snapshotConn, error) {
			return nil, errors.Join(errBlocksWriters, errors.New("journal_mode delete"))
		}}
	if err := h.run(context.Background(), context.Background()); !errors.Is(err, errBlocksWriters) {
		t.Fatalf("run = %v, want errBlocksWriters", err)
	}
}

// TestCheckSnapshots: with the option on, an engine that holds no snapshot is refused with a
// line naming it; off, every engine is taken.
func TestCheckSnapshots(t *testing.T) {
	p, err := DefaultParams("tiny")
	if err != nil {
		t.Fatal(err)
	}
	none := engine.Driver{Name: "bbolt", Family: engine.FamilyKV}
	docs := engine.Driver{Name: "ferretdb", Family: engine.FamilyDoc}
	snaps := engine.Driver{Name: "pebble", Family: engine.FamilyKV, Snapshots: true}
	for _, d := range []engine.Driver{none, docs, snaps} {
		if err := p.checkSnapshots(d); err != nil {
			t.Errorf("off: %s refused: %v", d.Name, err)
		}
	}
	p.HTAPSeconds = 30
	if err := p.checkSnapshots(snaps); err != nil {
		t.Errorf("pebble refused: %v", err)
	}
	for _, d := range []engine.Driver{none, docs} {
		err := p.checkSnapshots(d)
		if err == nil || !strings.Contains(err.Error(), "--htap-transaction-seconds 30") || !strings.Contains(err.Error(), d.Name) ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the option and the engine", d.Name, err)
		}
	}
}

// TestHolderFinish: after an interrupt finish only closes the open snapshot's connection; it
// leaves alone a holder whose run has not returned (a worker the runner gave up on).
func TestHolderFinish(t *testing.T) {
	f, _, _ := newFakes()
	c, _ := f.open()
	h := &holder{last: c, done: make(chan struct{})}
	h.finish(context.Background())
	if f.closed != 0 || h.last == nil {
		t.Fatalf("finish of a running holder closed %d, left %v", f.closed, h.last)
	}
	close(h.done)
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	h.finish(interrupted)
	if len(f.ended) != 0 || f.closed != 1 || h.snapshots != 0 || h.errors != 0 {
		t.Errorf("after an interrupt: %d ends, %d closed, %d snapshots, %d errors; want 0, 1, 0, 0",
			len(f.ended), f.closed, h.snapshots, h.errors)
	}
}
