package linkbench

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// The bare client's prepared statements; the link writes' (bareVisibility to bareHideLink) run
// on its write connection.
const (
	bareVisibility = iota
	bareInsertLink
	bareAddCount
	bareUpdateLink
	bareIncCount
	bareHideLink
	bareLinkList
	bareCountLinks
	bareAddNode
	bareUpdateNode
	bareDeleteNode
	bareGetNode
	numBare
)

// bareTexts are the reference's statements (mdcallag/linkbench LinkStoreSql.java,
// LinkStoreMysql.java, LinkStorePgsql.java) as the store sends them in the reference variant,
// written here on their own, with ? for each parameter.
func bareTexts(pg bool) [numBare]string {
	where := " WHERE id1 = ? AND id2 = ? AND link_type = ?"
	cols := "id1, id2, link_type, visibility, data, version, time"
	t := [numBare]string{
		bareVisibility: "SELECT visibility FROM linktable" + where + " FOR UPDATE",
		bareInsertLink: "INSERT INTO linktable (" + cols + ") VALUES (?, ?, ?, ?, ?, ?, ?)",
		bareAddCount:   "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?",
		bareUpdateLink: "UPDATE linktable SET visibility = ?, data = ?, version = ?, time = ?" + where,
		bareIncCount:   "UPDATE counttable SET count = count + ?, version = version + 1, time = ? WHERE id = ? AND link_type = ?",
		bareHideLink:   "UPDATE linktable SET visibility = 0" + where,
		bareLinkList: "SELECT " + cols + " FROM linktable FORCE INDEX(id1_type)  WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? " +
			"AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?",
		bareCountLinks: "SELECT count FROM counttable WHERE id = ? AND link_type = ?",
		bareAddNode:    "INSERT INTO nodetable (type, version, time, data) VALUES (?, ?, ?, ?)",
		bareUpdateNode: "UPDATE nodetable SET version=?, time=?, data=? WHERE id=? AND type=?",
		bareDeleteNode: "DELETE FROM nodetable WHERE id=? and type =?",
		bareGetNode:    "SELECT id, type, version, time, data FROM nodetable WHERE id=?",
	}
	if pg {
		t[bareAddCount] = "INSERT INTO counttable(id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) ON CONFLICT ON CONSTRAINT counttable_pkey " +
			"DO UPDATE SET count = counttable.count + ?, version = counttable.version + 1 , time = ?"
		t[bareLinkList] = "SELECT " + cols + " FROM linktable WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? " +
			"AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?"
		t[bareAddNode] += " RETURNING *"
	}
	return t
}

// bareClient runs LinkBench's requests with plain database/sql calls and context.Background():
// as the store, a read connection and a write connection (on MySQL with autocommit off, so
// that every statement opens or continues a transaction; on PostgreSQL a write begins with
// BEGIN), every statement but MULTIGET_LINK's prepared, here once before the loop.
type bareClient struct {
	d            sqldb.Dialect
	pg           bool
	rconn, wconn *sql.Conn
	st           [numBare]*sql.Stmt
	text         []byte // MULTIGET_LINK's statement
	// scan targets
	id1, id2, lt, vis, ver, tm int64
	data                       sql.RawBytes
}

// newBareClient takes the two connections and prepares the statements.
func newBareClient(b *testing.B, db *sql.DB, d sqldb.Dialect) *bareClient {
	b.Helper()
	ctx := context.Background()
	c := &bareClient{d: d, pg: d.Name() == "postgres"}
	var err error
	if c.rconn, err = db.Conn(ctx); err != nil {
		b.Fatal(err)
	}
	if c.wconn, err = db.Conn(ctx); err != nil {
		b.Fatal(err)
	}
	if !c.pg {
		if _, err := c.wconn.ExecContext(ctx, "SET autocommit=0"); err != nil {
			b.Fatal(err)
		}
	}
	for i, q := range bareTexts(c.pg) {
		conn := c.rconn
		if i <= bareHideLink {
			conn = c.wconn
		}
		if c.st[i], err = conn.PrepareContext(ctx, sqldb.Bind(d, q)); err != nil {
			b.Fatalf("prepare %s: %v", q, err)
		}
	}
	return c
}

// Close closes the statements and the connections; the write connection, whose session is not
// the pool's (autocommit off), is discarded.
func (c *bareClient) Close() error {
	var errs []error
	for _, st := range c.st {
		errs = append(errs, st.Close())
	}
	_ = c.wconn.Raw(func(any) error { return driver.ErrBadConn }) // database/sql closes it
	errs = append(errs, c.rconn.Close())
	return errors.Join(errs...)
}

