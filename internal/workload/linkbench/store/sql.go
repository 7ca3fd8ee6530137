package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// The SQL schema (types from the engine's Dialect; shown for MySQL):
//
//	linktable  (id1 BIGINT, id2 BIGINT, link_type BIGINT, visibility TINYINT, data VARBINARY(255),
//	            time BIGINT, version INT, PRIMARY KEY (link_type, id1, id2))
//	INDEX id1_type ON linktable (id1, link_type, visibility, time, id2, version, data)
//	counttable (id BIGINT, link_type BIGINT, count INT, time BIGINT, version BIGINT,
//	            PRIMARY KEY (id, link_type))
//	nodetable  (id <auto-increment primary key>, type INT, version BIGINT, time INT,
//	            data MEDIUMBLOB)
//
// Every column is NOT NULL. On SQLite, linktable and counttable are WITHOUT ROWID tables
// (stored in primary key order, as InnoDB and MyRocks store them); PostgreSQL's are heaps.

// Table and index names.
const (
	linkTable  = "linktable"
	countTable = "counttable"
	nodeTable  = "nodetable"
	indexName  = "id1_type"
)

const (
	linkCols    = "id1, id2, link_type, visibility, data, time, version"
	indexCols   = "id1, link_type, visibility, time, id2, version, data"
	countCols   = "id, link_type, count, time, version"
	nodeCols    = "id, type, version, time, data"
	numLinkCols = 7
)

// Limits of one multi-row INSERT of the load: rows (a power of two) and payload bytes, which
// stay far below MariaDB's default max_allowed_packet (16 MiB).
const (
	maxInsertRows  = 1024
	maxInsertBytes = 8 << 20
	// maxMultiget is the largest number of id2s in one MULTIGET statement; statements exist for
	// every power of two up to it, and a list is padded to the next one with its last id2.
	maxMultiget = 128
)

// Prepared statements of a client, by kind.
const (
	stGetVisibility = iota
	stInsertLink
	stUpdateLink
	stHideLink
	stDeleteLink
	stUpsertCount
	stGetLinkList
	stCountLinks
	stAddNode
	stUpdateNode
	stNodeExists
	stDeleteNode
	stGetNode
	numStmts
)

// Tables of the load's multi-row inserts.
const (
	bulkLinks = iota
	bulkCounts
	bulkNodes
	numBulk
)

// bulkLevels is the number of power-of-two sizes of a multi-row insert: 1 to maxInsertRows.
const bulkLevels = 11

// multigetLevels is the number of power-of-two sizes of MULTIGET: 1 to maxMultiget.
const multigetLevels = 8

// emptyData is bound for an empty payload: a nil []byte is NULL, which the NOT NULL data
// columns refuse.
var emptyData = []byte{}

// sqlStore is the Store of an SQL engine.
type sqlStore struct {
	db      *sql.DB
	d       sqldb.Dialect
	opt     Options
	indexed atomic.Bool // id1_type exists
	text    [numStmts]string
	// bulkRows is the largest power-of-two number of rows of one INSERT per table, within
	// the dialect's bind parameter limit.
	bulkRows [numBulk]int
}

