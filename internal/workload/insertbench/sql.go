package insertbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// indexColumns are the columns of each index, in index order.
var indexColumns = [numIndexes]string{
	"transactionid",
	"productid, customerid, price",
	"cashregisterid, customerid, price",
	"price, dateandtime, customerid",
}

// preparedNames are the names of the reference's PREPAREd range queries on PostgreSQL
// (iibench.py:601, :658, :715), by index; the point query is pointPrepared.
var preparedNames = [numIndexes]string{"", "market_query_ps", "register_query_ps", "pdc_query_ps"}

// pointPrepared is the name of the reference's PREPAREd point query (iibench.py:755).
const pointPrepared = "pk_query_ps"

// insertColumns is the column list of every insert, as the reference writes it (iibench.py:806).
const insertColumns = "(dateandtime,cashregisterid,customerid,productid,price,data)"

type sqlBackend struct {
	eng sqldb.DB
	db  *sql.DB
	d   sqldb.Dialect
	p   *Params
	// text is the reference's protocol (iibench.py:1047, :1344): every statement goes to the
	// server as text with its values in it, and PostgreSQL's queries are PREPAREd and
	// EXECUTEd by name in text (np.sh:285-288 passes --use_prepared_query). Otherwise (the
	// corrected variant, and SQLite, which has no protocol) statements are prepared once per
	// session through the driver and executed with bind parameters.
	text bool
	pg   bool // PostgreSQL
}

func newSQLBackend(db sqldb.DB, p *Params) *sqlBackend {
	d := db.Dialect()
	return &sqlBackend{eng: db, db: db.SQL(), d: d, p: p,
		text: !p.Corrected() && d.Server(), pg: d.Kind() == sqldb.Postgres}
}

func (b *sqlBackend) retryable(err error) bool { return b.d.Retryable(err) }

// indexName returns the name of secondary index idx of t.
func indexName(t *table, idx int) string { return t.name + "_" + indexSuffix[idx] }

// hint returns the clause that makes a query on t use index idx.
func (b *sqlBackend) hint(t *table, idx int) string {
	if idx == idxPK {
		return b.d.PrimaryKeyHint()
	}
	return b.d.IndexHint(indexName(t, idx))
}

// createTable drops and creates t, as the reference's setup does (iibench.py:395-428,
// :457-515), and on PostgreSQL gives its sequence a cache of 1000 values (iibench.py:509).
func (b *sqlBackend) createTable(ctx context.Context, t *table) error {
	d := b.d
	stmts := []string{"DROP TABLE IF EXISTS " + t.name,
		fmt.Sprintf("CREATE TABLE %s (transactionid %s, dateandtime %s, cashregisterid %s NOT NULL, "+
			"customerid %s NOT NULL, productid %s NOT NULL, price %s NOT NULL, data %s)%s",
			t.name, d.AutoIncrementPK(), d.Type(sqldb.Timestamp, 0), d.Type(sqldb.Int, 0),
			d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0),
			d.Type(sqldb.VarChar, 4000), d.TableOptions())}
	if q := d.SequenceCache(t.name, "transactionid", 1000); q != "" {
		stmts = append(stmts, q)
	}
	for _, q := range stmts {
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			return runner.OpError(fmt.Sprintf("create table %s: %s", t.name, q), err)
		}
	}
	return nil
}

// count counts t through index idx: forced with the dialect's hint, or read in that index's
// order where it has none (sqldb.Count). The lower bound is below every value of every first
// column, and within the range of an INT column: PostgreSQL types a parameter as the column.
func (b *sqlBackend) count(ctx context.Context, t *table, idx int) (int64, error) {
	n, err := sqldb.Count(ctx, b.db, b.d, t.name, b.hint(t, idx), strings.Split(indexColumns[idx], ", "), math.MinInt32)
	if err != nil {
		return 0, runner.OpError(fmt.Sprintf("count %s through %s", t.name, indexNames[idx]), err)
	}
	return n, nil
}

func (b *sqlBackend) newSession(ctx context.Context, announce bool) (session, error) {
	conn, err := sqldb.Connect(ctx, b.eng)
	if err != nil {
		return nil, runner.OpError("connect", err)
	}
	s := &sqlSession{b: b, conn: conn, stmts: map[stmtKey]*sql.Stmt{}, texts: map[stmtKey]textStmt{}}
	s.dest = []any{&s.cols[0], &s.cols[1], &s.cols[2]}
	if announce && b.text && b.pg {
		var pid int64
		if err := conn.QueryRowContext(ctx, "select pg_backend_pid()").Scan(&pid); err != nil {
			return nil, errors.Join(fmt.Errorf("select pg_backend_pid(): %w", err), conn.Close())
		}
	}
	return s, nil
}

