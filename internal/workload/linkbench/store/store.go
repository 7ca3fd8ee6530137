// Package store holds the LinkBench data model (linktable, counttable, nodetable and the
// covering id1_type index) and its operations, written once for each engine family: SQL,
// key-value and document. The workload (package linkbench) decides what to do; a Store does it.
package store

import (
	"context"

	"github.com/enginebench/enginebench/internal/runner"
)

// Link types are FirstLinkType + i for i in [0, link types); nodes have type NodeType.
const (
	FirstLinkType = 123456789
	NodeType      = 2048
	// MaxLinkData is the largest link payload (linktable.data is varbinary(255)).
	MaxLinkData = 255
	// MaxNodeData is the largest node payload.
	MaxNodeData = 1 << 20
)

// Visibility values of a link.
const (
	Hidden  = 0
	Visible = 1
)

// Link is one row of linktable. Time is in milliseconds since the epoch.
type Link struct {
	ID1, LinkType, ID2 int64
	Visibility         int8
	Data               []byte
	Time               int64
	Version            int64
}

// Node is one row of nodetable. Time is in seconds since the epoch.
type Node struct {
	ID      int64
	Type    int32
	Version int64
	Time    int32
	Data    []byte
}

// Count is one row of counttable: the number of visible links of (ID1, LinkType).
type Count struct {
	ID1, LinkType int64
	Count         int64
	Time          int64
	Version       int64
}

// WriteResult is what ADD_LINK or UPDATE_LINK did.
type WriteResult int

// Outcomes of AddLink.
const (
	// Inserted: the link did not exist and was inserted (count + 1).
	Inserted WriteResult = iota
	// Revealed: the link existed hidden and is now visible with the new data (count + 1).
	Revealed
	// Updated: the link existed visible; its data, time and version were updated (count unchanged).
	Updated
)

// Options says how a Store lays out its schema and runs its operations.
type Options struct {
	// DeferIndex: Create leaves out the id1_type index; CreateIndex builds it later.
	DeferIndex bool
	// MaxRetries is how many times an operation is retried after a transient conflict
	// before it fails with an error that wraps runner.ErrRetriesExhausted; 0 means the
	// default (DefaultMaxRetries, the reference's limit).
	MaxRetries int
	// Clock is the clock the pauses before retries are on (the runner's); nil: the system's.
	Clock runner.Clock
	// Corrected runs the corrections of the reference's write path that docs/fidelity.md
	// lists (SQL engines): a duplicate-key INSERT is rolled back on MySQL before the update,
	// links are read and written through the primary key where the dialect has hints, and
	// PostgreSQL deadlocks are retried. Without it the SQL store sends what the reference
	// (mdcallag/linkbench) sends, statement for statement. On a document engine it chooses the
	// layout and commands of mdcallag/linkbench's MongoDB store, else Percona's LinkbenchX's.
	Corrected bool
	// Partitions, when > 0, hash-partitions linktable by id1 into that many partitions (the
	// reference's README: PARTITION BY key(id1) PARTITIONS 16); MySQL and PostgreSQL only.
	Partitions int
}

// MaxPartitions is the largest Options.Partitions (MySQL's limit is 8192).
const MaxPartitions = 1024

// Store is the LinkBench schema on one open engine.
type Store interface {
	// Create creates the three tables (and id1_type unless Options.DeferIndex).
	Create(ctx context.Context) error
	// CreateIndex builds id1_type over the links that exist; only after Create with DeferIndex.
	CreateIndex(ctx context.Context) error
	// FinishLoad is called once after the load, with the next node id the engine must assign
	// (e.g. it sets a PostgreSQL sequence past the loaded ids).
	FinishLoad(ctx context.Context, nextNodeID int64) error
	// Client returns a client for one goroutine. Clients of one Store may run concurrently.
	Client(ctx context.Context) (Client, error)
	// Rows counts the rows of each table, linktable through each of its indexes.
	Rows(ctx context.Context) (Rows, error)

	// The scans of verification: each calls fn for every row it reads, in the order it names,
	// with a row (and its Data) valid only until fn returns; an error of fn ends the scan and
	// is returned. A row that cannot be decoded is an error.

	// ScanLinks reads the links of link type linkType whose id1 is in [lo, hi) through the
	// primary key, in (id1, id2) order.
	ScanLinks(ctx context.Context, linkType, lo, hi int64, fn func(*Link) error) error
	// ScanIndex reads the id1_type entries of the id1s in [lo, hi), in the index's order (id1,
	// link type, visibility, time, id2); only once id1_type exists.
	ScanIndex(ctx context.Context, lo, hi int64, fn func(*Link) error) error
	// ScanCounts reads the counttable rows of the id1s in [lo, hi), in (id1, link type) order.
	ScanCounts(ctx context.Context, lo, hi int64, fn func(*Count) error) error
	// ScanNodes reads the nodes whose id is in [lo, hi), in id order; hi = math.MaxInt64 reads
	// to the end.
	ScanNodes(ctx context.Context, lo, hi int64, fn func(*Node) error) error
}

