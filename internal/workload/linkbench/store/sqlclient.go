package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// sqlClient is one client of the SQL store: as in the reference, a connection that writes
// links in transactions (MySQL: with autocommit off) and one in autocommit for the rest, each
// with its prepared statements. Only MULTIGET_LINK is sent as text, its ids in the statement.
type sqlClient struct {
	retryState
	s *sqlStore
	// rconn runs the reads, the node operations and the load's inserts; wconn the link
	// writes (the same connection on SQLite).
	rconn, wconn *sqldb.Conn
	// broken is set when a transaction could not be rolled back: the connection's state is
	// unknown, and no operation is retried on it.
	broken bool
	// txOpen is whether the reference's driver would believe a transaction open on wconn,
	// which decides whether it sends COMMIT and ROLLBACK at all. On MySQL, Connector/J
	// (useLocalTransactionState) reads it from the server status of the last reply, which an
	// error does not carry: after a failed statement it sends no ROLLBACK.
	txOpen bool
	// txDirty is whether a statement ran on wconn since the last COMMIT or ROLLBACK: the
	// server's transaction may be open even when txOpen is false.
	txDirty bool

	stmts [numStmts]*sql.Stmt
	// bulk holds the load's inserts by table and row count.
	bulk map[[2]int]*sql.Stmt
	args []any
	// text is the buffer MULTIGET_LINK's statement is written in.
	text []byte

	// Scan targets.
	id1, id2, lt, vis, tm, ver int64
	data                       sql.RawBytes
	link                       Link
	node                       Node

	// onLink and onNode, when set (by tests), see every link and node a read returns.
	onLink func(*Link)
	onNode func(*Node)
}

// writeStmt reports whether statement i belongs to the link write path (on wconn).
func writeStmt(i int) bool { return i <= stDeleteLink }

// Client takes its connections from the pool for the client's life; on MySQL the write
// connection runs SET autocommit=0, as the reference's Connector/J connection does.
func (s *sqlStore) Client(ctx context.Context) (Client, error) {
	c := &sqlClient{s: s, bulk: map[[2]int]*sql.Stmt{},
		retryState: newRetryState(&s.opt)}
	var err error
	if c.rconn, err = sqldb.Connect(ctx, s.eng); err != nil {
		return nil, fmt.Errorf("linkbench client: connect: %w", err)
	}
	c.wconn = c.rconn
	if !s.twoConns {
		return c, nil
	}
	if c.wconn, err = sqldb.Connect(ctx, s.eng); err != nil {
		c.rconn.Close()
		return nil, fmt.Errorf("linkbench client: connect: %w", err)
	}
	if s.implicitTx {
		if _, err := c.wconn.ExecContext(c.sctx(ctx), "SET autocommit=0"); err != nil {
			c.wconn.Discard()
			c.rconn.Close()
			return nil, fmt.Errorf("linkbench client: set autocommit=0: %w", err)
		}
	}
	return c, nil
}

// sctx returns the context of the client's statements for a caller whose context is ctx (see
// sqldb.Conn.Ctx; both connections were opened with the same context).
func (c *sqlClient) sctx(ctx context.Context) context.Context { return c.rconn.Ctx(ctx) }

// Close closes the prepared statements and the connections: the read connection goes back to
// the pool, the write connection is discarded when its session is not the pool's.
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
	for _, st := range c.bulk {
		closeStmt(st)
	}
	if c.wconn != c.rconn {
		if c.s.implicitTx || c.broken || c.txDirty {
			c.wconn.Discard()
		} else if err := c.wconn.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.rconn == c.wconn && (c.broken || c.txDirty) {
		c.rconn.Discard()
	} else if err := c.rconn.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close linkbench client: %w", err)
	}
	return nil
}

// stmt returns prepared statement i, preparing it on its connection on first use.
func (c *sqlClient) stmt(ctx context.Context, i int) (*sql.Stmt, error) {
	if st := c.stmts[i]; st != nil {
		return st, nil
	}
	conn := c.rconn
	if writeStmt(i) {
		conn = c.wconn
	}
	st, err := conn.PrepareContext(c.sctx(ctx), c.s.text[i])
	if err != nil {
		return nil, runner.OpError(fmt.Sprintf("prepare %q", c.s.text[i]), err)
	}
	c.stmts[i] = st
	return st, nil
}

