package insertbench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// queueDepth is how many statements the reference's statement maker may be ahead of its
// inserter and of its deleter: its statement queues hold 8 (iibench.py:1494-1495).
const queueDepth = 8

// probeNotice is how long the min(transactionid) probe may take before the run says that it
// is waiting for it.
const probeNotice = 5 * time.Second

// The ops of the steps that write: every writing step lists insert and delete first.
const (
	opInsert runner.Op = 0
	opDelete runner.Op = 1
)

// job is one statement the maker hands to the inserter (rows) or to the deleter (n, low).
type job struct {
	rows []Row
	n    int
	low  int64
	// claim: the deleter claims the range of the table's shared estimate when it runs the
	// delete (low is then unset), so that a delete the step's end leaves unrun claims nothing.
	claim    bool
	intended time.Time // when the maker made it, in a rate-limited step (zero otherwise)
}

// writer is one client's writer in a step: the reference's three processes per client
// (iibench.py:1109-1216 statement_maker, :1258-1369 statement_executor for inserts and for
// deletes), as three workers joined by two queues of queueDepth. The maker makes each batch of
// rows and the matching delete; the inserter and the deleter run them on their own sessions.
type writer struct {
	r       *run
	step    string
	client  int
	t       *table
	rounds  int64 // batches to make; 0: until the step's context ends
	batch   int
	rate    float64       // rows a second; 0: as fast as the engine takes them
	span    time.Duration // corrected query steps: no batch is due at or after span from the start
	open    bool          // open loop (corrected query steps, capacity levels): paced by an open-loop schedule
	deletes bool          // a delete for every insert (--delete_per_insert)
	// seg and stripe are the keys of the writer's rows: its batch j holds seg.key(stripe, j, 0)
	// onward; log is its part of seg.
	seg    *segment
	stripe int
	log    *writerLog

	ins, del chan job
	done     chan struct{} // closed when the inserter or the deleter has ended (the reference's done_flag)
	doneOnce sync.Once
	// low is the maker's estimate of the smallest transactionid after its latest delete, which
	// the client's point queries draw from (iibench.py:1190, :1014: shared_min_trxid).
	low atomic.Int64
	// probe is how long the maker's first min(transactionid) took, in seconds (-1: none yet).
	probe float64
}

// newWriter returns the writer of client c on t for rounds batches of batch rows, whose keys
// are stripe of seg.
func (r *run) newWriter(step string, c int, t *table, seg *segment, stripe int, rounds int64, batch int, deletes bool) *writer {
	w := &writer{r: r, step: step, client: c, t: t, rounds: rounds, batch: batch, deletes: deletes,
		seg: seg, stripe: stripe, log: seg.writers[stripe],
		ins: make(chan job, queueDepth), done: make(chan struct{}), probe: -1}
	if deletes {
		w.del = make(chan job, queueDepth)
	}
	return w
}

// workers returns the writer's maker, inserter and (with deletes) deleter; bg makes them
// background workers of the step.
func (w *writer) workers(bg bool) []runner.Worker {
	ws := []runner.Worker{
		{Client: w.client, Background: bg, Run: w.maker},
		{Client: w.client, Background: bg, Run: w.inserter},
	}
	if w.deletes {
		ws = append(ws, runner.Worker{Client: w.client, Background: bg, Run: w.deleter})
	}
	return ws
}

// finish marks the writer done (the reference's done_flag, iibench.py:1363).
func (w *writer) finish() { w.doneOnce.Do(func() { close(w.done) }) }

// finished reports whether the inserter or the deleter has ended.
func (w *writer) finished() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// maker is the statement maker: for each round, a batch of rows for the inserter, then (with
// deletes) the delete of as many of the oldest rows for the deleter, then the rate limit.
func (w *writer) maker(ctx context.Context, rec *runner.Recorder) error {
	defer close(w.ins)
	if w.del != nil {
		defer close(w.del)
	}
	var est *estimate
	if w.deletes {
		sess, err := w.r.session(false)
		if err != nil {
			return err
		}
		defer sess.close()
		est = &estimate{w: w, sess: sess, clock: w.r.clock(), claims: w.r.p.Corrected() || !w.r.be.rowLocks()}
	}
	gen := NewGen(w.r.p, w.r.p.Seed, tableStream(w.t.no))
	bufs := make([]rowBuf, queueDepth+2) // the inserter holds at most queueDepth+1 of them
	pace := w.newPace(rec)
	for round := int64(0); w.rounds == 0 || round < w.rounds; round++ {
		if w.finished() {
			return nil
		}
		intended, ok, err := pace.before(ctx)
		if err != nil || !ok {
			return err
		}
		sec := rec.Now().Unix()
		rows := gen.fill(&bufs[round%int64(len(bufs))], w.seg.key(w.stripe, round, 0), w.batch, sec)
		w.log.made1(sec)
		if err := send(ctx, w.ins, job{rows: rows, n: w.batch, intended: intended}); err != nil {
			return err
		}
		if est != nil {
			low, ok, err := est.next(w.r.opCtx)
			if err != nil {
				return err
			}
			if err := send(ctx, w.del, job{n: w.batch, low: low, claim: !ok, intended: intended}); err != nil {
				return err
			}
		}
		if err := pace.after(ctx, round); err != nil {
			return err
		}
	}
	return nil
}