// linkData is the data bound for a payload: an empty one, not NULL, for none.
func linkData(d []byte) []byte {
	if d == nil {
		return []byte{}
	}
	return d
}

// begin starts a write's transaction on PostgreSQL (on MySQL its first statement does).
func (c *bareClient) begin() error {
	if !c.pg {
		return nil
	}
	_, err := c.wconn.ExecContext(context.Background(), "BEGIN")
	return err
}

// end sends COMMIT or ROLLBACK on the write connection.
func (c *bareClient) end(q string) error {
	_, err := c.wconn.ExecContext(context.Background(), q)
	return err
}

// exec runs statement i and returns the rows it changed.
func (c *bareClient) exec(i int, args ...any) (int64, error) {
	r, err := c.st[i].ExecContext(context.Background(), args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// AddLink inserts the link, or after a duplicate key updates it (with a ROLLBACK before on
// PostgreSQL, none on MySQL, as the reference's drivers).
func (c *bareClient) AddLink(_ context.Context, l *store.Link) (store.WriteResult, error) {
	err := c.insertLink(l)
	if err == nil {
		return store.Inserted, nil
	}
	if !c.d.DuplicateKey(err) {
		return 0, err
	}
	if c.pg {
		if err := c.end("ROLLBACK"); err != nil {
			return 0, err
		}
	}
	res, found, err := c.updateLink(l)
	if err == nil && !found {
		err = fmt.Errorf("link (%d, %d, %d) is neither new nor found", l.ID1, l.LinkType, l.ID2)
	}
	return res, err
}

// UpdateLink updates the link, or inserts it when it is missing.
func (c *bareClient) UpdateLink(_ context.Context, l *store.Link) (store.WriteResult, error) {
	res, found, err := c.updateLink(l)
	if err != nil || found {
		return res, err
	}
	return store.Inserted, c.insertLink(l)
}

// insertLink inserts the link and adds 1 to its count, and commits.
func (c *bareClient) insertLink(l *store.Link) error {
	if err := c.begin(); err != nil {
		return err
	}
	if _, err := c.exec(bareInsertLink, l.ID1, l.ID2, l.LinkType, int64(store.Visible), linkData(l.Data), l.Version, l.Time); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	if _, err := c.exec(bareAddCount, l.ID1, l.LinkType, int64(1), now, int64(1), now); err != nil {
		return err
	}
	return c.end("COMMIT")
}

// visibility reads and locks the link's visibility in a write's transaction.
func (c *bareClient) visibility(id1, linkType, id2 int64) (vis int64, found bool, err error) {
	if err := c.begin(); err != nil {
		return 0, false, err
	}
	err = c.st[bareVisibility].QueryRowContext(context.Background(), id1, id2, linkType).Scan(&vis)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return vis, err == nil, err
}

// updateLink makes an existing link visible with the new data, adds 1 to the count if it was
// hidden, and commits; a missing link is rolled back.
func (c *bareClient) updateLink(l *store.Link) (store.WriteResult, bool, error) {
	vis, found, err := c.visibility(l.ID1, l.LinkType, l.ID2)
	if err != nil || !found {
		if err == nil {
			err = c.end("ROLLBACK")
		}
		return 0, false, err
	}
	k, err := c.exec(bareUpdateLink, int64(store.Visible), linkData(l.Data), l.Version, l.Time, l.ID1, l.ID2, l.LinkType)
	if err != nil {
		return 0, true, err
	}
	if k == 0 { // nothing changed (MySQL counts changed rows)
		return store.Updated, true, c.end("ROLLBACK")
	}
	res := store.Updated
	if vis != store.Visible {
		res = store.Revealed
		if err := c.incCount(l.ID1, l.LinkType, 1); err != nil {
			return 0, true, err
		}
	}
	return res, true, c.end("COMMIT")
}

// incCount adds delta to a count, which must exist.
func (c *bareClient) incCount(id1, linkType, delta int64) error {
	k, err := c.exec(bareIncCount, delta, time.Now().UnixMilli(), id1, linkType)
	if err == nil && k != 1 {
		err = fmt.Errorf("count of (%d, %d): %d rows updated", id1, linkType, k)
	}
	return err
}

// DeleteLink hides a visible link and subtracts 1 from its count, and commits; a missing or
// hidden link is rolled back. The reference never expunges.
func (c *bareClient) DeleteLink(_ context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	if expunge {
		return false, errors.New("the reference variant never expunges a link")
	}
	vis, found, err := c.visibility(id1, linkType, id2)
	if err != nil {
		return false, err
	}
	if !found || vis != store.Visible {
		return found, c.end("ROLLBACK")
	}
	k, err := c.exec(bareHideLink, id1, id2, linkType)
	if err == nil && k != 1 {
		err = fmt.Errorf("hide link (%d, %d, %d): %d rows", id1, linkType, id2, k)
	}
	if err != nil {
		return false, err
	}
	if err := c.incCount(id1, linkType, -1); err != nil {
		return false, err
	}
	return true, c.end("COMMIT")
}

// links reads every row of a link query and returns how many and the last one's time.
func (c *bareClient) links(rows *sql.Rows, err error) (n int, last int64, _ error) {
	if err != nil {
		return 0, 0, err
	}
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.id2, &c.lt, &c.vis, &c.data, &c.ver, &c.tm); err != nil {
			rows.Close()
			return n, last, err
		}
		n++
		last = c.tm
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, last, err
	}
	return n, last, rows.Close()
}