func newSQLStore(db sqldb.DB, opt Options) *sqlStore {
	s := &sqlStore{db: db.SQL(), d: db.Dialect(), opt: opt}
	d := s.d
	// A link is read and written through the primary key, forced where the dialect has hints:
	// MyRocks may otherwise plan it as a range of id1_type, locking every link of the range.
	pk, pkHint := "link_type = ? AND id1 = ? AND id2 = ?", d.PrimaryKeyHint()
	s.text = [numStmts]string{
		stGetVisibility: s.bind("SELECT visibility FROM " + linkTable + pkHint + " WHERE " + pk + d.ForUpdate()),
		stInsertLink:    s.bind("INSERT INTO " + linkTable + " (" + linkCols + ") VALUES (?, ?, ?, ?, ?, ?, ?)"),
		stUpdateLink:    s.bind("UPDATE " + linkTable + pkHint + " SET visibility = ?, data = ?, time = ?, version = ? WHERE " + pk),
		stHideLink:      s.bind(fmt.Sprintf("UPDATE %s%s SET visibility = %d WHERE %s", linkTable, pkHint, Hidden, pk)),
		stDeleteLink:    s.bind(d.DeleteWithHint(linkTable, pkHint, pk)),
		// The count of a new row is the delta if positive; an existing row's never drops below 0.
		stUpsertCount: d.Upsert(countTable, strings.Split(countCols, ", "), []string{"id", "link_type"},
			fmt.Sprintf("count = CASE WHEN %[1]s.count + %[2]s < 0 THEN 0 ELSE %[1]s.count + %[3]s END, "+
				"time = %[4]s, version = %[1]s.version + 1", countTable, d.Placeholder(6), d.Placeholder(7), d.Placeholder(8))),
		stGetLinkList: s.bind(fmt.Sprintf("SELECT %s FROM %s%s WHERE id1 = ? AND link_type = ? AND visibility = %d "+
			"AND time >= 0 AND time <= ? ORDER BY time DESC LIMIT ? OFFSET ?", linkCols, linkTable, d.IndexHint(indexName), Visible)),
		stCountLinks: s.bind("SELECT count FROM " + countTable + " WHERE id = ? AND link_type = ?"),
		stAddNode:    s.bind("INSERT INTO " + nodeTable + " (type, version, time, data) VALUES (?, ?, ?, ?)" + d.Returning("id")),
		stUpdateNode: s.bind("UPDATE " + nodeTable + " SET version = ?, time = ?, data = ? WHERE id = ?"),
		stNodeExists: s.bind("SELECT 1 FROM " + nodeTable + " WHERE id = ?"),
		stDeleteNode: s.bind("DELETE FROM " + nodeTable + " WHERE id = ?"),
		stGetNode:    s.bind("SELECT " + nodeCols + " FROM " + nodeTable + " WHERE id = ?"),
	}
	for t, cols := range [numBulk]int{numLinkCols, 5, 5} {
		n := min(maxInsertRows, d.MaxParams()/cols)
		s.bulkRows[t] = 1 << (bits.Len(uint(n)) - 1)
	}
	if !opt.DeferIndex {
		s.indexed.Store(true)
	}
	return s
}

// bind replaces each ? of q with the dialect's placeholder.
func (s *sqlStore) bind(q string) string { return sqldb.Bind(s.d, q) }

// Create creates the three tables, and id1_type unless DeferIndex.
func (s *sqlStore) Create(ctx context.Context) error {
	d := s.d
	bigint, notNull := d.Type(sqldb.BigInt, 0), " NOT NULL"
	ddl := []string{
		fmt.Sprintf("CREATE TABLE %s (id1 %[2]s%[3]s, id2 %[2]s%[3]s, link_type %[2]s%[3]s, visibility %[4]s%[3]s, "+
			"data %[5]s%[3]s, time %[2]s%[3]s, version %[6]s%[3]s, PRIMARY KEY (link_type, id1, id2))%[7]s%[8]s",
			linkTable, bigint, notNull, d.Type(sqldb.TinyInt, 0), d.Type(sqldb.VarBinary, MaxLinkData),
			d.Type(sqldb.Int, 0), d.TableOptions(), d.ClusteredPK()),
		fmt.Sprintf("CREATE TABLE %s (id %[2]s%[3]s, link_type %[2]s%[3]s, count %[4]s%[3]s, time %[2]s%[3]s, "+
			"version %[2]s%[3]s, PRIMARY KEY (id, link_type))%[5]s%[6]s",
			countTable, bigint, notNull, d.Type(sqldb.Int, 0), d.TableOptions(), d.ClusteredPK()),
		fmt.Sprintf("CREATE TABLE %s (id %s, type %[3]s%[4]s, version %[5]s%[4]s, time %[3]s%[4]s, data %[6]s%[4]s)%[7]s",
			nodeTable, d.AutoIncrementPK(), d.Type(sqldb.Int, 0), notNull, bigint, d.Type(sqldb.Blob, MaxNodeData),
			d.TableOptions()),
	}
	if !s.opt.DeferIndex {
		ddl = append(ddl, s.createIndexDDL())
	}
	for _, q := range ddl {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create linkbench schema: %s: %w", q, err)
		}
	}
	return nil
}