// retryable reports whether err is a transient conflict to retry: the dialect's, except
// that on PostgreSQL the reference retries SQLSTATE 40001 only (a deadlock, 40P01, ends its
// run; the corrected variant retries it).
func (c *sqlClient) retryable(err error) bool {
	if c.broken {
		return false
	}
	if c.s.d.Kind() == sqldb.Postgres && !c.s.opt.Corrected {
		var e interface{ SQLState() string }
		return errors.As(err, &e) && e.SQLState() == "40001"
	}
	return c.s.d.Retryable(err)
}

// begin starts a transaction on wconn unless one is open; on MySQL (autocommit off) every
// statement starts one by itself.
func (c *sqlClient) begin(ctx context.Context) error {
	if c.s.implicitTx || c.txOpen {
		return nil
	}
	if _, err := c.wconn.ExecContext(c.sctx(ctx), c.s.d.BeginWrite()); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	c.txOpen, c.txDirty = true, true
	return nil
}

// ran records that a statement ran on wconn with the outcome err.
func (c *sqlClient) ran(err error) {
	c.txDirty = true
	if c.s.implicitTx {
		c.txOpen = err == nil
	}
}

// wexec runs write statement i in the transaction of wconn.
func (c *sqlClient) wexec(ctx context.Context, i int, args ...any) (sql.Result, error) {
	if err := c.begin(ctx); err != nil {
		return nil, err
	}
	st, err := c.stmt(ctx, i)
	if err != nil {
		return nil, err
	}
	res, err := st.ExecContext(c.sctx(ctx), args...)
	c.ran(err)
	return res, err
}

// commit sends COMMIT when the transaction is open.
func (c *sqlClient) commit(ctx context.Context) error {
	if !c.txOpen {
		return nil
	}
	_, err := c.wconn.ExecContext(c.sctx(ctx), "COMMIT")
	if err != nil {
		c.ran(err)
		return fmt.Errorf("commit: %w", err)
	}
	c.txOpen, c.txDirty = false, false
	return nil
}

// rollback sends ROLLBACK when the reference's driver would: when it believes a transaction
// open. The corrected variant also rolls back a transaction whose last statement failed.
// A failed ROLLBACK marks the client broken.
func (c *sqlClient) rollback(ctx context.Context) error {
	return c.rollbackIf(ctx, c.txOpen || (c.s.opt.Corrected && c.txDirty))
}

// rollbackAfter rolls back after the failed attempt err of a write: as the reference's driver
// after a duplicate key (no ROLLBACK on MySQL), but always after any other error, which the
// reference's driver does not roll back either on MySQL: its retry would go on in the same
// transaction after a lock wait timeout (and could commit a link without its count), and an
// error it gives up on ends its process, which rolls back (docs/fidelity.md).
func (c *sqlClient) rollbackAfter(ctx context.Context, err error) error {
	if c.s.d.DuplicateKey(err) {
		return c.rollback(ctx)
	}
	return c.rollbackIf(ctx, c.txOpen || c.txDirty)
}