func (c *bareClient) GetLinkList(_ context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	return c.links(c.st[bareLinkList].QueryContext(context.Background(), id1, linkType, int64(0), maxTime, int64(limit), int64(offset)))
}

// MultigetLinks sends one text statement with the ids in it.
func (c *bareClient) MultigetLinks(_ context.Context, id1, linkType int64, id2s []int64) (int, error) {
	if len(id2s) == 0 {
		return 0, nil
	}
	t := append(c.text[:0], "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable WHERE id1 = "...)
	t = strconv.AppendInt(t, id1, 10)
	t = append(t, " AND link_type = "...)
	t = strconv.AppendInt(t, linkType, 10)
	t = append(t, " and id2 IN ("...)
	for i, id2 := range id2s {
		if i > 0 {
			t = append(t, ',')
		}
		t = strconv.AppendInt(t, id2, 10)
	}
	t = append(t, ')')
	c.text = t
	n, _, err := c.links(c.rconn.QueryContext(context.Background(), string(t)))
	return n, err
}

func (c *bareClient) CountLinks(_ context.Context, id1, linkType int64) (int64, error) {
	var n int64
	err := c.st[bareCountLinks].QueryRowContext(context.Background(), id1, linkType).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// AddNode inserts the node and returns its id: RETURNING * on PostgreSQL, else the last
// insert id.
func (c *bareClient) AddNode(_ context.Context, n *store.Node) (int64, error) {
	args := []any{int64(n.Type), n.Version, int64(n.Time), linkData(n.Data)}
	if !c.pg {
		r, err := c.st[bareAddNode].ExecContext(context.Background(), args...)
		if err != nil {
			return 0, err
		}
		return r.LastInsertId()
	}
	rows, err := c.st[bareAddNode].QueryContext(context.Background(), args...)
	if err != nil {
		return 0, err
	}
	found, err := c.nodes(rows)
	if err == nil && !found {
		err = errors.New("add node: no id returned")
	}
	return c.id1, err
}

func (c *bareClient) UpdateNode(_ context.Context, n *store.Node) (bool, error) {
	k, err := c.exec(bareUpdateNode, n.Version, int64(n.Time), linkData(n.Data), n.ID, int64(store.NodeType))
	return k > 0, err
}

func (c *bareClient) DeleteNode(_ context.Context, id int64) (bool, error) {
	k, err := c.exec(bareDeleteNode, id, int64(store.NodeType))
	return k > 0, err
}

func (c *bareClient) GetNode(_ context.Context, id int64) (bool, error) {
	rows, err := c.st[bareGetNode].QueryContext(context.Background(), id)
	if err != nil {
		return false, err
	}
	return c.nodes(rows)
}

// nodes reads every row of a node query (its id into c.id1) and closes it; found is whether a
// row of the node type came back.
func (c *bareClient) nodes(rows *sql.Rows) (found bool, _ error) {
	for rows.Next() {
		if err := rows.Scan(&c.id1, &c.lt, &c.ver, &c.tm, &c.data); err != nil {
			rows.Close()
			return false, err
		}
		found = c.lt == store.NodeType
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return false, err
	}
	return found, rows.Close()
}
