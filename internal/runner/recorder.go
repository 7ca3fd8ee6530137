package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
)

// recorderState is the content of a Recorder (embedded in it, see runner.go).
//
// The worker's goroutine records into the active interval buffer, bracketed by the phaser;
// once a tick the runner swaps in a spare buffer, flips the phaser to wait until the worker
// has left the old one, merges the old one into the step's aggregates, resets it and keeps it
// as the spare for the next recorder: the step's recorders share one spare, so that W workers
// hold W+1 buffers. The worker never takes a lock, and allocates only the first time an
// operation type is recorded into the buffer it holds, or a latency in a block of bins that
// the buffer does not hold (a Recording releases the blocks an interval left empty, keeping a
// few spare).
type recorderState struct {
	clock  Clock
	client int
	nops   int
	active atomic.Pointer[opBuffer]
	ph     phaser
	// last is the time (Unix nanoseconds on the clock) of the worker's last progress: an
	// operation that succeeded, a Heartbeat, its return; 0 if none. The stall watchdog reads it.
	last  atomic.Int64
	opCtx context.Context // see OpContext; nil outside a step
	_     [64]byte        // keeps the counters of neighbouring recorders off each other's cache line
}

// opBuffer holds a recorder's records of one interval, one entry per operation type.
type opBuffer struct {
	ops []recStats
}

// counts are the counters of one operation type.
type counts struct {
	count, units, errors, found, retries int64
}

// recStats are the counters and latencies of one operation type in a recorder's interval
// buffer: sparse Recordings, a few KB each, allocated when first needed, which the runner
// merges into its aggregates exactly.
type recStats struct {
	counts
	svc, rt *measure.Recording // service and response time
	_       [8]byte            // 64 bytes: recorders do not share cache lines
}

// opStats are the counters and histograms of one operation type in the runner's aggregates
// (not per worker): the interval's, the step's and the periods'. The histograms are sparse
// (a few KB to a few tens of KB) and allocated when first needed.
type opStats struct {
	counts
	svc, rt *measure.Histogram // service and response time
}

func newRecorder(c Clock, client, ops int) *Recorder {
	rec := &Recorder{}
	rec.clock, rec.client, rec.nops = c, client, ops
	rec.active.Store(newOpBuffer(ops))
	return rec
}

// newOpBuffer returns an empty interval buffer for ops operation types.
func newOpBuffer(ops int) *opBuffer { return &opBuffer{ops: make([]recStats, ops)} }

// Do runs fn as one operation of type op and records it: fn returns the units it did (rows,
// queries) and its error. Service time runs from just before fn to just after it, on the
// runner's clock. If intended is not zero the operation is open loop and its response time,
// from intended to the end of fn, is recorded as well. A failed operation counts as an error
// of op (no latency, no units) and its error is returned; one that fails after the step was
// cut short around it (its OpContext cancelled: interrupted, or another worker failed) is no
// failure of the engine and counts as neither, unless the step stalled. An operation that ends
// at the step's normal end (its Duration) still counts: the OpContext lasts until then.
func (rec *Recorder) Do(op Op, intended time.Time, fn func() (units int64, err error)) error {
	rec.check(op)
	start := rec.clock.Now()
	units, err := fn()
	end := rec.clock.Now()
	e := rec.ph.enter()
	o := &rec.active.Load().ops[op]
	if err != nil {
		if !rec.cutShort() {
			o.errors++
		}
	} else {
		o.count++
		o.units += units
		if o.svc == nil {
			o.svc = measure.NewRecording()
		}
		o.svc.Record(int64(end.Sub(start)))
		if !intended.IsZero() {
			if o.rt == nil {
				o.rt = measure.NewRecording()
			}
			o.rt.Record(int64(end.Sub(intended)))
		}
	}
	rec.ph.exit(e)
	if err == nil {
		rec.last.Store(end.UnixNano())
	}
	return err
}

// cutShort reports whether the step was cut short around the worker: its OpContext cancelled
// by an interrupt or by another worker's failure, not by a stall (the engine's).
func (rec *Recorder) cutShort() bool {
	if rec.opCtx == nil || rec.opCtx.Err() == nil {
		return false
	}
	var stall *StallError
	return !errors.As(context.Cause(rec.opCtx), &stall)
}

