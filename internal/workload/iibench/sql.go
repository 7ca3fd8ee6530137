package iibench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// sqlBackend is iiBench on a SQL engine. In the reference variant MariaDB and PostgreSQL run the
// reference's statements, sent as text (refsql.go); otherwise, and always on SQLite, which no
// reference runs, sessions prepare enginebench's statements on the server (this file).
type sqlBackend struct {
	eng sqldb.DB
	db  *sql.DB
	d   sqldb.Dialect
	p   *Params
	ref bool
}

func newSQLBackend(db sqldb.DB, p *Params) *sqlBackend {
	d := db.Dialect()
	ref := !p.Corrected() && (d.Kind() == sqldb.MySQL || d.Kind() == sqldb.Postgres)
	return &sqlBackend{eng: db, db: db.SQL(), d: d, p: p, ref: ref}
}

func (b *sqlBackend) retryable(err error) bool { return b.d.Retryable(err) }

// hint returns the clause that makes a query use index idx.
func (b *sqlBackend) hint(idx int) string {
	if idx == idxPK {
		return b.d.PrimaryKeyHint()
	}
	return b.d.IndexHint(indexes[idx].name)
}

// colList returns the SQL column names of index idx, joined by sep.
func colList(idx int, sep string) string { return strings.Join(indexCols(idx), sep) }

// indexCols returns the SQL names of the columns of index idx.
func indexCols(idx int) []string {
	names := make([]string, len(indexes[idx].cols))
	for i, c := range indexes[idx].cols {
		names[i] = colNames[c]
	}
	return names
}

func (b *sqlBackend) create(ctx context.Context) error {
	for _, q := range b.createStatements() {
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			return runner.OpError("create "+tableName+": "+runner.Clip(q, 120), err)
		}
	}
	return nil
}

// createStatements returns the DDL of purchases_index, as the reference's: its columns and
// types (an int transactionid, bigint in the corrected variant; a single-precision price), the
// secondary indexes declared with the table on MariaDB, created after it elsewhere. On
// PostgreSQL the reference variant caches the sequence as iibench.py does.
func (b *sqlBackend) createStatements() []string {
	d := b.d
	mysql := d.Kind() == sqldb.MySQL
	ty := b.columnTypes()
	var cols strings.Builder
	fmt.Fprintf(&cols, "transactionid %s, dateandtime %s, cashregisterid %[3]s not null, customerid %[3]s not null, "+
		"productid %[3]s not null, price %s not null, data %s(4000)", b.pkType(), ty.date, ty.int, ty.float, ty.varchar)
	for f := 1; f <= b.p.CharFields; f++ {
		fmt.Fprintf(&cols, ", charfield%d %s(%d) not null", f, ty.varchar, b.p.CharLength)
	}
	var after []string
	if mysql {
		cols.WriteString(", primary key (transactionid)")
	}
	for _, idx := range b.p.Indexes()[1:] {
		if mysql {
			fmt.Fprintf(&cols, ", key %s (%s)", indexes[idx].name, colList(idx, ", "))
			continue
		}
		after = append(after, fmt.Sprintf("create index %s on %s (%s)", indexes[idx].name, tableName, colList(idx, ", ")))
	}
	out := []string{"drop table if exists " + tableName,
		fmt.Sprintf("create table %s (%s)%s", tableName, cols.String(), d.TableOptions())}
	out = append(out, after...)
	if b.ref && d.Kind() == sqldb.Postgres {
		out = append(out, "alter sequence "+tableName+"_transactionid_seq cache 1000")
	}
	return out
}

// sqlTypes are the names of the column types of purchases_index on one dialect.
type sqlTypes struct{ int, date, float, varchar string }

// columnTypes returns the types as the reference names them: FLOAT is single precision (real on
// PostgreSQL); SQLite, which no reference runs, has only double precision and is given the
// single-precision values.
func (b *sqlBackend) columnTypes() sqlTypes {
	switch b.d.Kind() {
	case sqldb.MySQL:
		return sqlTypes{"int", "datetime", "float", "varchar"}
	case sqldb.Postgres:
		return sqlTypes{"int", "timestamp without time zone", "real", "varchar"}
	}
	return sqlTypes{"integer", "integer", "real", "varchar"}
}