func (s *sqlStore) createIndexDDL() string {
	return "CREATE INDEX " + indexName + " ON " + linkTable + " (" + indexCols + ")"
}

// CreateIndex builds id1_type with CREATE INDEX.
func (s *sqlStore) CreateIndex(ctx context.Context) error {
	if s.indexed.Load() {
		return fmt.Errorf("create index %s: it exists (Options.DeferIndex was not set)", indexName)
	}
	if _, err := s.db.ExecContext(ctx, s.createIndexDDL()); err != nil {
		return fmt.Errorf("create index %s: %w", indexName, err)
	}
	s.indexed.Store(true)
	return nil
}

// FinishLoad runs the dialect's AdvanceSequence on nodetable.id (PostgreSQL's setval); MySQL
// and SQLite continue after the largest id by themselves.
func (s *sqlStore) FinishLoad(ctx context.Context, nextNodeID int64) error {
	q := s.d.AdvanceSequence(nodeTable, "id")
	if q == "" {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, q, nextNodeID); err != nil {
		return fmt.Errorf("finish load: advance the node id sequence to %d: %w", nextNodeID, err)
	}
	return nil
}

// Client takes a connection of the pool for the client's life.
func (s *sqlStore) Client(ctx context.Context) (Client, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("linkbench client: connect: %w", err)
	}
	return &sqlClient{s: s, conn: conn, retryState: retryState{maxRetries: s.opt.MaxRetries}}, nil
}

// Check counts visible links per (id1, link_type) through id1_type (through the primary key,
// which is a scan of the whole table, while id1_type is deferred), and reads counttable's rows
// of the range through its primary key. PostgreSQL has no hints: its planner picks the path.
func (s *sqlStore) Check(ctx context.Context, lo, hi int64) (*CheckResult, error) {
	r := &CheckResult{Visible: map[[2]int64]int64{}, Stored: map[[2]int64]int64{}}
	visible, stored := s.checkQueries()
	if err := s.readCounts(ctx, visible, lo, hi, r.Visible); err != nil {
		return nil, fmt.Errorf("check [%d, %d): visible links: %w", lo, hi, err)
	}
	if err := s.readCounts(ctx, stored, lo, hi, r.Stored); err != nil {
		return nil, fmt.Errorf("check [%d, %d): counttable: %w", lo, hi, err)
	}
	return r, nil
}

// checkQueries returns Check's queries, each with the bind parameters lo and hi.
func (s *sqlStore) checkQueries() (visible, stored string) {
	hint := s.d.IndexHint(indexName)
	if !s.indexed.Load() {
		hint = s.d.PrimaryKeyHint()
	}
	visible = s.bind(fmt.Sprintf("SELECT id1, link_type, count(*) FROM %s%s WHERE id1 >= ? AND id1 < ? AND visibility = %d "+
		"GROUP BY id1, link_type", linkTable, hint, Visible))
	stored = s.bind("SELECT id, link_type, count FROM " + countTable + " WHERE id >= ? AND id < ?")
	return visible, stored
}

// readCounts runs q (lo, hi) and adds its rows (id1, link type, n) to m.
func (s *sqlStore) readCounts(ctx context.Context, q string, lo, hi int64, m map[[2]int64]int64) error {
	rows, err := s.db.QueryContext(ctx, q, lo, hi)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id1, lt, n int64
		if err := rows.Scan(&id1, &lt, &n); err != nil {
			return err
		}
		m[[2]int64{id1, lt}] = n
	}
	return rows.Err()
}

// rowsQuery is one count of Rows: q with one bind parameter below every value it counts, or,
// for a count through an index, that index's leading columns and hint for sqldb.Count (q is
// then its statement, without parameters).
type rowsQuery struct {
	what, q string
	hint    string
	cols    []string
	dst     func(*Rows) *int64
}