// Heartbeat tells the step's stall watchdog that the worker progresses although no operation
// completes: a step whose operation is long by nature (one CREATE INDEX, a full scan) calls it
// whenever it sees the engine at work (its server's CPU time grew, a progress view advanced).
// Every operation that succeeds counts by itself. Heartbeat may be called from any goroutine.
func (rec *Recorder) Heartbeat() { rec.last.Store(rec.clock.Now().UnixNano()) }

// Retried counts one retry of an operation of type op (a transient conflict that was retried).
func (rec *Recorder) Retried(op Op) {
	rec.check(op)
	e := rec.ph.enter()
	rec.active.Load().ops[op].retries++
	rec.ph.exit(e)
}

// Found adds n to what operations of type op found (rows returned by queries).
func (rec *Recorder) Found(op Op, n int64) {
	rec.check(op)
	e := rec.ph.enter()
	rec.active.Load().ops[op].found += n
	rec.ph.exit(e)
}

// check panics if op is not an operation of the step, before a critical section is entered:
// a panic inside one would leave the runner waiting for the worker to leave it.
func (rec *Recorder) check(op Op) {
	if uint(op) >= uint(rec.nops) {
		panic(fmt.Sprintf("runner: op %d out of range: the step has %d operation types", op, rec.nops))
	}
}

// OpContext returns the context for the worker's engine calls: it is cancelled when the step
// fails or stalls (with that error as its cause, see context.Cause) or is interrupted, but not
// at the step's normal end (its Duration, or the foreground workers done), so that an
// operation then in flight completes instead of failing. A worker that passes it to its
// engine calls lets the stall watchdog cancel a statement stuck on a frozen server, where the
// worker would otherwise be left behind (see Runner.Run).
func (rec *Recorder) OpContext() context.Context {
	if rec.opCtx == nil {
		return context.Background()
	}
	return rec.opCtx
}

// Now returns the time on the runner's clock.
func (rec *Recorder) Now() time.Time { return rec.clock.Now() }

// Client returns the client index of the recorder's worker.
func (rec *Recorder) Client() int { return rec.client }

// collect swaps the recorder's interval buffer for spare, waits until the worker has left the
// old one, merges it into into (one entry per operation type) and returns it, reset, as the
// next spare. Only the runner's goroutine calls it.
func (rec *Recorder) collect(into []opStats, spare *opBuffer) *opBuffer {
	old := rec.active.Swap(spare)
	rec.ph.flip()
	for i := range old.ops {
		into[i].mergeRecorded(&old.ops[i])
		old.ops[i].reset()
	}
	return old
}

// add adds from's counters to c.
func (c *counts) add(from *counts) {
	c.count += from.count
	c.units += from.units
	c.errors += from.errors
	c.found += from.found
	c.retries += from.retries
}

// merge adds from's counters and histograms to s.
func (s *opStats) merge(from *opStats) {
	s.add(&from.counts)
	s.svc = mergeHist(s.svc, from.svc)
	s.rt = mergeHist(s.rt, from.rt)
}

// mergeRecorded adds a recorder's counters and recordings of one interval to s.
func (s *opStats) mergeRecorded(from *recStats) {
	s.add(&from.counts)
	s.svc = mergeRecording(s.svc, from.svc)
	s.rt = mergeRecording(s.rt, from.rt)
}

// mergeRecording merges from into into, allocating into if from has values, and returns into.
func mergeRecording(into *measure.Histogram, from *measure.Recording) *measure.Histogram {
	if from == nil || from.Count() == 0 {
		return into
	}
	if into == nil {
		into = measure.NewHistogram()
	}
	into.MergeRecording(from)
	return into
}

// mergeHist merges from into into, allocating into if from has values, and returns into.
func mergeHist(into, from *measure.Histogram) *measure.Histogram {
	if from == nil || from.Count() == 0 {
		return into
	}
	if into == nil {
		into = measure.NewHistogram()
	}
	into.Merge(from)
	return into
}

// reset zeroes s, keeping its histograms, and the bins of theirs that held a value, for reuse.
func (s *opStats) reset() {
	s.counts = counts{}
	for _, h := range []*measure.Histogram{s.svc, s.rt} {
		if h != nil {
			h.Reset()
		}
	}
}

// reset zeroes s, keeping its recordings, and the bins of theirs that held a value, for reuse.
func (s *recStats) reset() {
	s.counts = counts{}
	for _, r := range []*measure.Recording{s.svc, s.rt} {
		if r != nil {
			r.Reset()
		}
	}
}
