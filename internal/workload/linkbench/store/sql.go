package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
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
// With Options.Partitions, linktable is hash-partitioned by id1.
//
// The statements are the reference's (mdcallag/linkbench LinkStoreSql.java, LinkStoreMysql.java
// and LinkStorePgsql.java), with their column orders; docs/fidelity.md lists where they differ.

// Table and index names.
const (
	linkTable  = "linktable"
	countTable = "counttable"
	nodeTable  = "nodetable"
	indexName  = "id1_type"
)

// Column lists: the reference's orders (linkCols is what every link read returns).
const (
	linkCols      = "id1, id2, link_type, visibility, data, version, time"
	indexCols     = "id1, link_type, visibility, time, id2, version, data"
	indexKeyCols  = "id1, link_type, visibility, time, id2"
	bulkCountCols = "id, link_type, time, version, count"
	nodeCols      = "id, type, version, time, data"
	newNodeCols   = "type, version, time, data"
)

// maxInsertBytes bounds the payload of one multi-row INSERT of the load (far below MariaDB's
// default max_allowed_packet, 16 MiB); the reference's batches stay below it.
const maxInsertBytes = 8 << 20

// Statements of a client, by kind.
const (
	stGetVisibility = iota
	stInsertLink
	stAddCount
	stUpdateLink
	stIncCount
	stHideLink
	stDeleteLink
	stGetLinkList
	stCountLinks
	stAddNode
	stUpdateNode
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

// emptyData is bound for an empty payload: a nil []byte is NULL, which the NOT NULL data
// columns refuse.
var emptyData = []byte{}

// sqlStore is the Store of an SQL engine.
type sqlStore struct {
	eng     sqldb.DB
	db      *sql.DB
	d       sqldb.Dialect
	opt     Options
	indexed atomic.Bool // id1_type exists
	text    [numStmts]string
	// autoIDs: the engine assigns node ids in the load, as in the reference (MySQL and
	// PostgreSQL); SQLite's nodes are inserted with their ids.
	autoIDs bool
	// implicitTx: the write connection runs with autocommit off, so that every statement
	// starts or continues a transaction (MySQL, as the reference's Connector/J connection);
	// else a transaction starts with the dialect's BeginWrite.
	implicitTx bool
	// twoConns: a client writes links on a connection of its own, as the reference does
	// (every server); SQLite's clients use one.
	twoConns bool
	// returning: the ids the engine assigns to nodes come back as the rows of the insert's
	// RETURNING * (PostgreSQL, as pgjdbc's RETURN_GENERATED_KEYS), else from LastInsertId.
	returning bool
	// multigetHead is the start of MULTIGET_LINK, whose ids are written into the text.
	multigetHead string
}

func newSQLStore(db sqldb.DB, opt Options) *sqlStore {
	d := db.Dialect()
	s := &sqlStore{eng: db, db: db.SQL(), d: d, opt: opt}
	s.autoIDs = d.Kind() != sqldb.SQLite
	s.implicitTx = d.Kind() == sqldb.MySQL
	s.twoConns = d.Server()
	s.returning = d.Returning("*") != ""
	s.text = s.statements()
	s.multigetHead = "SELECT " + linkCols + " FROM " + linkTable + s.pkHint() + " WHERE id1 = "
	if !opt.DeferIndex {
		s.indexed.Store(true)
	}
	return s
}

// pkHint is the clause that forces the primary key on a link's point reads and writes: the
// corrected variant's (MyRocks may otherwise read a full primary key through a range of
// id1_type, locking every link of the range); the reference has none.
func (s *sqlStore) pkHint() string {
	if s.opt.Corrected {
		return s.d.PrimaryKeyHint()
	}
	return ""
}

// statements returns the text of every statement of a client, bound to the dialect.
func (s *sqlStore) statements() [numStmts]string {
	d := s.d
	pk := s.pkHint()
	where := " WHERE id1 = ? AND id2 = ? AND link_type = ?"
	deleteLink := "DELETE FROM " + linkTable + where
	if pk != "" {
		deleteLink = d.DeleteWithHint(linkTable, pk, strings.TrimPrefix(where, " WHERE "))
	}
	listHint := d.IndexHint(indexName)
	if d.Kind() == sqldb.MySQL {
		listHint = " FORCE INDEX(" + indexName + ") " // as LinkStoreMysql.java spells it
	}
	// RETURNING * where the engine has no LastInsertId: pgjdbc's RETURN_GENERATED_KEYS.
	addNode := "INSERT INTO " + nodeTable + " (" + newNodeCols + ") VALUES (?, ?, ?, ?)" + d.Returning("*")
	text := [numStmts]string{
		stGetVisibility: "SELECT visibility FROM " + linkTable + pk + where + d.ForUpdate(),
		stInsertLink:    "INSERT INTO " + linkTable + " (" + linkCols + ") VALUES (?, ?, ?, ?, ?, ?, ?)",
		stAddCount:      s.addCountText(),
		stUpdateLink:    "UPDATE " + linkTable + pk + " SET visibility = ?, data = ?, version = ?, time = ?" + where,
		stIncCount: "UPDATE " + countTable + " SET count = count + ?, version = version + 1, time = ?" +
			" WHERE id = ? AND link_type = ?",
		stHideLink:   fmt.Sprintf("UPDATE %s%s SET visibility = %d%s", linkTable, pk, Hidden, where),
		stDeleteLink: deleteLink,
		stGetLinkList: fmt.Sprintf("SELECT %s FROM %s%s WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? "+
			"AND visibility = %d ORDER BY time DESC LIMIT ? OFFSET ?", linkCols, linkTable, listHint, Visible),
		stCountLinks: "SELECT count FROM " + countTable + " WHERE id = ? AND link_type = ?",
		stAddNode:    addNode,
		// The node statements as the reference spells them (LinkStoreSql.java:170-190).
		stUpdateNode: "UPDATE " + nodeTable + " SET version=?, time=?, data=? WHERE id=? AND type=?",
		stDeleteNode: "DELETE FROM " + nodeTable + " WHERE id=? and type =?",
		stGetNode:    "SELECT " + nodeCols + " FROM " + nodeTable + " WHERE id=?",
	}
	for i := range text {
		text[i] = sqldb.Bind(d, text[i])
	}
	return text
}

// addCountText is ADD_LINK's count change: insert the count row or add to it (the reference's
// ON DUPLICATE KEY UPDATE on MySQL, ON CONFLICT ON CONSTRAINT on PostgreSQL).
func (s *sqlStore) addCountText() string {
	head := "INSERT INTO " + countTable + " (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0)"
	switch s.d.Kind() {
	case sqldb.MySQL:
		return head + " ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?"
	case sqldb.Postgres:
		// Spelled as LinkStorePgsql.java:54-60 spells it.
		return "INSERT INTO " + countTable + "(id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) ON CONFLICT ON CONSTRAINT " +
			countTable + "_pkey DO UPDATE SET count = " + countTable + ".count + ?, version = " + countTable + ".version + 1 , time = ?"
	}
	return head + " ON CONFLICT (id, link_type) DO UPDATE SET count = " + countTable + ".count + ?, version = " +
		countTable + ".version + 1, time = ?"
}

// partitionable reports whether Options.Partitions can be expressed in d (partitionClause).
func partitionable(d sqldb.Dialect) bool {
	return d.Kind() == sqldb.MySQL || d.Kind() == sqldb.Postgres
}

// Create creates the three tables (linktable partitioned if asked), and id1_type unless
// DeferIndex.
func (s *sqlStore) Create(ctx context.Context) error {
	d := s.d
	bigint, notNull := d.Type(sqldb.BigInt, 0), " NOT NULL"
	ddl := []string{
		fmt.Sprintf("CREATE TABLE %s (id1 %[2]s%[3]s, id2 %[2]s%[3]s, link_type %[2]s%[3]s, visibility %[4]s%[3]s, "+
			"data %[5]s%[3]s, time %[2]s%[3]s, version %[6]s%[3]s, PRIMARY KEY (link_type, id1, id2))%[7]s%[8]s",
			linkTable, bigint, notNull, d.Type(sqldb.TinyInt, 0), d.Type(sqldb.VarBinary, MaxLinkData),
			d.Type(sqldb.Int, 0), d.TableOptions(), d.ClusteredPK()) + s.partitionClause(),
		fmt.Sprintf("CREATE TABLE %s (id %[2]s%[3]s, link_type %[2]s%[3]s, count %[4]s%[3]s, time %[2]s%[3]s, "+
			"version %[2]s%[3]s, PRIMARY KEY (id, link_type))%[5]s%[6]s",
			countTable, bigint, notNull, d.Type(sqldb.Int, 0), d.TableOptions(), d.ClusteredPK()),
		fmt.Sprintf("CREATE TABLE %s (id %s, type %[3]s%[4]s, version %[5]s%[4]s, time %[3]s%[4]s, data %[6]s%[4]s)%[7]s",
			nodeTable, d.AutoIncrementPK(), d.Type(sqldb.Int, 0), notNull, bigint, d.Type(sqldb.Blob, MaxNodeData),
			d.TableOptions()),
	}
	ddl = append(ddl, s.partitionTables()...)
	if !s.opt.DeferIndex {
		ddl = append(ddl, s.createIndexDDL())
	}
	for _, q := range ddl {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return runner.OpError("create linkbench schema: "+q, err)
		}
	}
	return nil
}