// rollbackIf sends ROLLBACK when send is set.
func (c *sqlClient) rollbackIf(ctx context.Context, send bool) error {
	if !send {
		return nil
	}
	// Rolled back even when ctx is done.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, err := c.wconn.ExecContext(rctx, "ROLLBACK")
	c.txOpen, c.txDirty = false, false
	if err != nil {
		c.broken = true
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// AddLink is the reference's addLink: the INSERT first.
func (c *sqlClient) AddLink(ctx context.Context, l *Link) (WriteResult, error) {
	return c.writeLink(ctx, "add link", l, true)
}

// UpdateLink is the reference's updateLink: the update (SELECT ... FOR UPDATE) first.
func (c *sqlClient) UpdateLink(ctx context.Context, l *Link) (WriteResult, error) {
	return c.writeLink(ctx, "update link", l, false)
}

// writeLink is the reference's newLinkLoop: it inserts the link (INSERT, then the count's
// INSERT ... ON DUPLICATE KEY UPDATE, COMMIT) or updates it (SELECT visibility ... FOR
// UPDATE, UPDATE, the count's UPDATE if it was hidden, COMMIT), starting with the insert when
// insert is set. A duplicate key switches to the update and a missing link to the insert; a
// transient conflict retries the same path. After a failed attempt it rolls back as
// rollbackAfter says. Each path counts its own attempts.
func (c *sqlClient) writeLink(ctx context.Context, op string, l *Link, insert bool) (WriteResult, error) {
	var tries [2]runner.Retry // the retries of the update [0] and of the insert [1]
	var tried [2]bool
	var last error
	for {
		path := 0
		if insert {
			path = 1
		}
		if tried[path] {
			if err := c.retry(ctx, op, &tries[path], last); err != nil {
				return 0, err
			}
		}
		tried[path] = true
		var res WriteResult
		var err error
		if insert {
			res, err = c.insertLink(ctx, l)
		} else {
			var found bool
			res, found, err = c.updateLink(ctx, l)
			if err == nil && !found {
				insert = true
				continue
			}
		}
		if err == nil {
			return res, nil
		}
		last = err
		if rerr := c.rollbackAfter(ctx, err); rerr != nil {
			return 0, runner.OpError(op, errors.Join(err, rerr))
		}
		switch {
		case c.s.d.DuplicateKey(err) && !c.broken:
			insert = false
		case !c.retryable(err):
			return 0, runner.OpError(op, err)
		}
	}
}

// insertLink is the reference's addLinkImpl.
func (c *sqlClient) insertLink(ctx context.Context, l *Link) (WriteResult, error) {
	if _, err := c.wexec(ctx, stInsertLink, l.ID1, l.ID2, l.LinkType, int64(Visible), data(l.Data), l.Version, l.Time); err != nil {
		return 0, fmt.Errorf("insert link: %w", err)
	}
	now := time.Now().UnixMilli()
	if _, err := c.wexec(ctx, stAddCount, l.ID1, l.LinkType, int64(1), now, int64(1), now); err != nil {
		return 0, fmt.Errorf("add to the count: %w", err)
	}
	return Inserted, c.commit(ctx)
}

// updateLink is the reference's updateLinkImpl; found is false (after a ROLLBACK) when the
// link does not exist.
func (c *sqlClient) updateLink(ctx context.Context, l *Link) (res WriteResult, found bool, err error) {
	vis, found, err := c.visibility(ctx, l.ID1, l.LinkType, l.ID2)
	if err != nil || !found {
		if err == nil {
			err = c.rollback(ctx)
		}
		return 0, false, err
	}
	r, err := c.wexec(ctx, stUpdateLink, int64(Visible), data(l.Data), l.Version, l.Time, l.ID1, l.ID2, l.LinkType)
	if err != nil {
		return 0, true, fmt.Errorf("update link: %w", err)
	}
	if k, err := r.RowsAffected(); err != nil || k == 0 {
		// Nothing changed (MySQL counts changed rows): the reference rolls back.
		return Updated, true, errors.Join(err, c.rollback(ctx))
	}
	res = Updated
	if vis != Visible {
		res = Revealed
		if err := c.incCount(ctx, l.ID1, l.LinkType, 1); err != nil {
			return 0, true, err
		}
	}
	return res, true, c.commit(ctx)
}

// visibility reads (and locks, where the dialect has FOR UPDATE) the visibility of a link.
func (c *sqlClient) visibility(ctx context.Context, id1, linkType, id2 int64) (vis int64, found bool, err error) {
	if err := c.begin(ctx); err != nil {
		return 0, false, err
	}
	st, err := c.stmt(ctx, stGetVisibility)
	if err != nil {
		return 0, false, err
	}
	err = st.QueryRowContext(c.sctx(ctx), id1, id2, linkType).Scan(&vis)
	if errors.Is(err, sql.ErrNoRows) {
		c.ran(nil)
		return 0, false, nil
	}
	c.ran(err)
	if err != nil {
		return 0, false, fmt.Errorf("read the link for update: %w", err)
	}
	return vis, true, nil
}

// incCount adds delta to the count of (id1, linkType): the reference's UPDATE, which must
// find the row.
func (c *sqlClient) incCount(ctx context.Context, id1, linkType, delta int64) error {
	r, err := c.wexec(ctx, stIncCount, delta, time.Now().UnixMilli(), id1, linkType)
	if err != nil {
		return fmt.Errorf("change the count: %w", err)
	}
	if k, err := r.RowsAffected(); err != nil || k != 1 {
		return errors.Join(err, fmt.Errorf("change the count of (%d, %d): %d rows updated, want 1", id1, linkType, k))
	}
	return nil
}

// DeleteLink is the reference's deleteLink: SELECT visibility ... FOR UPDATE; ROLLBACK when
// the link is missing (or hidden, unless expunged); else the UPDATE (hide) or DELETE, the
// count's UPDATE if it was visible, COMMIT.
func (c *sqlClient) DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	var tries runner.Retry
	for {
		found, err := c.deleteLink(ctx, id1, linkType, id2, expunge)
		if err == nil {
			return found, nil
		}
		if rerr := c.rollbackAfter(ctx, err); rerr != nil {
			return false, runner.OpError("delete link", errors.Join(err, rerr))
		}
		if err = c.again(ctx, "delete link", &tries, err, c.retryable(err)); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) deleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	vis, found, err := c.visibility(ctx, id1, linkType, id2)
	if err != nil {
		return false, err
	}
	if !found || (vis != Visible && !expunge) {
		return found, c.rollback(ctx)
	}
	kind := stHideLink
	if expunge {
		kind = stDeleteLink
	}
	r, err := c.wexec(ctx, kind, id1, id2, linkType)
	if err != nil {
		return false, fmt.Errorf("hide or delete the link: %w", err)
	}
	if k, err := r.RowsAffected(); err != nil || k != 1 {
		return false, errors.Join(err, fmt.Errorf("hide or delete the link: %d rows, want 1", k))
	}
	// An expunged hidden link leaves the count alone (the reference's code would lower it,
	// but its requests never expunge).
	if vis == Visible {
		if err := c.incCount(ctx, id1, linkType, -1); err != nil {
			return false, err
		}
	}
	return true, c.commit(ctx)
}

// GetLinkList reads the list through id1_type (forced on MySQL and SQLite), every column of
// every row, with the reference's time range [0, maxTime].
func (c *sqlClient) GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	var tries runner.Retry
	for {
		n, last, err := c.getLinkList(ctx, id1, linkType, maxTime, offset, limit)
		if err == nil {
			return n, last, nil
		}
		if err = c.again(ctx, "get link list", &tries, err, c.retryable(err)); err != nil {
			return 0, 0, err
		}
	}
}

