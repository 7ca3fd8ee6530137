package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server/servertest"
)

// The reference's statements, written from mdcallag/linkbench (commit 9ef9cc87) as its
// Connector/J and pgjdbc connections send them, without the database name it qualifies every
// table with (linkdb0.). File and line of each are in the comments; docs/fidelity.md lists
// what differs.
const (
	refInsertLink = "INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES " // LinkStoreSql.java:222-241
	refLinkTuple  = "(?, ?, ?, ?, ?, ?, ?)"
	refAddCountMy = "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0)" +
		" ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?" // LinkStoreMysql.java:51-58
	refAddCountPg = "INSERT INTO counttable(id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) ON CONFLICT ON CONSTRAINT" +
		" counttable_pkey DO UPDATE SET  count = counttable.count + ?, version = counttable.version + 1 , time = ?" // LinkStorePgsql.java:53-60
	refForUpdate  = "SELECT visibility FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE"                                      // LinkStoreSql.java:280-286
	refUpdateLink = "UPDATE linktable SET visibility = ?,     data = ?,     version = ?,     time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?" // LinkStoreSql.java:211-220
	refIncCount   = "UPDATE counttable SET count = count + ?,     version = version + 1,     time = ? WHERE id = ? AND link_type = ?"              // LinkStoreSql.java:303-311
	refHideLink   = "UPDATE linktable SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"                                              // LinkStoreSql.java:288-294
	refDeleteLink = "DELETE FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ?"                                                            // LinkStoreSql.java:296-301
	refLinkList   = "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable%s WHERE id1 = ? AND link_type = ? " +
		" AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?" // LinkStoreMysql.java:64-77, LinkStorePgsql.java:66-78
	refMultiget   = "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable WHERE id1 = 1 AND link_type = 2 and id2 IN (%s)" // LinkStoreSql.java:892-907
	refCountLinks = "SELECT count from counttable WHERE id = ? AND link_type = ?"                                                                // LinkStoreSql.java:263-269
	refAddNode    = "INSERT INTO nodetable (type, version, time, data) VALUES "                                                                  // LinkStoreSql.java:192-209
	refNodeTuple  = "(?, ?, ?, ?)"
	refUpdateNode = "UPDATE nodetable SET version=?, time=?, data=? WHERE id=? AND type=?" // LinkStoreSql.java:177-183
	refDeleteNode = "DELETE FROM nodetable WHERE id=? and type =?"                         // LinkStoreSql.java:170-175
	refGetNode    = "SELECT id, type, version, time, data FROM nodetable WHERE id=?"       // LinkStoreSql.java:185-190
	refBulkCounts = "INSERT INTO counttable (id, link_type, time, version, count) VALUES " // LinkStoreSql.java:244-261
	refCountTuple = "(?, ?, ?, ?, ?)"
	refTruncate   = "TRUNCATE TABLE nodetable;"                   // LinkStoreMysql.java:131, LinkStorePgsql.java:118
	refAutoInc    = "ALTER TABLE `nodetable` AUTO_INCREMENT = 1;" // LinkStoreMysql.java:133-134
	refRestart    = "ALTER SEQUENCE nodetable_id_seq RESTART 1;"  // LinkStorePgsql.java:120-121
)

// want is a statement a server must log: its protocol and text.
type want struct{ proto, sql string }

// expectations builds the statements of each scenario of testStatements on dialect d.
type expectations struct {
	mysql, corrected bool
}

// stmt is a prepared statement, executed on the server (Connector/J's useServerPrepStmts,
// pgjdbc's extended protocol); hinted, in the corrected variant on MySQL, the primary key
// forced after the table name.
func (x expectations) stmt(sql string, hinted bool) want {
	if hinted && x.corrected && x.mysql {
		sql = hintPK(sql)
	}
	return want{servertest.Execute, sql}
}

// hintPK puts MySQL's FORCE INDEX (PRIMARY) after linktable (the multi-table form for DELETE).
func hintPK(sql string) string {
	if strings.HasPrefix(sql, "DELETE FROM linktable") {
		return strings.Replace(sql, "DELETE FROM linktable", "DELETE linktable FROM linktable FORCE INDEX (PRIMARY)", 1)
	}
	return strings.Replace(sql, "linktable ", "linktable FORCE INDEX (PRIMARY) ", 1)
}