// partitionClause is appended to linktable's CREATE TABLE with Options.Partitions: MySQL's
// PARTITION BY KEY(id1) PARTITIONS n (the reference README's DDL), PostgreSQL's PARTITION BY
// HASH (id1).
func (s *sqlStore) partitionClause() string {
	switch {
	case s.opt.Partitions == 0:
		return ""
	case s.d.Kind() == sqldb.Postgres:
		return " PARTITION BY HASH (id1)"
	}
	return fmt.Sprintf(" PARTITION BY KEY(id1) PARTITIONS %d", s.opt.Partitions)
}

// partitionTables returns PostgreSQL's CREATE TABLE of each partition of linktable.
func (s *sqlStore) partitionTables() []string {
	if s.opt.Partitions == 0 || s.d.Kind() != sqldb.Postgres {
		return nil
	}
	out := make([]string, s.opt.Partitions)
	for i := range out {
		out[i] = fmt.Sprintf("CREATE TABLE %[1]s_p%[2]d PARTITION OF %[1]s FOR VALUES WITH (MODULUS %[3]d, REMAINDER %[2]d)",
			linkTable, i, s.opt.Partitions)
	}
	return out
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

// FinishLoad runs the dialect's AdvanceSequence on nodetable.id when the load inserted the
// nodes with their ids (SQLite, whose AdvanceSequence is empty); where the engine assigned
// them, its counter is already past them.
func (s *sqlStore) FinishLoad(ctx context.Context, nextNodeID int64) error {
	q := s.d.AdvanceSequence(nodeTable, "id")
	if q == "" || s.autoIDs {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, q, nextNodeID); err != nil {
		return fmt.Errorf("finish load: advance the node id sequence to %d: %w", nextNodeID, err)
	}
	return nil
}

// resetNodesText returns the reference's resetNodeStore (LinkStoreMysql.java:128-135,
// LinkStorePgsql.java:115-122, as they spell it): TRUNCATE, then the id counter set to start
// (nil where the nodes are inserted with their ids).
func (s *sqlStore) resetNodesText(start int64) []string {
	switch s.d.Kind() {
	case sqldb.MySQL:
		return []string{"TRUNCATE TABLE " + nodeTable + ";", fmt.Sprintf("ALTER TABLE `%s` AUTO_INCREMENT = %d;", nodeTable, start)}
	case sqldb.Postgres:
		return []string{"TRUNCATE TABLE " + nodeTable + ";", fmt.Sprintf("ALTER SEQUENCE %s_id_seq RESTART %d;", nodeTable, start)}
	}
	return nil
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
		rowsQuery{what: "counttable", q: sqldb.Bind(s.d, "SELECT count(*) FROM "+countTable+" WHERE id >= ?"), dst: func(r *Rows) *int64 { return &r.Counts }},
		rowsQuery{what: "nodetable", q: sqldb.Bind(s.d, "SELECT count(*) FROM "+nodeTable+" WHERE id >= ?"), dst: func(r *Rows) *int64 { return &r.Nodes }})
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

// bulkInsert returns the INSERT of k rows into table t: with the nodes' ids only where the
// engine does not assign them; on PostgreSQL the assigned nodes come back (pgjdbc's
// RETURN_GENERATED_KEYS).
func (s *sqlStore) bulkInsert(t, k int) string {
	table, cols := linkTable, linkCols
	switch t {
	case bulkCounts:
		table, cols = countTable, bulkCountCols
	case bulkNodes:
		table, cols = nodeTable, s.nodeInsertCols()
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
				sb.WriteString(", ")
			}
			sb.WriteString(s.d.Placeholder(p))
			p++
		}
		sb.WriteByte(')')
	}
	if t == bulkNodes && s.autoIDs {
		sb.WriteString(s.d.Returning("*"))
	}
	return sb.String()
}

// nodeInsertCols are the columns of the load's node insert.
func (s *sqlStore) nodeInsertCols() string {
	if s.autoIDs {
		return newNodeCols
	}
	return nodeCols
}

// bulkCols is the number of bound columns per row of table t.
func (s *sqlStore) bulkCols(t int) int {
	switch t {
	case bulkLinks:
		return 7
	case bulkCounts:
		return 5
	}
	return strings.Count(s.nodeInsertCols(), ",") + 1
}