func (c *sqlClient) getLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	st, err := c.stmt(ctx, stGetLinkList)
	if err != nil {
		return 0, 0, err
	}
	rows, err := st.QueryContext(c.sctx(ctx), id1, linkType, int64(0), maxTime, int64(limit), int64(offset))
	if err != nil {
		return 0, 0, err
	}
	return c.scanLinks(rows)
}

// scanLinks reads every row of rows (the columns of linkCols) and closes it; it returns the
// number of rows and the last one's time.
func (c *sqlClient) scanLinks(rows *sql.Rows) (n int, last int64, err error) {
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.id2, &c.lt, &c.vis, &c.data, &c.ver, &c.tm); err != nil {
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

// MultigetLinks is the reference's multigetLinks: one text statement with the ids written in
// it, id2 IN (a,b,c); an empty list sends nothing.
func (c *sqlClient) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	if len(id2s) == 0 {
		return 0, nil
	}
	q := c.multigetText(id1, linkType, id2s)
	var tries runner.Retry
	for {
		rows, err := c.rconn.QueryContext(c.sctx(ctx), q)
		if err == nil {
			var n int
			if n, _, err = c.scanLinks(rows); err == nil {
				return n, nil
			}
		}
		if err = c.again(ctx, "multiget links", &tries, err, c.retryable(err)); err != nil {
			return 0, err
		}
	}
}

// multigetText writes the MULTIGET_LINK statement of the ids.
func (c *sqlClient) multigetText(id1, linkType int64, id2s []int64) string {
	b := append(c.text[:0], c.s.multigetHead...)
	b = strconv.AppendInt(b, id1, 10)
	b = append(b, " AND link_type = "...)
	b = strconv.AppendInt(b, linkType, 10)
	b = append(b, " and id2 IN ("...)
	for i, id2 := range id2s {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id2, 10)
	}
	b = append(b, ')')
	c.text = b
	return string(b)
}

