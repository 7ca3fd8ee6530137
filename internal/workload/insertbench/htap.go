package insertbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// The reference's open-snapshot option, --htap_transaction_seconds (iibench.py:159-161, the
// HtapTrx process at :886-963, started beside the inserter, deleter and query threads of
// every invocation at :1517-1527 and joined when they are done at :1579-1580): an extra
// connection per client runs SELECT * FROM <table> LIMIT 1 in a transaction, keeps it open
// for N seconds, commits, and starts again until the step ends, so that purge (InnoDB) and
// vacuum (PostgreSQL) cannot clean behind its snapshot. Its connections are not clients: they
// record no operation, and the step's figures do not count them (result.HTAP says what they
// did).

// snapshotConn is the connection of one holder of --htap-transaction-seconds. It is used by
// one goroutine.
type snapshotConn interface {
	// begin starts a read transaction on t whose snapshot it takes at once (SQL: the
	// reference's SELECT * FROM t LIMIT 1 in it), or takes the engine's snapshot (KV).
	begin(ctx context.Context, t *table) error
	// end ends the transaction begin started (COMMIT), or releases the snapshot.
	end(ctx context.Context) error
	// close closes the connection; after an error of begin or end it is not reused.
	close()
}

// errBlocksWriters marks a snapshot that would stop the step's writers rather than hold back
// the engine's cleanup (SQLite outside WAL mode): the holder fails the step with it.
var errBlocksWriters = errors.New("--htap-transaction-seconds")

// htapRetryWait is how long a holder waits after an error before it tries again: the
// reference's holder loops at once (iibench.py:924-927), and a second, its own sleep's unit
// (:916-919), keeps a server that refuses it from being asked in a tight loop.
const htapRetryWait = time.Second

// holder keeps a snapshot open for hold at a time, in a loop, until its context ends (the
// step's end: the runner cancels its background workers once the clients are done).
type holder struct {
	hold  time.Duration
	clock runner.Clock
	t     *table
	// open opens the holder's connection; its statements run with the context it is given.
	open func() (snapshotConn, error)
	// stats, when set, is read just before each snapshot ends, while it still holds the
	// engine's cleanup back (set on one holder of a step only).
	stats engine.Statser

	// What it did, read once the step has ended (the runner's end of the worker orders it).
	snapshots int64              // snapshots held and ended
	held      time.Duration      // their time open, in all
	errors    int64              // errors of opening, beginning or ending, each retried
	debt      map[string]float64 // the largest of each of stats's values, read before an end

	// last is the snapshot the step's end found open, begun at lastStart: finish ends it.
	last      snapshotConn
	lastStart time.Time
	// done is closed when run has returned (a worker the runner abandoned, stuck on a
	// frozen server, may not have): finish and htapResult leave a holder alone until then.
	done chan struct{}
}

// run holds snapshots until ctx ends (the step's end); opCtx is the context of its
// statements within the step (the worker's OpContext: it ends when the step is cut short, not
// at its normal end). The snapshot the step's end finds open is left open for finish, so that
// the step's engine_stats, read when its workers have returned, show the debt it held. An
// error is counted and retried after htapRetryWait on a new connection; only
// errBlocksWriters ends it. It holds one snapshot even when ctx has ended before it ran.
func (h *holder) run(ctx, opCtx context.Context) error {
	var c snapshotConn
	defer func() {
		if c != nil { // an error left it; an open snapshot is h.last's
			c.close()
		}
	}()
	// The first round runs even when the step has ended already (a load of a few rows can
	// end before this worker runs): each holder holds a snapshot once, and a snapshot that
	// would stop the writers is the configuration's fault whatever the step's length.
	for first := true; first || ctx.Err() == nil; first = false {
		if c == nil {
			var err error
			if c, err = h.open(); err != nil {
				if errors.Is(err, errBlocksWriters) {
					return err
				}
				h.retry(ctx)
				continue
			}
		}
		start := h.clock.Now()
		if err := c.begin(opCtx, h.t); err != nil {
			c.close()
			c = nil
			h.retry(ctx)
			continue
		}
		if err := h.clock.WaitUntil(ctx, start.Add(h.hold)); err != nil {
			// The step ended during the hold: the snapshot stays open until finish, after
			// the step's figures (its engine_stats) are read.
			h.last, h.lastStart, c = c, start, nil
			return nil
		}
		if err := h.end(opCtx, c, start); err != nil {
			c.close()
			c = nil
			h.retry(ctx)
		}
	}
	return nil
}