// rowsQueries returns the counts of Rows: linktable through its primary key and through
// id1_type (unless deferred), each forced with the dialect's hint or, without hints, read in
// that index's order (sqldb.Count), then counttable and nodetable.
func (s *sqlStore) rowsQueries() []rowsQuery {
	through := func(what, hint string, cols []string, dst func(*Rows) *int64) rowsQuery {
		return rowsQuery{what: what, q: sqldb.CountQuery(linkTable, hint, cols, math.MinInt64), hint: hint, cols: cols, dst: dst}
	}
	qs := []rowsQuery{through("linktable through its primary key", s.d.PrimaryKeyHint(),
		[]string{"link_type", "id1", "id2"}, func(r *Rows) *int64 { return &r.LinksByPK })}
	if s.indexed.Load() {
		qs = append(qs, through("linktable through "+indexName, s.d.IndexHint(indexName),
			[]string{"id1", "link_type", "visibility", "time", "id2"}, func(r *Rows) *int64 { return &r.LinksByIndex }))
	}
	qs = append(qs,
		rowsQuery{what: "counttable", q: s.bind("SELECT count(*) FROM " + countTable + " WHERE id >= ?"), dst: func(r *Rows) *int64 { return &r.Counts }},
		rowsQuery{what: "nodetable", q: s.bind("SELECT count(*) FROM " + nodeTable + " WHERE id >= ?"), dst: func(r *Rows) *int64 { return &r.Nodes }})
	return qs
}

// Rows counts the tables with rowsQueries.
func (s *sqlStore) Rows(ctx context.Context) (Rows, error) {
	r := Rows{LinksByIndex: -1}
	for _, q := range s.rowsQueries() {
		var err error
		if q.cols != nil {
			*q.dst(&r), err = sqldb.Count(ctx, s.db, s.d, linkTable, q.hint, q.cols, math.MinInt64)
		} else {
			err = s.db.QueryRowContext(ctx, q.q, int64(math.MinInt64)).Scan(q.dst(&r))
		}
		if err != nil {
			return r, fmt.Errorf("count %s: %w", q.what, err)
		}
	}
	return r, nil
}

// sqlClient is one connection with its prepared statements.
type sqlClient struct {
	retryState
	s    *sqlStore
	conn *sql.Conn
	// broken is set when a transaction could not be rolled back: the connection's state is
	// unknown, and no operation is retried on it.
	broken bool

	stmts     [numStmts]*sql.Stmt
	bulk      [numBulk][bulkLevels]*sql.Stmt
	multigets [multigetLevels]*sql.Stmt
	args      []any

	// Scan targets.
	id1, id2, lt, vis, tm, ver int64
	data                       sql.RawBytes
	link                       Link
	node                       Node

	// onLink and onNode, when set (by tests), see every link and node a read returns.
	onLink func(*Link)
	onNode func(*Node)
}

// Close closes the prepared statements and returns the connection to the pool.
func (c *sqlClient) Close() error {
	var errs []error
	closeStmt := func(st *sql.Stmt) {
		if st != nil {
			if err := st.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, st := range c.stmts {
		closeStmt(st)
	}
	for _, level := range c.bulk {
		for _, st := range level {
			closeStmt(st)
		}
	}
	for _, st := range c.multigets {
		closeStmt(st)
	}
	if err := c.conn.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close linkbench client: %w", err)
	}
	return nil
}

// stmt returns prepared statement i, preparing it on first use.
func (c *sqlClient) stmt(ctx context.Context, i int) (*sql.Stmt, error) {
	if st := c.stmts[i]; st != nil {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, c.s.text[i])
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", c.s.text[i], err)
	}
	c.stmts[i] = st
	return st, nil
}

// retry decides after a failed attempt: nil to retry, else the error to return.
func (c *sqlClient) retry(ctx context.Context, op string, attempt int, err error) error {
	transient := !c.broken && (c.s.d.Retryable(err) || c.s.d.DuplicateKey(err))
	return c.again(ctx, op, attempt, err, transient)
}

// begin starts a write transaction on the client's connection.
func (c *sqlClient) begin(ctx context.Context) error {
	if _, err := c.conn.ExecContext(ctx, c.s.d.BeginWrite()); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return nil
}

// commit commits the transaction, or rolls it back if the commit fails.
func (c *sqlClient) commit(ctx context.Context) error {
	if _, err := c.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return c.abort(ctx, fmt.Errorf("commit: %w", err))
	}
	return nil
}