// send puts j on q, or returns ctx's error when ctx ends first.
func send(ctx context.Context, q chan<- job, j job) error {
	select {
	case q <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inserter runs every insert the maker made, in order, on a session of its own.
func (w *writer) inserter(ctx context.Context, rec *runner.Recorder) error {
	defer w.finish()
	return w.execute(ctx, w.ins, func(sess session, j job) (int64, error) {
		if err := sess.insert(w.r.opCtx, w.t, j.rows); err != nil {
			return 0, err
		}
		w.log.inserted++
		return int64(len(j.rows)), nil
	}, rec, opInsert)
}

// deleter runs every delete the maker made, in order, on a session of its own.
func (w *writer) deleter(ctx context.Context, rec *runner.Recorder) error {
	defer w.finish()
	return w.execute(ctx, w.del, func(sess session, j job) (int64, error) {
		if j.claim {
			j.low = w.t.claimDelete(j.n)
			w.low.Store(j.low + int64(j.n))
		}
		d, err := sess.deleteOldest(w.r.opCtx, w.t, j.low, j.n)
		w.t.deleted.Add(d)
		if err == nil && d < int64(j.n) {
			w.t.short.Add(1)
		}
		return d, err
	}, rec, opDelete)
}

// execute runs fn for every job of q as op on a session of its own, until q is closed.
func (w *writer) execute(ctx context.Context, q <-chan job, fn func(session, job) (int64, error),
	rec *runner.Recorder, op runner.Op) error {
	sess, err := w.r.session(true)
	if err != nil {
		return err
	}
	defer sess.close()
	if op == opInsert {
		sess.fresh()
	}
	rt := w.r.retrier(w.step, w.client, int(op))
	for {
		var j job
		var ok bool
		select {
		case j, ok = <-q:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			return nil
		}
		if err := rt.do(ctx, rec, op, j.intended, func() (int64, error) { return fn(sess, j) }); err != nil {
			return err
		}
	}
}

// estimate is the maker's estimate of the smallest transactionid, from which its deletes
// start (iibench.py:1128-1190): the reference queries min(transactionid) at the first round
// and again after every Resync more rounds, and otherwise adds the batch size after each
// delete, whatever the delete deleted. In the corrected variant, and on an engine without row
// locks (KV engines: two deletes of the same rows would both count them), the makers of a
// shared table share one estimate and their deleters claim disjoint ranges of it as they run
// the deletes, and a resync only moves it forward.
type estimate struct {
	w       *writer
	sess    session
	clock   runner.Clock
	claims  bool // claim disjoint ranges of the table's estimate
	queried bool
	left    int   // rounds until the next resync (the reference's resync counter)
	min     int64 // reference: this maker's estimate
}

// next returns the low bound of the next delete and advances the estimate, or, with claims
// (ok false), resyncs the table's shared estimate when it is due and leaves the claim to the
// deleter.
func (e *estimate) next(ctx context.Context) (low int64, ok bool, err error) {
	w, p := e.w, e.w.r.p
	if !e.queried || e.left == 0 {
		e.left = p.Resync
		min, found, err := e.query(ctx)
		if err != nil {
			return 0, false, err
		}
		e.queried = true
		switch {
		case e.claims && found:
			w.t.resync(min)
		case !e.claims:
			e.min = min // 0 when the table is empty, as the reference clamps it (iibench.py:1166-1168)
		}
	} else {
		e.left--
	}
	if e.claims {
		return 0, false, nil
	}
	low = e.min
	e.min += int64(w.batch)
	w.low.Store(low + int64(w.batch))
	return low, true, nil
}

// query runs min(transactionid); the first one of the step is the MVCC-debt probe, timed
// (the reference prints it: iibench.py:1161-1163), and the run says so while it is slow.
func (e *estimate) query(ctx context.Context) (int64, bool, error) {
	w := e.w
	if e.queried {
		return e.sess.minID(ctx, w.t)
	}
	clock := e.clock
	t0 := clock.Now()
	slow := time.AfterFunc(probeNotice, func() {
		fmt.Fprintf(w.r.env.Log, "%s: SELECT min(transactionid) on %s is taking more than %v (MVCC debt: purge or vacuum lag)\n",
			w.step, w.t.name, probeNotice)
	})
	min, ok, err := e.sess.minID(ctx, w.t)
	secs := clock.Now().Sub(t0).Seconds()
	if !slow.Stop() {
		fmt.Fprintf(w.r.env.Log, "%s: SELECT min(transactionid) on %s took %.1fs\n", w.step, w.t.name, secs)
	}
	if err != nil {
		return 0, false, fmt.Errorf("min(transactionid) probe: %w", err)
	}
	w.probe = secs
	return min, ok, nil
}