// end reads the debt and ends the snapshot c began at start, counting it.
func (h *holder) end(opCtx context.Context, c snapshotConn, start time.Time) error {
	h.readDebt(opCtx)
	err := c.end(opCtx)
	h.held += h.clock.Now().Sub(start)
	if err != nil {
		return err
	}
	h.snapshots++
	return nil
}

// finish ends the snapshot the step's end left open (run), as the reference's holder commits
// once the step is done (iibench.py:915-921), and closes its connection; an error is counted.
// An interrupt (opCtx done) only closes it.
func (h *holder) finish(opCtx context.Context) {
	if !h.returned() {
		return
	}
	c := h.last
	if c == nil {
		return
	}
	h.last = nil
	if opCtx.Err() == nil {
		if err := h.end(opCtx, c, h.lastStart); err != nil {
			h.errors++
		}
	}
	c.close()
}

// returned reports whether run has returned (always for a holder without done: a test's).
func (h *holder) returned() bool {
	if h.done == nil {
		return true
	}
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// htapStatsTimeout bounds a holder's reading of the engine's stats.
const htapStatsTimeout = 500 * time.Millisecond

// readDebt reads the engine's stats, when the holder has them, and keeps the largest of each:
// read while the snapshot is still open, they show what it held back (the history list of
// InnoDB, PostgreSQL's snapshot_xid_age). A reading that fails is left out.
func (h *holder) readDebt(ctx context.Context) {
	if h.stats == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, htapStatsTimeout)
	defer cancel()
	m, err := h.stats.Stats(ctx)
	if err != nil {
		return
	}
	if h.debt == nil {
		h.debt = make(map[string]float64, len(m))
	}
	for k, v := range m {
		if old, ok := h.debt[k]; !ok || v > old {
			h.debt[k] = v
		}
	}
}

// retry counts an error and waits htapRetryWait, or until ctx ends. An error once the step
// has ended (ctx done: it may be the step's own cancellation) is not counted.
func (h *holder) retry(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	h.errors++
	_ = h.clock.WaitUntil(ctx, h.clock.Now().Add(htapRetryWait))
}

// addHolders adds to s a holder per client of this shard (one per reference process, each on
// its client's table) as background workers, when --htap-transaction-seconds is on: they run
// while the clients do, record nothing and are not part of fairness. The first reads the
// engine's stats before each end (readDebt). r.holders keeps them for the step's result
// (htapResult).
func (r *run) addHolders(s *runner.Step) {
	if r.p.HTAPSeconds <= 0 {
		return
	}
	for _, c := range r.p.ownClients() {
		h := &holder{hold: time.Duration(r.p.HTAPSeconds) * time.Second, clock: r.clock(), t: r.tableOf(c),
			open: func() (snapshotConn, error) { return r.be.snapshotConn(r.opCtx) }, done: make(chan struct{})}
		if s, ok := r.eng.(engine.Statser); ok && len(r.holders) == 0 {
			h.stats = s
		}
		r.holders = append(r.holders, h)
		s.Workers = append(s.Workers, runner.Worker{Client: c, Background: true,
			Run: func(ctx context.Context, rec *runner.Recorder) error {
				defer close(h.done)
				return h.run(ctx, rec.OpContext())
			}})
	}
}

// endHolders ends the snapshots the step's end left open (holder.finish).
func (r *run) endHolders() {
	for _, h := range r.holders {
		h.finish(r.opCtx)
	}
}

// htapResult sums what the step's holders did; nil when it had none.
func (r *run) htapResult() *result.HTAP {
	if len(r.holders) == 0 {
		return nil
	}
	out := &result.HTAP{TransactionSeconds: r.p.HTAPSeconds, Connections: len(r.holders)}
	var held time.Duration
	for _, h := range r.holders {
		if !h.returned() {
			continue // still in a statement the runner gave up on: its figures are not read
		}
		out.Snapshots += h.snapshots
		out.Errors += h.errors
		held += h.held
		if h.debt != nil {
			out.EngineStatsHeld = h.debt
		}
	}
	out.HeldSeconds = held.Seconds()
	return out
}

// checkSnapshots refuses, before the run, an engine that cannot hold a snapshot open when
// --htap-transaction-seconds is on (CheckEngine).
func (p *Params) checkSnapshots(d engine.Driver) error {
	switch {
	case p.HTAPSeconds <= 0:
		return nil
	case d.Family == engine.FamilyDoc:
		return fmt.Errorf("--htap-transaction-seconds %d: engine %s: the document family holds no snapshot open (the reference refuses MongoDB too, iibench.py:899)", p.HTAPSeconds, d.Name)
	case !d.Snapshots:
		return fmt.Errorf("--htap-transaction-seconds %d: engine %s cannot hold a read snapshot open", p.HTAPSeconds, d.Name)
	}
	return nil
}