// abort rolls the transaction back after err and returns err (joined with the rollback's
// error, which marks the client broken).
func (c *sqlClient) abort(ctx context.Context, err error) error {
	// Rolled back even when ctx is done.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, rerr := c.conn.ExecContext(rctx, "ROLLBACK"); rerr != nil {
		c.broken = true
		return errors.Join(err, fmt.Errorf("rollback: %w", rerr))
	}
	return err
}

// InsertLinks inserts links with multi-row INSERTs of at most 1024 rows, in one transaction
// when it takes more than one statement.
func (c *sqlClient) InsertLinks(ctx context.Context, links []Link) error {
	return c.insertAll(ctx, "insert links", bulkLinks, len(links), func(i int) int { return len(links[i].Data) },
		func(args []any, i int) []any {
			l := &links[i]
			return append(args, l.ID1, l.ID2, l.LinkType, int64(l.Visibility), data(l.Data), l.Time, l.Version)
		})
}

// InsertCounts inserts counttable rows as InsertLinks inserts links.
func (c *sqlClient) InsertCounts(ctx context.Context, counts []Count) error {
	return c.insertAll(ctx, "insert counts", bulkCounts, len(counts), nil, func(args []any, i int) []any {
		n := &counts[i]
		return append(args, n.ID1, n.LinkType, n.Count, n.Time, n.Version)
	})
}

// InsertNodes inserts nodes with their ids as InsertLinks inserts links.
func (c *sqlClient) InsertNodes(ctx context.Context, nodes []Node) error {
	return c.insertAll(ctx, "insert nodes", bulkNodes, len(nodes), func(i int) int { return len(nodes[i].Data) },
		func(args []any, i int) []any {
			n := &nodes[i]
			return append(args, n.ID, int64(n.Type), n.Version, int64(n.Time), data(n.Data))
		})
}

// data returns b, or an empty non-nil slice for an empty b (nil would be NULL).
func data(b []byte) []byte {
	if b == nil {
		return emptyData
	}
	return b
}

// insertAll inserts n rows of table t (row i's arguments appended by add, its payload size
// given by size, if any), retrying the whole batch after a transient conflict.
func (c *sqlClient) insertAll(ctx context.Context, op string, t, n int, size func(int) int, add func([]any, int) []any) error {
	if n == 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		err := c.insertOnce(ctx, t, n, size, add)
		if err == nil {
			return nil
		}
		if err = c.retry(ctx, op, attempt, err); err != nil {
			return err
		}
	}
}

func (c *sqlClient) insertOnce(ctx context.Context, t, n int, size func(int) int, add func([]any, int) []any) error {
	tx := c.chunk(t, 0, n, size) < n
	if tx {
		if err := c.begin(ctx); err != nil {
			return err
		}
	}
	for done := 0; done < n; {
		k := c.chunk(t, done, n, size)
		if err := c.insertRows(ctx, t, done, k, add); err != nil {
			if tx {
				return c.abort(ctx, err)
			}
			return err
		}
		done += k
	}
	if tx {
		return c.commit(ctx)
	}
	return nil
}

// chunk returns how many rows from row first on (of n) the next INSERT into table t takes: the
// largest power of two within the table's row limit, the rows left, and (while above one row)
// maxInsertBytes of payload.
func (c *sqlClient) chunk(t, first, n int, size func(int) int) int {
	k := min(c.s.bulkRows[t], 1<<(bits.Len(uint(n-first))-1))
	if size != nil {
		for k > 1 && rowsBytes(size, first, k) > maxInsertBytes {
			k /= 2
		}
	}
	return k
}

// rowsBytes is the payload size of rows [first, first+k).
func rowsBytes(size func(int) int, first, k int) int {
	total := 0
	for i := first; i < first+k; i++ {
		total += size(i)
	}
	return total
}

// insertRows inserts rows [first, first+k) of table t with the statement for k rows (a power
// of two).
func (c *sqlClient) insertRows(ctx context.Context, t, first, k int, add func([]any, int) []any) error {
	level := bits.Len(uint(k)) - 1
	st := c.bulk[t][level]
	if st == nil {
		q := c.s.bulkInsert(t, k)
		var err error
		if st, err = c.conn.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("prepare the insert of %d rows: %w", k, err)
		}
		c.bulk[t][level] = st
	}
	c.args = c.args[:0]
	for i := first; i < first+k; i++ {
		c.args = add(c.args, i)
	}
	if _, err := st.ExecContext(ctx, c.args...); err != nil {
		return err
	}
	return nil
}