// pkType is the type of transactionid: an auto-increment int as the reference's, bigint in the
// corrected variant (an int runs out after 2^31 rows).
func (b *sqlBackend) pkType() string {
	wide := b.p.Corrected()
	switch b.d.Kind() {
	case sqldb.MySQL:
		if wide {
			return "bigint not null auto_increment"
		}
		return "int not null auto_increment"
	case sqldb.Postgres:
		if wide {
			return "bigserial primary key"
		}
		return "serial primary key"
	}
	return b.d.AutoIncrementPK() // SQLite's integer key has 64 bits
}

// insertColumns is the column list of an insert: every column but transactionid.
func (b *sqlBackend) insertColumns() string {
	var sb strings.Builder
	sb.WriteString("dateandtime,cashregisterid,customerid,productid,price,data")
	for f := 1; f <= b.p.CharFields; f++ {
		fmt.Fprintf(&sb, ",charfield%d", f)
	}
	return sb.String()
}

// insertText returns an INSERT of n rows whose row is tuple.
func (b *sqlBackend) insertText(n int, tuple string) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + tableName + " (" + b.insertColumns() + ") VALUES ")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(tuple)
	}
	return sqldb.Bind(b.d, sb.String())
}

// chunk is the most rows one insert statement takes: all of a batch unless it has more values
// than the dialect takes in one statement.
func (b *sqlBackend) chunk() int { return chunkRows(b.d.MaxParams(), b.p) }

// queryText returns the query of index idx: the rows at or after a seek point in index order,
// the index's columns only (the index covers the query). The seek is a row-value comparison
// where the dialect's planner turns one into an index range, else the original's expansion:
// (a = ? AND b >= ?) OR (a > ?). args receives, for each placeholder, the position of its
// value in the seek Key.
func (b *sqlBackend) queryText(idx, limit int) (q string, args []int) {
	def := indexes[idx]
	n := len(def.cols)
	param := func(i int) string {
		if def.cols[i] == colDate {
			return b.d.TimestampFromUnix("?")
		}
		return "?"
	}
	var where string
	switch {
	case n == 1:
		where = colNames[def.cols[0]] + " >= " + param(0)
		args = []int{0}
	case b.d.RowValueSeek():
		ps := make([]string, n)
		for i := range ps {
			ps[i] = param(i)
			args = append(args, i)
		}
		where = "(" + colList(idx, ", ") + ") >= (" + strings.Join(ps, ", ") + ")"
	default:
		var terms []string
		for j := n - 1; j >= 0; j-- {
			var conj []string
			for i := 0; i < j; i++ {
				conj = append(conj, colNames[def.cols[i]]+" = "+param(i))
				args = append(args, i)
			}
			op := " > "
			if j == n-1 {
				op = " >= "
			}
			conj = append(conj, colNames[def.cols[j]]+op+param(j))
			args = append(args, j)
			terms = append(terms, "("+strings.Join(conj, " AND ")+")")
		}
		where = strings.Join(terms, " OR ")
	}
	sel := make([]string, n)
	for i, c := range def.cols {
		sel[i] = colNames[c]
		if c == colDate {
			sel[i] = b.d.TimestampToUnix(colNames[c])
		}
	}
	q = fmt.Sprintf("SELECT %s FROM %s%s WHERE %s ORDER BY %s LIMIT %d",
		strings.Join(sel, ", "), tableName, b.hint(idx), where, colList(idx, ", "), limit)
	return sqldb.Bind(b.d, q), args
}