type stmtKind int

const (
	stmtInsert stmtKind = iota
	stmtDelete
	stmtRange
	stmtPoint
)

type stmtKey struct {
	table, kind, idx, n int
}

// sqlSession is one connection with its statements, cached per table, kind and size: their
// texts in the text protocol, else prepared statements.
type sqlSession struct {
	b     *sqlBackend
	conn  *sqldb.Conn
	stmts map[stmtKey]*sql.Stmt
	texts map[stmtKey]textStmt
	// prepared is set once the session has PREPAREd statements by name (PostgreSQL, text
	// protocol), or it inserts (fresh): its connection is then not given back to the pool, as
	// the reference's process ends with its connection.
	prepared bool
	args     []any   // the values of a prepared statement
	vals     []int64 // the values of a text statement
	one      [1]int64
	buf      []byte
	cols     [3]sql.RawBytes
	dest     []any  // pointers to cols
	whenSec  int64  // the unix second whenText shows
	whenText []byte // the reference's dateandtime: local time, "YYYY-MM-DD HH:MM:SS"
}

// fresh implements session: on PostgreSQL, whose sessions cache values of the table's
// sequence, the connection is closed at the end; elsewhere the engine assigns transactionid
// from the table, whatever the connection.
func (s *sqlSession) fresh() {
	if s.b.pg {
		s.prepared = true
	}
}

func (s *sqlSession) close() error {
	for _, st := range s.stmts {
		st.Close()
	}
	if s.prepared {
		s.conn.Discard()
		return nil
	}
	return s.conn.Close()
}

// values sets the values of the next statement run by exec or query: kept as integers for a
// text statement, boxed as arguments for a prepared one.
func (s *sqlSession) values(vals []int64) {
	if s.b.text {
		s.vals = append(s.vals[:0], vals...)
		return
	}
	s.args = s.args[:0]
	for _, v := range vals {
		s.args = append(s.args, v)
	}
}

// statement returns the statement key (built by text() on first use) as text with the values
// of s.vals written into it, in the session's buffer, or prepares it once on the session's
// connection.
func (s *sqlSession) statement(ctx context.Context, key stmtKey, text func() string) ([]byte, *sql.Stmt, error) {
	if s.b.text {
		t, ok := s.texts[key]
		if !ok {
			t = parseText(s.b.bind(text()))
			s.texts[key] = t
		}
		s.buf = t.append(s.buf[:0], s.vals)
		return s.buf, nil, nil
	}
	if st, ok := s.stmts[key]; ok {
		return nil, st, nil
	}
	q := s.b.bind(text())
	st, err := s.conn.PrepareContext(s.conn.Ctx(ctx), q)
	if err != nil {
		return nil, nil, runner.OpError("prepare", s.conn.Err(err))
	}
	s.stmts[key] = st
	return nil, st, nil
}

// exec runs statement key with the values of values(): as text, or prepared.
func (s *sqlSession) exec(ctx context.Context, key stmtKey, text func() string) (sql.Result, error) {
	q, st, err := s.statement(ctx, key, text)
	if err != nil {
		return nil, err
	}
	var res sql.Result
	if st != nil {
		res, err = st.ExecContext(s.conn.Ctx(ctx), s.args...)
	} else {
		res, err = s.conn.ExecContext(s.conn.Ctx(ctx), transient(q))
	}
	return res, runner.OpError("", s.conn.Err(err))
}

// query is exec for a statement that returns rows.
func (s *sqlSession) query(ctx context.Context, key stmtKey, text func() string) (*sql.Rows, error) {
	q, st, err := s.statement(ctx, key, text)
	if err != nil {
		return nil, err
	}
	var rows *sql.Rows
	if st != nil {
		rows, err = st.QueryContext(s.conn.Ctx(ctx), s.args...)
	} else {
		rows, err = s.conn.QueryContext(s.conn.Ctx(ctx), transient(q))
	}
	return rows, runner.OpError("", s.conn.Err(err))
}

// transient returns the statement text in the session's buffer b as a string without copying
// it (a 100-row insert is about 7 KB): the drivers copy a statement into their own buffer to send
// it and keep nothing of it once the call returns (go-sql-driver/mysql's COM_QUERY packet,
// pgx's Query message; their errors hold the server's message, not the statement), and a
// query's rows are read and closed before the session writes its next statement into b.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// textStmt is a statement sent as text: its pieces before, between and after the places of
// its values.
type textStmt []string