// sqlSnapshot is a holder's connection to a SQL engine.
type sqlSnapshot struct {
	b    *sqlBackend
	conn *sqldb.Conn
	open bool // a transaction is open
}

// snapshotConn opens a connection for a holder, which is cut when ctx ends (an interrupt);
// a statement also ends with its own context. On SQLite outside WAL mode it fails with
// errBlocksWriters.
func (b *sqlBackend) snapshotConn(ctx context.Context) (snapshotConn, error) {
	conn, err := sqldb.Connect(ctx, b.eng)
	if err != nil {
		return nil, fmt.Errorf("htap: connect: %w", err)
	}
	why, err := sqldb.SnapshotBlocksWriters(conn.Ctx(ctx), b.eng, conn.Conn)
	if err == nil && why != "" {
		err = fmt.Errorf("%w: %s", errBlocksWriters, why)
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return &sqlSnapshot{b: b, conn: conn}, nil
}

// begin begins the transaction and runs the reference's query, reading its row
// (iibench.py:913-915), which takes the snapshot where the transaction has not yet.
func (s *sqlSnapshot) begin(ctx context.Context, t *table) error {
	cctx := s.conn.Ctx(ctx)
	s.open = true
	for _, q := range s.beginStatements() {
		if _, err := s.conn.ExecContext(cctx, q); err != nil {
			return s.conn.Err(fmt.Errorf("htap: %s: %w", q, err))
		}
	}
	q := "select * from " + t.name + " limit 1"
	rows, err := s.conn.QueryContext(cctx, q)
	if err != nil {
		return s.conn.Err(fmt.Errorf("htap: %s: %w", q, err))
	}
	for rows.Next() { // the reference fetches the row (iibench.py:915); nothing is kept
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return s.conn.Err(fmt.Errorf("htap: %s: %w", q, err))
	}
	return nil
}

// beginStatements begin the holder's transaction. In the reference variant it is the
// reference's: a transaction at the server's own isolation (its connection with autocommit
// off, iibench.py:912), which holds a snapshot at InnoDB's default REPEATABLE READ but none at
// PostgreSQL's READ COMMITTED or on a server set to READ-COMMITTED. Corrected, the dialect's
// BeginSnapshot, which holds one on every server (docs/fidelity.md).
func (s *sqlSnapshot) beginStatements() []string {
	if s.b.p.Corrected() {
		return s.b.d.BeginSnapshot()
	}
	return []string{"BEGIN"}
}

// end commits, as the reference does (iibench.py:921).
func (s *sqlSnapshot) end(ctx context.Context) error {
	_, err := s.conn.ExecContext(s.conn.Ctx(ctx), "COMMIT")
	if err != nil {
		return s.conn.Err(fmt.Errorf("htap: commit: %w", err))
	}
	s.open = false
	return nil
}

// close gives the connection back, or closes it when a transaction may still be open on it.
func (s *sqlSnapshot) close() {
	if s.open {
		s.conn.Discard()
	}
	_ = s.conn.Close()
}

// kvSnapshot is a holder's handle on a key-value engine with snapshots.
type kvSnapshot struct {
	s    kv.Snapshotter
	snap io.Closer
}

// snapshotConn returns a holder's handle; an engine without snapshots is refused before the
// run (checkSnapshots), and fails here too.
func (b *kvBackend) snapshotConn(context.Context) (snapshotConn, error) {
	s, ok := b.db.(kv.Snapshotter)
	if !ok {
		return nil, fmt.Errorf("%w: the engine cannot hold a snapshot", errBlocksWriters)
	}
	return &kvSnapshot{s: s}, nil
}

// begin takes a snapshot of the engine (the table is in it: there is nothing to read).
func (k *kvSnapshot) begin(context.Context, *table) error {
	snap, err := k.s.Snapshot()
	if err != nil {
		return fmt.Errorf("htap: snapshot: %w", err)
	}
	k.snap = snap
	return nil
}

// end releases the snapshot.
func (k *kvSnapshot) end(context.Context) error {
	err := k.snap.Close()
	k.snap = nil
	if err != nil {
		return fmt.Errorf("htap: release the snapshot: %w", err)
	}
	return nil
}

// close releases a snapshot still held.
func (k *kvSnapshot) close() {
	if k.snap != nil {
		_ = k.snap.Close()
		k.snap = nil
	}
}

// snapshotConn fails: the document family is refused before the run (checkSnapshots).
func (b *docBackend) snapshotConn(context.Context) (snapshotConn, error) {
	return nil, fmt.Errorf("%w: the document family holds no snapshot open", errBlocksWriters)
}