// text is a statement without parameters, sent as text on MySQL (Connector/J's
// Statement.execute and its commit and rollback). pgjdbc sends these by the extended
// protocol as well; enginebench sends them by the simple protocol (docs/fidelity.md), which
// PostgreSQL logs as "statement:".
func (x expectations) text(sql string) want {
	if x.mysql {
		sql = strings.TrimSuffix(sql, ";") // MariaDB logs a query without its final semicolon
	}
	return want{servertest.Text, sql}
}

// begin is what starts a write transaction: nothing on MySQL (autocommit off), BEGIN on
// PostgreSQL (which pgjdbc sends before the transaction's first statement).
func (x expectations) begin() []want {
	if x.mysql {
		return nil
	}
	return []want{x.text("BEGIN")}
}

// afterFailure is what follows a failed statement of a write transaction: on MySQL the
// reference sends nothing (Connector/J, useLocalTransactionState, believes no transaction
// open after an error reply), the corrected variant ROLLBACK; on PostgreSQL ROLLBACK.
func (x expectations) afterFailure() []want {
	if x.mysql && !x.corrected {
		return nil
	}
	return []want{x.text("rollback")}
}

func (x expectations) addCount() want {
	if x.mysql {
		return x.stmt(refAddCountMy, false)
	}
	return x.stmt(refAddCountPg, false)
}

// tuples returns head followed by n copies of tuple, comma separated.
func tuples(head, tuple string, n int) string {
	return head + strings.TrimSuffix(strings.Repeat(tuple+",", n), ",")
}