// keyArg returns the statement argument of key column c whose value is v: for a price, the
// decimal the reference writes in a text statement, else the single-precision value the column
// stores (so that equality holds); for a dateandtime, the reference's text, else unix seconds.
func (b *sqlBackend) keyArg(c int, v int64) any {
	switch c {
	case colPrice:
		if b.ref {
			return priceDecimal(v)
		}
		return priceStored(v)
	case colDate:
		if b.ref {
			return dateText(v)
		}
	}
	return v
}

// dateText writes unix seconds as the reference writes dateandtime ('%Y-%m-%d %H:%M:%S'), in UTC.
func dateText(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.DateTime) }

func (b *sqlBackend) newSession(ctx context.Context) (session, error) {
	conn, err := sqldb.Connect(ctx, b.eng)
	if err != nil {
		return nil, runner.OpError("connect", err)
	}
	if b.ref {
		return newRefSession(ctx, b, conn)
	}
	return &sqlSession{b: b, conn: conn, inserts: map[int]*sql.Stmt{}, queries: map[queryKey]*prepared{}}, nil
}

type queryKey struct{ idx, limit int }

// prepared is a prepared query and the Key position of each of its arguments.
type prepared struct {
	st   *sql.Stmt
	args []int
}

// sqlSession is one connection with its prepared statements (the corrected variant, and
// SQLite).
type sqlSession struct {
	b       *sqlBackend
	conn    *sqldb.Conn
	inserts map[int]*sql.Stmt // by rows per statement
	queries map[queryKey]*prepared
	args    []any
	scan    keyScan
}

func (s *sqlSession) close() error {
	for _, st := range s.inserts {
		st.Close()
	}
	for _, q := range s.queries {
		q.st.Close()
	}
	return s.conn.Close()
}

// insertStmt returns the prepared INSERT of n rows.
func (s *sqlSession) insertStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if st, ok := s.inserts[n]; ok {
		return st, nil
	}
	tuple := "(" + s.b.d.TimestampFromUnix("?") + ",?,?,?,?,?" + strings.Repeat(",?", s.b.p.CharFields) + ")"
	st, err := s.conn.PrepareContext(s.conn.Ctx(ctx), s.b.insertText(n, tuple))
	if err != nil {
		return nil, runner.OpError(fmt.Sprintf("prepare the insert of %d rows", n), err)
	}
	s.inserts[n] = st
	return st, nil
}