// bulkInsert returns the INSERT of k rows into table t.
func (s *sqlStore) bulkInsert(t, k int) string {
	table, cols := linkTable, linkCols
	switch t {
	case bulkCounts:
		table, cols = countTable, countCols
	case bulkNodes:
		table, cols = nodeTable, nodeCols
	}
	n := strings.Count(cols, ",") + 1
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + table + " (" + cols + ") VALUES ")
	p := 1
	for r := 0; r < k; r++ {
		if r > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('(')
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(s.d.Placeholder(p))
			p++
		}
		sb.WriteByte(')')
	}
	return sb.String()
}

// AddLink runs, in one transaction: SELECT visibility ... FOR UPDATE; then the INSERT or
// UPDATE of the link; then, when the link became visible, the upsert of its count.
func (c *sqlClient) AddLink(ctx context.Context, l *Link) (WriteResult, error) {
	for attempt := 0; ; attempt++ {
		res, err := c.addLink(ctx, l)
		if err == nil {
			return res, nil
		}
		if err = c.retry(ctx, "add link", attempt, err); err != nil {
			return 0, err
		}
	}
}

func (c *sqlClient) addLink(ctx context.Context, l *Link) (WriteResult, error) {
	if err := c.begin(ctx); err != nil {
		return 0, err
	}
	res, err := c.addLinkTx(ctx, l)
	if err != nil {
		return 0, c.abort(ctx, err)
	}
	return res, c.commit(ctx)
}

func (c *sqlClient) addLinkTx(ctx context.Context, l *Link) (WriteResult, error) {
	vis, found, err := c.visibility(ctx, l.ID1, l.LinkType, l.ID2)
	if err != nil {
		return 0, err
	}
	var res WriteResult
	if !found {
		res = Inserted
		st, err := c.stmt(ctx, stInsertLink)
		if err != nil {
			return 0, err
		}
		// A concurrent insert of the same link fails this with a duplicate key: retried.
		if _, err := st.ExecContext(ctx, l.ID1, l.ID2, l.LinkType, int64(Visible), data(l.Data), l.Time, l.Version); err != nil {
			return 0, fmt.Errorf("insert link: %w", err)
		}
	} else {
		res = Updated
		if vis != Visible {
			res = Revealed
		}
		st, err := c.stmt(ctx, stUpdateLink)
		if err != nil {
			return 0, err
		}
		if _, err := st.ExecContext(ctx, int64(Visible), data(l.Data), l.Time, l.Version, l.LinkType, l.ID1, l.ID2); err != nil {
			return 0, fmt.Errorf("update link: %w", err)
		}
	}
	if res != Updated {
		if err := c.changeCount(ctx, l.ID1, l.LinkType, 1); err != nil {
			return 0, err
		}
	}
	return res, nil
}

// visibility reads (and locks, where the dialect has FOR UPDATE) the visibility of a link.
func (c *sqlClient) visibility(ctx context.Context, id1, linkType, id2 int64) (vis int64, found bool, err error) {
	st, err := c.stmt(ctx, stGetVisibility)
	if err != nil {
		return 0, false, err
	}
	err = st.QueryRowContext(ctx, linkType, id1, id2).Scan(&vis)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read the link for update: %w", err)
	}
	return vis, true, nil
}

// changeCount adds delta to the count of (id1, linkType), creating the row if needed, never
// below 0.
func (c *sqlClient) changeCount(ctx context.Context, id1, linkType, delta int64) error {
	st, err := c.stmt(ctx, stUpsertCount)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	if _, err := st.ExecContext(ctx, id1, linkType, max(delta, 0), now, int64(0), delta, delta, now); err != nil {
		return fmt.Errorf("change the count: %w", err)
	}
	return nil
}