// cat joins statement lists.
func cat(parts ...[]want) []want {
	var out []want
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// scenario is one call of the store and the statements the server must log for it.
type scenario struct {
	name string
	run  func(ctx context.Context, c Client) error
	want []want
}

// scenarios are the load and every request operation, on data they set up in order: links
// (1, lt0, 2) and (1, lt0, 3) visible and (1, lt0, 4) hidden, count 2; nodes 1 and 2.
func (x expectations) scenarios() []scenario {
	data := []byte("abc")
	link := func(id2 int64) *Link { return &Link{ID1: 1, LinkType: lt0, ID2: id2, Data: data, Time: 1000 + id2} }
	listHint := ""
	if x.mysql {
		listHint = " FORCE INDEX(id1_type) "
	}
	addNode, bulkNodes := refAddNode+refNodeTuple, tuples(refAddNode, refNodeTuple, 2)
	reset := []want{x.text(refTruncate), x.text(refAutoInc)}
	if !x.mysql {
		addNode, bulkNodes = addNode+" RETURNING *", bulkNodes+" RETURNING *" // pgjdbc's RETURN_GENERATED_KEYS
		reset[1] = x.text(refRestart)
	}
	commit, rollback := x.text("commit"), x.text("rollback")
	forUpdate, updateLink := x.stmt(refForUpdate, true), x.stmt(refUpdateLink, true)
	insert := []want{x.stmt(refInsertLink+refLinkTuple, false), x.addCount(), commit}
	return []scenario{
		{"load links", func(ctx context.Context, c Client) error {
			return c.InsertLinks(ctx, []Link{
				{ID1: 1, LinkType: lt0, ID2: 2, Visibility: Visible, Data: data, Time: 1},
				{ID1: 1, LinkType: lt0, ID2: 3, Visibility: Visible, Data: data, Time: 2},
				{ID1: 1, LinkType: lt0, ID2: 4, Visibility: Hidden, Data: data, Time: 3}})
		}, []want{x.stmt(tuples(refInsertLink, refLinkTuple, 3), false)}},
		{"load counts", func(ctx context.Context, c Client) error {
			return c.InsertCounts(ctx, []Count{{ID1: 1, LinkType: lt0, Count: 2, Time: 2}})
		}, []want{x.stmt(tuples(refBulkCounts, refCountTuple, 1), false)}},
		{"reset nodes", func(ctx context.Context, c Client) error { return c.ResetNodes(ctx, 1) }, reset},
		{"load nodes", func(ctx context.Context, c Client) error {
			return c.InsertNodes(ctx, []Node{{ID: 1, Type: NodeType, Version: 1, Data: data}, {ID: 2, Type: NodeType, Version: 1, Data: data}})
		}, []want{x.stmt(bulkNodes, false)}},
		{"ADD_LINK of a new link", func(ctx context.Context, c Client) error {
			return wantResult(c.AddLink(ctx, link(10)))(Inserted)
		}, cat(x.begin(), insert)},
		{"ADD_LINK of a visible link", func(ctx context.Context, c Client) error {
			return wantResult(c.AddLink(ctx, link(2)))(Updated)
		}, cat(x.begin(), []want{x.stmt(refInsertLink+refLinkTuple, false)}, x.afterFailure(), x.begin(),
			[]want{forUpdate, updateLink, commit})},
		{"ADD_LINK of a hidden link", func(ctx context.Context, c Client) error {
			return wantResult(c.AddLink(ctx, link(4)))(Revealed)
		}, cat(x.begin(), []want{x.stmt(refInsertLink+refLinkTuple, false)}, x.afterFailure(), x.begin(),
			[]want{forUpdate, updateLink, x.stmt(refIncCount, false), commit})},
		{"UPDATE_LINK of a missing link", func(ctx context.Context, c Client) error {
			return wantResult(c.UpdateLink(ctx, link(20)))(Inserted)
		}, cat(x.begin(), []want{forUpdate, rollback}, x.begin(), insert)},
		{"UPDATE_LINK of a visible link", func(ctx context.Context, c Client) error {
			return wantResult(c.UpdateLink(ctx, link(3)))(Updated)
		}, cat(x.begin(), []want{forUpdate, updateLink, commit})},
		{"DELETE_LINK of a visible link", func(ctx context.Context, c Client) error {
			return wantFound(c.DeleteLink(ctx, 1, lt0, 3, false))(true)
		}, cat(x.begin(), []want{forUpdate, x.stmt(refHideLink, true), x.stmt(refIncCount, false), commit})},
		{"DELETE_LINK of a hidden link", func(ctx context.Context, c Client) error {
			return wantFound(c.DeleteLink(ctx, 1, lt0, 3, false))(true)
		}, cat(x.begin(), []want{forUpdate, rollback})},
		{"DELETE_LINK of a missing link", func(ctx context.Context, c Client) error {
			return wantFound(c.DeleteLink(ctx, 1, lt0, 99, false))(false)
		}, cat(x.begin(), []want{forUpdate, rollback})},
		{"DELETE_LINK expunging a visible link", func(ctx context.Context, c Client) error {
			return wantFound(c.DeleteLink(ctx, 1, lt0, 2, true))(true)
		}, cat(x.begin(), []want{forUpdate, x.stmt(refDeleteLink, true), x.stmt(refIncCount, false), commit})},
		{"GET_LINKS_LIST", func(ctx context.Context, c Client) error {
			n, _, err := c.GetLinkList(ctx, 1, lt0, math.MaxInt64, 0, 10000)
			return wantN(n, err, 3) // 4, 10, 20
		}, []want{x.stmt(fmt.Sprintf(refLinkList, listHint), false)}},
		{"MULTIGET_LINK", func(ctx context.Context, c Client) error {
			n, err := c.MultigetLinks(ctx, 1, lt0, []int64{2, 3, 4})
			return wantN(n, err, 2) // 3 (hidden) and 4
		}, []want{{servertest.Text, x.hinted(fmt.Sprintf(refMultiget, "1,2,3"))}}},
		{"COUNT_LINK", func(ctx context.Context, c Client) error {
			n, err := c.CountLinks(ctx, 1, lt0)
			return wantN(int(n), err, 3)
		}, []want{x.stmt(refCountLinks, false)}},
		{"ADD_NODE", func(ctx context.Context, c Client) error {
			id, err := c.AddNode(ctx, &Node{Type: NodeType, Version: 1, Data: data})
			return wantN(int(id), err, 3)
		}, []want{x.stmt(addNode, false)}},
		{"UPDATE_NODE", func(ctx context.Context, c Client) error {
			return wantFound(c.UpdateNode(ctx, &Node{ID: 1, Type: NodeType, Version: 2, Time: 5, Data: data}))(true)
		}, []want{x.stmt(refUpdateNode, false)}},
		{"DELETE_NODE", func(ctx context.Context, c Client) error { return wantFound(c.DeleteNode(ctx, 2))(true) },
			[]want{x.stmt(refDeleteNode, false)}},
		{"GET_NODE", func(ctx context.Context, c Client) error { return wantFound(c.GetNode(ctx, 1))(true) },
			[]want{x.stmt(refGetNode, false)}},
	}
}

// hinted is the multiget of the corrected variant on MySQL, the primary key forced.
func (x expectations) hinted(sql string) string {
	if x.corrected && x.mysql {
		return hintPK(sql)
	}
	return sql
}

func wantResult(got WriteResult, err error) func(WriteResult) error {
	return func(w WriteResult) error {
		if err == nil && got != w {
			err = fmt.Errorf("result %v, want %v", got, w)
		}
		return err
	}
}

func wantFound(got bool, err error) func(bool) error {
	return func(w bool) error {
		if err == nil && got != w {
			err = fmt.Errorf("found %v, want %v", got, w)
		}
		return err
	}
}

func wantN(n int, err error, w int) error {
	if err == nil && n != w {
		err = fmt.Errorf("%d, want %d", n, w)
	}
	return err
}

// testStatements runs every operation of the store on a managed server and compares, operation
// by operation, the statements the server logged (their protocol and shape, in order) with the
// reference's; the corrected variant differs where docs/fidelity.md says. Every prepared
// statement is prepared once, and MULTIGET_LINK never.
func testStatements(t *testing.T, e *testEngine, corrected bool) {
	st := e.store(t, Options{Corrected: corrected})
	cl := client(t, st)
	ctx := context.Background()
	log := servertest.NewStatementLog(t, e.kind, e.dir)
	x := expectations{mysql: e.shared.Dialect().Name() == "mysql", corrected: corrected}
	prepared := map[string]int{}
	for _, sc := range x.scenarios() {
		if err := sc.run(ctx, cl); err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		var got, exp []string
		for _, s := range log.Next(t) {
			if s.Protocol == servertest.Prepare {
				prepared[servertest.Shape(s.SQL)]++
				continue
			}
			got = append(got, s.Protocol+": "+servertest.Shape(s.SQL))
		}
		for _, w := range sc.want {
			exp = append(exp, w.proto+": "+servertest.Shape(w.sql))
		}
		if strings.Join(got, "\n") != strings.Join(exp, "\n") {
			t.Errorf("%s: the server logged\n\t%s\nwant\n\t%s", sc.name, strings.Join(got, "\n\t"), strings.Join(exp, "\n\t"))
		}
	}
	for shape, n := range prepared {
		if n > 1 || strings.Contains(shape, " in (") {
			t.Errorf("prepared %d times: %s", n, shape)
		}
	}
}

// testPartitions loads a linktable hash-partitioned into 4 and checks that the server made the
// partitions and that the operations and the verification work on them.
func testPartitions(t *testing.T, e *testEngine) {
	st := e.store(t, Options{Partitions: 4})
	c := client(t, st)
	ctx := context.Background()
	q := "SELECT count(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'linktable'"
	if e.shared.Dialect().Name() == "postgres" {
		q = "SELECT count(*) FROM pg_inherits WHERE inhparent = 'linktable'::regclass"
	}
	var n int
	if err := e.shared.SQL().QueryRowContext(ctx, q).Scan(&n); err != nil || n != 4 {
		t.Fatalf("linktable has %d partitions (%v), want 4", n, err)
	}
	links, counts, visible := load(t, c, 1000, 1400)
	wantCheck(t, st, 1000, 1400, counts, visible)
	addLink(t, c, Link{ID1: 1007, LinkType: lt0, ID2: 1, Time: 1}, Inserted)
	deleteLink(t, c, 1007, lt0, 1007, false, true)
	if got, want := rows(t, st), (Rows{LinksByPK: int64(len(links)) + 1, LinksByIndex: int64(len(links)) + 1, Counts: int64(len(counts))}); got != want {
		t.Errorf("Rows = %+v, want %+v", got, want)
	}
	if n, _, err := c.GetLinkList(ctx, 1007, lt0, math.MaxInt64, 0, 100); err != nil || n != 6 {
		t.Errorf("GetLinkList(1007) = %d (%v), want 6", n, err)
	}
}