// insert inserts rows in one statement, or in one transaction of several statements when the
// batch has more values than the dialect takes in one statement.
func (s *sqlSession) insert(ctx context.Context, rows []Row) (err error) {
	chunk := s.b.chunk()
	if len(rows) > chunk {
		if _, err := s.conn.ExecContext(s.conn.Ctx(ctx), s.b.d.BeginWrite()); err != nil {
			return runner.OpError("insert into "+tableName+": begin", err)
		}
		defer func() {
			end := "COMMIT"
			if err != nil {
				end = "ROLLBACK"
			}
			if _, cerr := s.conn.ExecContext(context.WithoutCancel(ctx), end); cerr != nil && err == nil {
				err = runner.OpError("insert into "+tableName+": commit", cerr)
			}
		}()
	}
	for len(rows) > 0 {
		n := min(len(rows), chunk)
		if err := s.insertRows(ctx, rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func (s *sqlSession) insertRows(ctx context.Context, rows []Row) error {
	st, err := s.insertStmt(ctx, len(rows))
	if err != nil {
		return err
	}
	p := s.b.p
	s.args = s.args[:0]
	for i := range rows {
		r := &rows[i]
		s.args = append(s.args, r.DateAndTime, r.CashRegisterID, r.CustomerID, r.ProductID, priceStored(r.Price), r.Data)
		for f := 0; f < p.CharFields; f++ {
			s.args = append(s.args, r.Pad[f*p.CharLength:(f+1)*p.CharLength])
		}
	}
	if _, err := st.ExecContext(s.conn.Ctx(ctx), s.args...); err != nil {
		return runner.OpError("insert into "+tableName, s.conn.Err(err))
	}
	return nil
}

func (s *sqlSession) query(ctx context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error) {
	key := queryKey{idx, limit}
	q, ok := s.queries[key]
	if !ok {
		text, args := s.b.queryText(idx, limit)
		st, err := s.conn.PrepareContext(s.conn.Ctx(ctx), text)
		if err != nil {
			return out[:0], runner.OpError("prepare the "+indexes[idx].name+" query", err)
		}
		q = &prepared{st: st, args: args}
		s.queries[key] = q
	}
	s.args = s.args[:0]
	for _, a := range q.args {
		s.args = append(s.args, s.b.keyArg(indexes[idx].cols[a], seek[a]))
	}
	rows, err := q.st.QueryContext(s.conn.Ctx(ctx), s.args...)
	if err != nil {
		return out[:0], runner.OpError("query "+indexes[idx].name, s.conn.Err(err))
	}
	out, err = s.scan.all(rows, idx, indexes[idx].cols, out)
	return out, s.conn.Err(err)
}

// colSkip marks a selected column that is no part of the index's key.
const colSkip = -1

// keyScan reads the rows of a query into Keys, reusing its destinations.
type keyScan struct {
	k     Key
	price float64
	date  unixTime
	dest  []any
}

// all reads every row of rows, whose columns are cols (colSkip: not a key column), into the Keys
// of index idx appended to out[:0], and closes rows.
func (s *keyScan) all(rows *sql.Rows, idx int, cols []int, out []Key) ([]Key, error) {
	out = out[:0]
	s.dest = s.dest[:0]
	pricePos, datePos := -1, -1
	for i, c := range cols {
		switch c {
		case colSkip:
			s.dest = append(s.dest, discard{})
		case colPrice:
			s.dest, pricePos = append(s.dest, &s.price), i
		case colDate:
			s.dest, datePos = append(s.dest, &s.date), i
		default:
			s.dest = append(s.dest, &s.k[i])
		}
	}
	for rows.Next() {
		s.k = Key{}
		if err := rows.Scan(s.dest...); err != nil {
			rows.Close()
			return out, runner.OpError("query "+indexes[idx].name, err)
		}
		if pricePos >= 0 {
			s.k[pricePos] = centsOf(s.price)
		}
		if datePos >= 0 {
			s.k[datePos] = s.date.v
		}
		out = append(out, s.k)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return out, runner.OpError("query "+indexes[idx].name, err)
	}
	return out, rows.Close()
}

// discard is a scan destination that drops the value.
type discard struct{}

// Scan implements sql.Scanner.
func (discard) Scan(any) error { return nil }

// unixTime is a scan destination for a dateandtime, read back as unix seconds: an integer (as
// enginebench's statements select it), a time, or the text of a DATETIME in UTC; NULL as
// nullTime.
type unixTime struct{ v int64 }

// Scan implements sql.Scanner.
func (u *unixTime) Scan(src any) error {
	var err error
	switch s := src.(type) {
	case nil:
		u.v = nullTime
	case int64:
		u.v = s
	case time.Time:
		u.v = s.Unix()
	case []byte:
		u.v, err = parseUnix(s)
	case string:
		u.v, err = parseUnix(s)
	default:
		err = fmt.Errorf("dateandtime: unexpected %T", src)
	}
	return err
}

// parseUnix parses a DATETIME's text in UTC ("2006-01-02 15:04:05", fractions ignored) or an
// integer of unix seconds, without allocating.
func parseUnix[T string | []byte](s T) (int64, error) {
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	if len(s) >= 19 && s[4] == '-' {
		y, ok1 := num(0, 4)
		mo, ok2 := num(5, 7)
		d, ok3 := num(8, 10)
		h, ok4 := num(11, 13)
		mi, ok5 := num(14, 16)
		sec, ok6 := num(17, 19)
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 {
			return time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC).Unix(), nil
		}
	} else if n, ok := num(0, len(s)); ok && len(s) > 0 && len(s) < 19 {
		return int64(n), nil
	}
	return 0, fmt.Errorf("dateandtime: cannot parse %q", runner.Clip(string(s), 40))
}