// CountLinks reads counttable.count.
func (c *sqlClient) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	var tries runner.Retry
	for {
		n, err := c.countLinks(ctx, id1, linkType)
		if err == nil {
			return n, nil
		}
		if err = c.again(ctx, "count links", &tries, err, c.retryable(err)); err != nil {
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
	err = st.QueryRowContext(c.sctx(ctx), id1, linkType).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// AddNode inserts the node and reads the id the engine assigned (PostgreSQL: the row
// RETURNING * gives back; else LastInsertId).
func (c *sqlClient) AddNode(ctx context.Context, n *Node) (int64, error) {
	var tries runner.Retry
	for {
		id, err := c.addNode(ctx, n)
		if err == nil {
			return id, nil
		}
		if err = c.again(ctx, "add node", &tries, err, c.retryable(err)); err != nil {
			return 0, err
		}
	}
}

func (c *sqlClient) addNode(ctx context.Context, n *Node) (int64, error) {
	st, err := c.stmt(ctx, stAddNode)
	if err != nil {
		return 0, err
	}
	if c.s.returning {
		rows, err := st.QueryContext(c.sctx(ctx), int64(n.Type), n.Version, int64(n.Time), data(n.Data))
		if err != nil {
			return 0, err
		}
		return c.scanIDs(rows, nil)
	}
	res, err := st.ExecContext(c.sctx(ctx), int64(n.Type), n.Version, int64(n.Time), data(n.Data))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// scanIDs reads the rows of RETURNING * on nodetable and closes them: it returns the first id,
// and checks each against want (when not nil).
func (c *sqlClient) scanIDs(rows *sql.Rows, want []Node) (first int64, err error) {
	i := 0
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.lt, &c.ver, &c.tm, &c.data); err != nil {
			rows.Close()
			return 0, err
		}
		if i == 0 {
			first = c.id1
		}
		if want != nil && (i >= len(want) || want[i].ID != c.id1) {
			rows.Close()
			return 0, fmt.Errorf("node %d was given id %d", i, c.id1)
		}
		i++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return 0, err
	}
	if i == 0 || (want != nil && i != len(want)) {
		rows.Close()
		return 0, fmt.Errorf("%d node ids returned, want %d", i, max(len(want), 1))
	}
	return first, rows.Close()
}

// UpdateNode is the reference's updateNode: found is whether a row changed (MySQL counts
// changed rows only, as the reference's connection does: an update that changes nothing is
// not found there).
func (c *sqlClient) UpdateNode(ctx context.Context, n *Node) (bool, error) {
	var tries runner.Retry
	for {
		found, err := c.execFound(ctx, stUpdateNode, n.Version, int64(n.Time), data(n.Data), n.ID, int64(NodeType))
		if err == nil {
			return found, nil
		}
		if err = c.again(ctx, "update node", &tries, err, c.retryable(err)); err != nil {
			return false, err
		}
	}
}

// DeleteNode deletes the node (of the node type).
func (c *sqlClient) DeleteNode(ctx context.Context, id int64) (bool, error) {
	var tries runner.Retry
	for {
		found, err := c.execFound(ctx, stDeleteNode, id, int64(NodeType))
		if err == nil {
			return found, nil
		}
		if err = c.again(ctx, "delete node", &tries, err, c.retryable(err)); err != nil {
			return false, err
		}
	}
}

// execFound runs statement i in autocommit and reports whether it affected a row.
func (c *sqlClient) execFound(ctx context.Context, i int, args ...any) (bool, error) {
	st, err := c.stmt(ctx, i)
	if err != nil {
		return false, err
	}
	res, err := st.ExecContext(c.sctx(ctx), args...)
	if err != nil {
		return false, err
	}
	k, err := res.RowsAffected()
	return k > 0, err
}

// GetNode reads every column of the node; found is false for a missing node or one of another
// type (the reference checks the type after reading).
func (c *sqlClient) GetNode(ctx context.Context, id int64) (bool, error) {
	var tries runner.Retry
	for {
		found, err := c.getNode(ctx, id)
		if err == nil {
			return found, nil
		}
		if err = c.again(ctx, "get node", &tries, err, c.retryable(err)); err != nil {
			return false, err
		}
	}
}

func (c *sqlClient) getNode(ctx context.Context, id int64) (bool, error) {
	st, err := c.stmt(ctx, stGetNode)
	if err != nil {
		return false, err
	}
	rows, err := st.QueryContext(c.sctx(ctx), id)
	if err != nil {
		return false, err
	}
	found := false
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.lt, &c.ver, &c.tm, &c.data); err != nil {
			rows.Close()
			return false, err
		}
		found = c.lt == NodeType
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