// DeleteLink runs, in one transaction: SELECT visibility ... FOR UPDATE; then the UPDATE
// (hide) or DELETE (expunge) of the link; then, if it was visible, the upsert of its count.
func (c *sqlClient) DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	for attempt := 0; ; attempt++ {
		found, err := c.deleteLink(ctx, id1, linkType, id2, expunge)
		if err == nil {
			return found, nil
		}
		if err = c.retry(ctx, "delete link", attempt, err); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) deleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	if err := c.begin(ctx); err != nil {
		return false, err
	}
	found, err := c.deleteLinkTx(ctx, id1, linkType, id2, expunge)
	if err != nil {
		return false, c.abort(ctx, err)
	}
	return found, c.commit(ctx)
}

func (c *sqlClient) deleteLinkTx(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	vis, found, err := c.visibility(ctx, id1, linkType, id2)
	if err != nil || !found || (vis != Visible && !expunge) {
		return found, err
	}
	kind := stHideLink
	if expunge {
		kind = stDeleteLink
	}
	st, err := c.stmt(ctx, kind)
	if err != nil {
		return false, err
	}
	if _, err := st.ExecContext(ctx, linkType, id1, id2); err != nil {
		return false, fmt.Errorf("hide or delete the link: %w", err)
	}
	if vis == Visible {
		if err := c.changeCount(ctx, id1, linkType, -1); err != nil {
			return false, err
		}
	}
	return true, nil
}

// GetLinkList reads the list through id1_type, every column of every row.
func (c *sqlClient) GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	for attempt := 0; ; attempt++ {
		n, last, err := c.getLinkList(ctx, id1, linkType, maxTime, offset, limit)
		if err == nil {
			return n, last, nil
		}
		if err = c.retry(ctx, "get link list", attempt, err); err != nil {
			return 0, 0, err
		}
	}
}

func (c *sqlClient) getLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	st, err := c.stmt(ctx, stGetLinkList)
	if err != nil {
		return 0, 0, err
	}
	rows, err := st.QueryContext(ctx, id1, linkType, maxTime, int64(limit), int64(offset))
	if err != nil {
		return 0, 0, err
	}
	n, last, err := c.scanLinks(rows)
	return n, last, err
}

// scanLinks reads every row of rows (the columns of linkCols) and closes it; it returns the
// number of rows and the last one's time.
func (c *sqlClient) scanLinks(rows *sql.Rows) (n int, last int64, err error) {
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.id2, &c.lt, &c.vis, &c.data, &c.tm, &c.ver); err != nil {
			rows.Close()
			return n, last, err
		}
		n++
		last = c.tm
		if c.onLink != nil {
			c.link = Link{ID1: c.id1, ID2: c.id2, LinkType: c.lt, Visibility: int8(c.vis), Data: c.data, Time: c.tm, Version: c.ver}
			c.onLink(&c.link)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, last, err
	}
	return n, last, rows.Close()
}

// MultigetLinks reads the links with id2 IN (...) through the primary key, with statements for
// 1, 2, 4, ... 128 id2s (a list is padded with its last id2; longer lists take several).
func (c *sqlClient) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	found := 0
	for len(id2s) > 0 {
		k := min(len(id2s), maxMultiget)
		for attempt := 0; ; attempt++ {
			n, err := c.multiget(ctx, id1, linkType, id2s[:k])
			if err == nil {
				found += n
				break
			}
			if err = c.retry(ctx, "multiget links", attempt, err); err != nil {
				return found, err
			}
		}
		id2s = id2s[k:]
	}
	return found, nil
}

func (c *sqlClient) multiget(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	level := bits.Len(uint(len(id2s) - 1)) // the power of two >= len(id2s)
	size := 1 << level
	st := c.multigets[level]
	if st == nil {
		q := c.s.multigetQuery(size)
		var err error
		if st, err = c.conn.PrepareContext(ctx, q); err != nil {
			return 0, fmt.Errorf("prepare %q: %w", q, err)
		}
		c.multigets[level] = st
	}
	c.args = append(c.args[:0], linkType, id1)
	for _, id2 := range id2s {
		c.args = append(c.args, id2)
	}
	for i := len(id2s); i < size; i++ {
		c.args = append(c.args, id2s[len(id2s)-1])
	}
	rows, err := st.QueryContext(ctx, c.args...)
	if err != nil {
		return 0, err
	}
	n, _, err := c.scanLinks(rows)
	return n, err
}

