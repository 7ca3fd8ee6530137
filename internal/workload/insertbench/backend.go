package insertbench

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// Index numbers: 0 is the primary key, 1..3 the secondary indexes.
const (
	idxPK = iota
	idxMarket
	idxRegister
	idxPDC
	numIndexes
)

// indexSuffix names the secondary indexes (<table>_<suffix>); the primary key has none.
var indexSuffix = [numIndexes]string{"", "marketsegment", "registersegment", "pdc"}

// indexNames are the names used in results (scan phases, verification detail).
var indexNames = [numIndexes]string{"pk", "marketsegment", "registersegment", "pdc"}

// table is the client-side state of one benchmark table. Its counters are atomics because
// writers and query clients of one table run side by side.
type table struct {
	name string
	no   int // 1-based

	maxID    atomic.Int64 // highest transactionid assigned by the client (KV engines only)
	low      atomic.Int64 // corrected variant: the deleters' shared estimate of the smallest transactionid
	inserted atomic.Int64 // rows inserted
	deleted  atomic.Int64 // rows deleted
	// short counts the deletes that deleted fewer rows than they asked for: then the rows
	// deleted need not be the oldest, and verification checks the rows as a subsequence.
	short   atomic.Int64
	indexed atomic.Bool // secondary indexes exist

	// nextKey and log are the table's ledger (ledger.go), changed between steps only.
	nextKey int64
	log     []*segment
}

// live returns the number of rows the table must hold.
func (t *table) live() int64 { return t.inserted.Load() - t.deleted.Load() }

// claimDelete returns the low bound of the next delete of n rows and advances the estimate,
// so that deleters sharing a table delete disjoint rows (corrected variant).
func (t *table) claimDelete(n int) int64 { return t.low.Add(int64(n)) - int64(n) }

// resync moves the delete estimate forward to min (never backwards).
func (t *table) resync(min int64) {
	for {
		cur := t.low.Load()
		if min <= cur || t.low.CompareAndSwap(cur, min) {
			return
		}
	}
}

// backend is the Insert Benchmark on one engine family.
type backend interface {
	createTable(ctx context.Context, t *table) error
	// newSession opens a client connection. announce is true for the connections on which
	// the reference's statement executors and query threads start (iibench.py:984,1290: on
	// PostgreSQL they send SELECT pg_backend_pid()).
	newSession(ctx context.Context, announce bool) (session, error)
	// count counts t's rows by a full scan of index idx (idxPK .. idxPDC).
	count(ctx context.Context, t *table, idx int) (int64, error)
	// retryable reports whether err is a transient conflict worth retrying.
	retryable(err error) bool
	// readRows calls fn with every row of t, read through its primary key in transactionid
	// order, dateandtime as storedTime gives it; the row is valid during the call only.
	readRows(ctx context.Context, t *table, fn func(*Row) error) error
	// readIndex calls fn with every entry of secondary index idx of t, read through that index:
	// its three columns (dateandtime as in readRows) and transactionid.
	readIndex(ctx context.Context, t *table, idx int, fn func(*entry) error) error
	// storedTime returns the dateandtime that readRows gives for a row generated at unix
	// second sec.
	storedTime(sec int64) int64
	// assignsKeys reports whether transactionid is the row's key plus one (Row.ID): then it is
	// part of what verification checks.
	assignsKeys() bool
	// checkLimits checks the statements' sizes against the limits of the engine the run is on,
	// where they can differ from those CheckEngine knows (an existing server's).
	checkLimits(ctx context.Context) error
	// rowLocks reports whether the engine serialises two deletes of the same rows, so that
	// each row is deleted, and counted, once (SQL engines; not the KV engines).
	rowLocks() bool
	// snapshotConn opens the connection of a holder of --htap-transaction-seconds (htap.go),
	// whose statements end when ctx does.
	snapshotConn(ctx context.Context) (snapshotConn, error)
}

// session is one client connection. It is used by one goroutine.
type session interface {
	// insert inserts rows into t (and its indexes when t.indexed) in one transaction.
	insert(ctx context.Context, t *table, rows []Row) error
	// createIndexes creates the secondary indexes of t and returns the rows indexed.
	createIndexes(ctx context.Context, t *table) (int64, error)
	// deleteOldest deletes up to n rows with the smallest transactionids >= low.
	deleteOldest(ctx context.Context, t *table, low int64, n int) (int64, error)
	// minID and maxID return the smallest and largest transactionid of t (ok false when empty).
	minID(ctx context.Context, t *table) (id int64, ok bool, err error)
	maxID(ctx context.Context, t *table) (id int64, ok bool, err error)
	// prepareQueries readies the session for range (point false) or point queries on t: the
	// reference's query thread prepares them on PostgreSQL (iibench.py:1001-1005).
	prepareQueries(ctx context.Context, t *table, point bool) error
	// rangeQuery reads up to limit entries of index idx from start on, in index order; after
	// start (>) for registersegment in the reference variant.
	rangeQuery(ctx context.Context, t *table, idx int, start int64, limit int) (int, error)
	// pointQuery fetches the rows with transactionid in ids and returns how many exist.
	pointQuery(ctx context.Context, t *table, ids []int64) (int, error)
	// fresh makes close close the session's connection rather than give it back to a pool
	// where a connection keeps values of the table's sequence (PostgreSQL): every session that
	// inserts is then a connection of its own, as the reference's processes, and a later
	// insert never takes transactionids below those of an earlier one.
	fresh()
	close() error
}

// newBackend returns the backend for an opened engine's family.
func newBackend(eng engine.Engine, p *Params) (backend, error) {
	switch db := eng.(type) {
	case sqldb.DB:
		return newSQLBackend(db, p), nil
	case kv.DB:
		kb := newKVBackend(db, p)
		if d, ok := eng.(engine.Discarder); ok && d.Discards() {
			kb.discards = true
		}
		return kb, nil
	case doc.DB:
		return newDocBackend(db, p), nil
	}
	return nil, fmt.Errorf("engine family %q is not supported by the insert benchmark", eng.Family())
}

// rangeAfter reports whether the range query on index idx reads the entries after its start
// value (>) rather than from it (>=): the reference's registersegment query does
// (iibench.py:709, :717); the corrected variant reads from it, as the other two. The document
// family reads from it in both variants, as the reference's MongoDB query does (iibench.py:690).
func rangeAfter(p *Params, idx int) bool { return idx == idxRegister && !p.Corrected() }