// parseText splits q at its placeholders (? or $N, as Bind writes them), which hold its values
// in order, each once; the benchmark's statements have neither character elsewhere.
func parseText(q string) textStmt {
	var t textStmt
	start := 0
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '?':
			t = append(t, q[start:i])
			start = i + 1
		case q[i] == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			t = append(t, q[start:i])
			for i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
				i++
			}
			start = i + 1
		}
	}
	return append(t, q[start:])
}

// append appends the statement with vals written in decimal in its places, as the reference's
// drivers write integers (MySQLdb, psycopg2).
func (t textStmt) append(dst []byte, vals []int64) []byte {
	dst = append(dst, t[0]...)
	for i, piece := range t[1:] {
		dst = strconv.AppendInt(dst, vals[i], 10)
		dst = append(dst, piece...)
	}
	return dst
}

// bind replaces each ? of q with the dialect's placeholder.
func (b *sqlBackend) bind(q string) string { return sqldb.Bind(b.d, q) }

func (s *sqlSession) insert(ctx context.Context, t *table, rows []Row) error {
	var err error
	if s.b.text {
		_, err = s.conn.ExecContext(s.conn.Ctx(ctx), transient(s.insertText(t, rows)))
	} else {
		err = s.insertPrepared(ctx, t, rows)
	}
	if err = s.conn.Err(err); err != nil {
		return runner.OpError("insert into "+t.name, err)
	}
	t.inserted.Add(int64(len(rows)))
	return nil
}

// insertText returns the reference's insert of rows (iibench.py:554-558, :797-807): every
// value a literal, dateandtime the local time of the batch and price with two decimals.
func (s *sqlSession) insertText(t *table, rows []Row) []byte {
	b := append(s.buf[:0], "insert into "...)
	b = append(b, t.name...)
	b = append(b, " "+insertColumns+" values "...)
	when := s.localTime(rows[0].DateAndTime)
	for i := range rows {
		r := &rows[i]
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "('"...)
		b = append(b, when...)
		b = append(b, "',"...)
		b = strconv.AppendInt(b, r.CashRegisterID, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.CustomerID, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.ProductID, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Price, 10)
		b = append(b, ".00,'"...)
		b = append(b, r.Data...) // 'a' and base64 characters: nothing to escape
		b = append(b, "')"...)
	}
	s.buf = b
	return b
}

// localTime returns unix second sec as the reference writes dateandtime: the local time as
// YYYY-MM-DD HH:MM:SS (iibench.py:792).
func (s *sqlSession) localTime(sec int64) []byte {
	if s.whenText == nil || sec != s.whenSec {
		s.whenSec = sec
		s.whenText = time.Unix(sec, 0).Local().AppendFormat(s.whenText[:0], time.DateTime)
	}
	return s.whenText
}

// insertPrepared inserts rows with a prepared statement, dateandtime bound as unix seconds.
func (s *sqlSession) insertPrepared(ctx context.Context, t *table, rows []Row) error {
	s.args = s.args[:0]
	for i := range rows {
		r := &rows[i]
		s.args = append(s.args, r.DateAndTime, r.CashRegisterID, r.CustomerID, r.ProductID, r.Price, r.Data)
	}
	_, err := s.exec(ctx, stmtKey{t.no, int(stmtInsert), 0, len(rows)}, func() string {
		tuple := "(" + s.b.d.TimestampFromUnix("?") + ",?,?,?,?,?)"
		return "INSERT INTO " + t.name + " " + insertColumns + " VALUES " +
			strings.TrimSuffix(strings.Repeat(tuple+",", len(rows)), ",")
	})
	return err
}

// secondaryIndexes returns the three secondary indexes of t.
func secondaryIndexes(t *table) []sqldb.Index {
	out := make([]sqldb.Index, 0, numIndexes-1)
	for idx := idxMarket; idx <= idxPDC; idx++ {
		out = append(out, sqldb.Index{Name: indexName(t, idx), Columns: strings.Split(indexColumns[idx], ", ")})
	}
	return out
}