// multigetQuery returns the MULTIGET of n id2s, through the primary key.
func (s *sqlStore) multigetQuery(n int) string {
	return s.bind(fmt.Sprintf("SELECT %s FROM %s%s WHERE link_type = ? AND id1 = ? AND id2 IN (%s)",
		linkCols, linkTable, s.d.PrimaryKeyHint(), strings.TrimSuffix(strings.Repeat("?, ", n), ", ")))
}

// CountLinks reads counttable.count.
func (c *sqlClient) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	for attempt := 0; ; attempt++ {
		n, err := c.countLinks(ctx, id1, linkType)
		if err == nil {
			return n, nil
		}
		if err = c.retry(ctx, "count links", attempt, err); err != nil {
			return 0, err
		}
	}
}

func (c *sqlClient) countLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	st, err := c.stmt(ctx, stCountLinks)
	if err != nil {
		return 0, err
	}
	var n int64
	err = st.QueryRowContext(ctx, id1, linkType).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// AddNode inserts the node and reads the id the engine assigned (RETURNING or LastInsertId).
func (c *sqlClient) AddNode(ctx context.Context, n *Node) (int64, error) {
	for attempt := 0; ; attempt++ {
		id, err := c.addNode(ctx, n)
		if err == nil {
			return id, nil
		}
		if err = c.retry(ctx, "add node", attempt, err); err != nil {
			return 0, err
		}
	}
}

func (c *sqlClient) addNode(ctx context.Context, n *Node) (int64, error) {
	st, err := c.stmt(ctx, stAddNode)
	if err != nil {
		return 0, err
	}
	if c.s.d.Returning("id") != "" {
		var id int64
		err := st.QueryRowContext(ctx, int64(n.Type), n.Version, int64(n.Time), data(n.Data)).Scan(&id)
		return id, err
	}
	res, err := st.ExecContext(ctx, int64(n.Type), n.Version, int64(n.Time), data(n.Data))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// UpdateNode updates the node; when no row changed it checks whether the node exists (MySQL
// counts only changed rows as affected).
func (c *sqlClient) UpdateNode(ctx context.Context, n *Node) (bool, error) {
	for attempt := 0; ; attempt++ {
		found, err := c.updateNode(ctx, n)
		if err == nil {
			return found, nil
		}
		if err = c.retry(ctx, "update node", attempt, err); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) updateNode(ctx context.Context, n *Node) (bool, error) {
	st, err := c.stmt(ctx, stUpdateNode)
	if err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, n.Version, int64(n.Time), data(n.Data), n.ID)
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	if err != nil || k > 0 {
		return k > 0, err
	}
	if st, err = c.stmt(ctx, stNodeExists); err != nil {
		return false, err
	}
	var one int64
	err = st.QueryRowContext(ctx, n.ID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// DeleteNode deletes the node.
func (c *sqlClient) DeleteNode(ctx context.Context, id int64) (bool, error) {
	for attempt := 0; ; attempt++ {
		found, err := c.deleteNode(ctx, id)
		if err == nil {
			return found, nil
		}
		if err = c.retry(ctx, "delete node", attempt, err); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) deleteNode(ctx context.Context, id int64) (bool, error) {
	st, err := c.stmt(ctx, stDeleteNode)
	if err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, id)
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	return k > 0, err
}

// GetNode reads every column of the node.
func (c *sqlClient) GetNode(ctx context.Context, id int64) (bool, error) {
	for attempt := 0; ; attempt++ {
		found, err := c.getNode(ctx, id)
		if err == nil {
			return found, nil
		}
		if err = c.retry(ctx, "get node", attempt, err); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) getNode(ctx context.Context, id int64) (bool, error) {
	st, err := c.stmt(ctx, stGetNode)
	if err != nil {
		return false, err
	}
	rows, err := st.QueryContext(ctx, id)
	if err != nil {
		return false, err
	}
	found := false
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.lt, &c.ver, &c.tm, &c.data); err != nil {
			rows.Close()
			return false, err
		}
		found = true
		if c.onNode != nil {
			c.node = Node{ID: c.id1, Type: int32(c.lt), Version: c.ver, Time: int32(c.tm), Data: c.data}
			c.onNode(&c.node)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return false, err
	}
	return found, rows.Close()
}