// Rows are the row counts of each table; LinksByPK and LinksByIndex count linktable through
// its primary key and through id1_type (equal unless an index lost rows; -1 while id1_type is
// deferred and not built).
type Rows struct {
	LinksByPK, LinksByIndex, Counts, Nodes int64
}

// Client runs LinkBench operations for one goroutine. Its methods reuse internal buffers:
// arguments may be reused by the caller once a method returns. Every method retries transient
// conflicts itself (at most Options.MaxRetries times, backing off between them, and never past
// the end of the context given to SetRetryStop; the KV family has none) and reports each retry
// through the function given to SetRetryHook; after the last retry it returns an error
// wrapping runner.ErrRetriesExhausted. Other errors are returned at once, as runner.OpError
// makes them: prefixed with the operation's name, the engine's message cut.
type Client interface {
	// SetRetryHook sets the function called once per retry of a transient conflict.
	SetRetryHook(func())
	// SetRetryStop sets the context whose end stops retrying: the step's. The operation then
	// fails as runner.Retrier.Wait says: with the context's error alone at the step's normal
	// end or an interrupt, else with the last transient error. Without it, retries end with
	// the context of the operation.
	SetRetryStop(ctx context.Context)

	// InsertLinks inserts new links in one batch (load phase); they do not exist yet.
	InsertLinks(ctx context.Context, links []Link) error
	// InsertCounts inserts new counttable rows in one batch (load phase).
	InsertCounts(ctx context.Context, counts []Count) error
	// ResetNodes makes the engine assign node ids from startID on (load phase, before
	// InsertNodes; the reference's resetNodeStore).
	ResetNodes(ctx context.Context, startID int64) error
	// InsertNodes inserts nodes in one batch (load phase). Their ids must be consecutive
	// from the next id the engine assigns (as after ResetNodes): MySQL and PostgreSQL assign
	// them, as the reference lets them, and an id that differs is an error.
	InsertNodes(ctx context.Context, nodes []Node) error

	// AddLink inserts l, or makes the existing link visible with l's data, time and version,
	// and adds 1 to the count when a link became visible: the link and its count change in
	// one transaction (SQL), one atomic batch under a lock on (id1, link type) (KV), or as the
	// document store's reference writes them (in one transaction where the corrected variant's
	// configuration has them).
	// l.Visibility is ignored: the link is always left visible. The SQL store tries the
	// INSERT first and updates the link when it exists (ADD_LINK of the reference).
	AddLink(ctx context.Context, l *Link) (WriteResult, error)
	// UpdateLink does what AddLink does; the SQL store reads the link for update first and
	// inserts it when it does not exist (UPDATE_LINK of the reference).
	UpdateLink(ctx context.Context, l *Link) (WriteResult, error)
	// DeleteLink hides the link (deletes it when expunge) and subtracts 1 from the count if
	// it was visible, never below 0, atomically as AddLink. found is false when the link
	// does not exist.
	DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (found bool, err error)
	// GetLinkList reads the visible links of (id1, linkType) with time <= maxTime, newest
	// first, skipping offset rows, at most limit rows, through id1_type. It returns how many
	// it read and the last one's time (for the next, older page).
	GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (n int, lastTime int64, err error)
	// MultigetLinks reads the links (id1, linkType, id2) for each id2 (visible or not) and
	// returns how many it read: the SQL store sends one id2 IN (...) and counts the rows (a
	// repeated id2, which the reference's chooser draws, is one row), and so does the document
	// store's reference variant ($in); the KV store and the corrected document store read each.
	MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (found int, err error)
	// CountLinks reads counttable.count of (id1, linkType); 0 when there is no row.
	CountLinks(ctx context.Context, id1, linkType int64) (int64, error)
	// AddNode inserts n with an id the engine assigns (n.ID is ignored) and returns the id.
	AddNode(ctx context.Context, n *Node) (int64, error)
	// UpdateNode sets version, time and data of node n.ID; found is false when it does not exist.
	UpdateNode(ctx context.Context, n *Node) (found bool, err error)
	// DeleteNode deletes node id; found is false when it did not exist.
	DeleteNode(ctx context.Context, id int64) (found bool, err error)
	// GetNode reads node id; found is false when it does not exist.
	GetNode(ctx context.Context, id int64) (found bool, err error)

	Close() error
}