// createIndexes creates t's secondary indexes as the reference does for the engine
// (iibench.py:347-393, :430-455: InnoDB one ALTER TABLE for all three, MyRocks an ALTER TABLE
// each, PostgreSQL a CREATE INDEX each); the corrected variant runs a CREATE INDEX each on
// every engine.
func (s *sqlSession) createIndexes(ctx context.Context, t *table) (int64, error) {
	idxs := secondaryIndexes(t)
	stmts := s.b.d.AddIndexes(t.name, idxs)
	if s.b.p.Corrected() {
		stmts = stmts[:0:0]
		for _, ix := range idxs {
			stmts = append(stmts, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", ix.Name, t.name, strings.Join(ix.Columns, ", ")))
		}
	}
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(s.conn.Ctx(ctx), q); err != nil {
			return 0, runner.OpError(fmt.Sprintf("create the indexes of %s: %s", t.name, q), s.conn.Err(err))
		}
	}
	t.indexed.Store(true)
	return t.live(), nil
}

// deleteOldest runs the reference's delete (iibench.py:1178-1183), or in the corrected
// variant the dialect's DeleteOldest (on PostgreSQL by ctid, whatever the statistics).
func (s *sqlSession) deleteOldest(ctx context.Context, t *table, low int64, n int) (int64, error) {
	s.one[0] = low
	s.values(s.one[:])
	res, err := s.exec(ctx, stmtKey{t.no, int(stmtDelete), 0, n}, func() string {
		if s.b.p.Corrected() {
			return s.b.d.DeleteOldest(t.name, "transactionid", n)
		}
		return s.b.d.DeleteOldestByKey(t.name, "transactionid", n)
	})
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.name, err)
	}
	d, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete from %s: rows affected: %w", t.name, err)
	}
	return d, nil
}

func (s *sqlSession) minID(ctx context.Context, t *table) (int64, bool, error) {
	return s.aggregate(ctx, t, "min")
}

func (s *sqlSession) maxID(ctx context.Context, t *table) (int64, bool, error) {
	return s.aggregate(ctx, t, "max")
}

// aggregate runs the reference's select min|max(transactionid) from t as text
// (iibench.py:838-841).
func (s *sqlSession) aggregate(ctx context.Context, t *table, fn string) (int64, bool, error) {
	q := "select " + fn + "(transactionid) from " + t.name
	var v sql.NullInt64
	if err := s.conn.QueryRowContext(s.conn.Ctx(ctx), q).Scan(&v); err != nil {
		return 0, false, runner.OpError(q, s.conn.Err(err))
	}
	return v.Int64, v.Valid, nil
}

// rangeSelect returns the range query on index idx of t reading limit entries, with one ?.
func (s *sqlSession) rangeSelect(t *table, idx, limit int) string {
	cols := indexColumns[idx]
	first, _, _ := strings.Cut(cols, ",")
	op := ">="
	if rangeAfter(s.b.p, idx) {
		op = ">"
	}
	return fmt.Sprintf("SELECT %s FROM %s%s WHERE (%s %s ?) ORDER BY %s LIMIT %d",
		cols, t.name, s.b.hint(t, idx), first, op, cols, limit)
}

// pointSelect returns the point query on t for n ids, with n ?s.
func pointSelect(t *table, n int) string {
	return "SELECT transactionid, productid, data FROM " + t.name +
		" WHERE transactionid IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
}

// byName reports whether the session's queries are PREPAREd and EXECUTEd by name, as the
// reference's on PostgreSQL.
func (s *sqlSession) byName() bool { return s.b.text && s.b.pg }

// prepareQueries PREPAREs the reference's queries by name on PostgreSQL (iibench.py:600-612,
// :657-669, :714-726, :750-768): the three range queries, or the point query.
func (s *sqlSession) prepareQueries(ctx context.Context, t *table, point bool) error {
	if !s.byName() {
		return nil
	}
	var stmts []string
	if point {
		n := s.b.p.PointIDs
		types := strings.TrimSuffix(strings.Repeat("int,", n), ",")
		stmts = append(stmts, "PREPARE "+pointPrepared+" ("+types+") AS "+s.b.bind(pointSelect(t, n)))
	} else {
		for idx := idxMarket; idx <= idxPDC; idx++ {
			stmts = append(stmts, "PREPARE "+preparedNames[idx]+" (int) AS "+s.b.bind(s.rangeSelect(t, idx, s.b.p.QueryRows)))
		}
	}
	s.prepared = true
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(s.conn.Ctx(ctx), q); err != nil {
			return runner.OpError(q, s.conn.Err(err))
		}
	}
	return nil
}

// execute returns EXECUTE name (?, ...) with n ?s.
func execute(name string, n int) string {
	return "EXECUTE " + name + " (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
}

func (s *sqlSession) rangeQuery(ctx context.Context, t *table, idx int, start int64, limit int) (int, error) {
	s.one[0] = start
	s.values(s.one[:])
	rows, err := s.query(ctx, stmtKey{t.no, int(stmtRange), idx, limit}, func() string {
		if s.byName() {
			return execute(preparedNames[idx], 1)
		}
		return s.rangeSelect(t, idx, limit)
	})
	if err != nil {
		return 0, fmt.Errorf("range query on %s: %w", indexName(t, idx), err)
	}
	n, err := s.scanAll(rows)
	if err = s.conn.Err(err); err != nil {
		return n, runner.OpError("range query on "+indexName(t, idx), err)
	}
	return n, nil
}

func (s *sqlSession) pointQuery(ctx context.Context, t *table, ids []int64) (int, error) {
	s.values(ids)
	rows, err := s.query(ctx, stmtKey{t.no, int(stmtPoint), 0, len(ids)}, func() string {
		if s.byName() {
			return execute(pointPrepared, len(ids))
		}
		return pointSelect(t, len(ids))
	})
	if err != nil {
		return 0, fmt.Errorf("point query on %s: %w", t.name, err)
	}
	n, err := s.scanAll(rows)
	if err = s.conn.Err(err); err != nil {
		return n, runner.OpError("point query on "+t.name, err)
	}
	return n, nil
}

// scanAll reads every row of rows (three columns each, as every query of the benchmark
// returns) and closes it; it returns the number of rows.
func (s *sqlSession) scanAll(rows *sql.Rows) (int, error) {
	n := 0
	for rows.Next() {
		if err := rows.Scan(s.dest...); err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}

func (b *sqlBackend) rowLocks() bool { return true }

// storedTime implements backend: the text protocol writes the local time and reads it back
// as the seconds of that wall-clock time in UTC (the managed servers' session time zone, and
// PostgreSQL's timestamp without time zone); bind parameters keep unix seconds.
func (b *sqlBackend) storedTime(sec int64) int64 {
	if !b.text {
		return sec
	}
	t := time.Unix(sec, 0).Local()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC).Unix()
}

func (b *sqlBackend) assignsKeys() bool { return false }

// readRows implements backend: every row in transactionid order, read through the primary key.
func (b *sqlBackend) readRows(ctx context.Context, t *table, fn func(*Row) error) error {
	var row Row
	var data sql.RawBytes
	list := "transactionid, " + b.d.TimestampToUnix("dateandtime") + ", cashregisterid, customerid, productid, price, data"
	return b.readThrough(ctx, t, idxPK, list, []any{&row.ID, &row.DateAndTime, &row.CashRegisterID,
		&row.CustomerID, &row.ProductID, &row.Price, &data}, func() error {
		row.Data = data
		return fn(&row)
	})
}

// readIndex implements backend.
func (b *sqlBackend) readIndex(ctx context.Context, t *table, idx int, fn func(*entry) error) error {
	var e entry
	list := strings.Replace(indexColumns[idx], "dateandtime", b.d.TimestampToUnix("dateandtime"), 1) + ", transactionid"
	return b.readThrough(ctx, t, idx, list, []any{&e[0], &e[1], &e[2], &e[3]}, func() error { return fn(&e) })
}

// readThrough selects list from every row of t in the order of index idx, forced as count
// forces it (sqldb.Count), scans each row into dest and calls each.
func (b *sqlBackend) readThrough(ctx context.Context, t *table, idx int, list string, dest []any, each func() error) error {
	cols := indexColumns[idx]
	var rows *sql.Rows
	var err error
	if hint := b.hint(t, idx); hint != "" {
		first, _, _ := strings.Cut(cols, ",")
		rows, err = b.db.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s%s WHERE %s >= %d ORDER BY %s",
			list, t.name, hint, first, math.MinInt32, cols))
	} else {
		// No hints: in a transaction whose settings leave the index as the only way to the order.
		tx, terr := b.db.BeginTx(ctx, nil)
		if terr != nil {
			return terr
		}
		defer tx.Rollback()
		for _, st := range b.d.IndexOrderSettings() {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", st, err)
			}
		}
		rows, err = tx.QueryContext(ctx, "SELECT "+list+" FROM "+t.name+" ORDER BY "+cols)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := each(); err != nil {
			return err
		}
	}
	return rows.Err()
}
