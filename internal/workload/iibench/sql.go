package iibench

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

type sqlBackend struct {
	db *sql.DB
	d  sqldb.Dialect
	p  *Params
}

func newSQLBackend(db sqldb.DB, p *Params) *sqlBackend {
	return &sqlBackend{db: db.SQL(), d: db.Dialect(), p: p}
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

func (b *sqlBackend) create(ctx context.Context) error {
	d := b.d
	var pad strings.Builder
	for f := 1; f <= b.p.CharFields; f++ {
		fmt.Fprintf(&pad, ", charfield%d %s NOT NULL", f, d.Type(sqldb.VarChar, b.p.CharLength))
	}
	q := fmt.Sprintf("CREATE TABLE %s (transactionid %s, dateandtime %s NOT NULL, cashregisterid %s NOT NULL, "+
		"customerid %s NOT NULL, productid %s NOT NULL, price %s NOT NULL%s)%s",
		tableName, d.AutoIncrementPK(), d.Type(sqldb.Timestamp, 0), d.Type(sqldb.Int, 0),
		d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0), pad.String(), d.TableOptions())
	if _, err := b.db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("create table %s: %w", tableName, err)
	}
	for _, idx := range b.p.Indexes()[1:] {
		q := fmt.Sprintf("CREATE INDEX %s ON %s (%s)", indexes[idx].name, tableName, colList(idx, ", "))
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create index %s: %w", indexes[idx].name, err)
		}
	}
	return nil
}

// indexCols returns the SQL names of the columns of index idx.
func indexCols(idx int) []string {
	names := make([]string, len(indexes[idx].cols))
	for i, c := range indexes[idx].cols {
		names[i] = colNames[c]
	}
	return names
}

// count counts the table through index idx: forced with the dialect's hint, or read in that
// index's order where it has none (sqldb.Count). The lower bound is below every value of every
// first column, and within the range of an INT column.
func (b *sqlBackend) count(ctx context.Context, idx int) (int64, error) {
	n, err := sqldb.Count(ctx, b.db, b.d, tableName, b.hint(idx), indexCols(idx), math.MinInt32)
	if err != nil {
		return 0, fmt.Errorf("count %s through %s: %w", tableName, indexes[idx].name, err)
	}
	return n, nil
}

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

func (b *sqlBackend) newSession(ctx context.Context) (session, error) {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return &sqlSession{b: b, conn: conn, inserts: map[int]*sql.Stmt{}, queries: map[queryKey]*prepared{}}, nil
}

type queryKey struct{ idx, limit int }

// prepared is a prepared query and the Key position of each of its arguments.
type prepared struct {
	st   *sql.Stmt
	args []int
}

// sqlSession is one connection with its prepared statements.
type sqlSession struct {
	b       *sqlBackend
	conn    *sql.Conn
	inserts map[int]*sql.Stmt // by rows per statement
	queries map[queryKey]*prepared
	args    []any
	k       Key
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
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + tableName + " (dateandtime, cashregisterid, customerid, productid, price")
	for f := 1; f <= s.b.p.CharFields; f++ {
		fmt.Fprintf(&sb, ", charfield%d", f)
	}
	sb.WriteString(") VALUES ")
	tuple := "(" + s.b.d.TimestampFromUnix("?") + ",?,?,?,?" + strings.Repeat(",?", s.b.p.CharFields) + ")"
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(tuple)
	}
	q := sqldb.Bind(s.b.d, sb.String())
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare the insert of %d rows: %w", n, err)
	}
	s.inserts[n] = st
	return st, nil
}

// insert inserts rows in one statement, or in one transaction of several statements when the
// batch has more values than the dialect takes in one statement.
func (s *sqlSession) insert(ctx context.Context, rows []Row) (err error) {
	cols := 5 + s.b.p.CharFields
	chunk := max(s.b.d.MaxParams()/cols, 1)
	if len(rows) > chunk {
		if _, err := s.conn.ExecContext(ctx, s.b.d.BeginWrite()); err != nil {
			return fmt.Errorf("insert into %s: begin: %w", tableName, err)
		}
		defer func() {
			end := "COMMIT"
			if err != nil {
				end = "ROLLBACK"
			}
			if _, cerr := s.conn.ExecContext(context.WithoutCancel(ctx), end); cerr != nil && err == nil {
				err = fmt.Errorf("insert into %s: commit: %w", tableName, cerr)
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
		s.args = append(s.args, r.DateAndTime, r.CashRegisterID, r.CustomerID, r.ProductID, r.Price)
		for f := 0; f < p.CharFields; f++ {
			s.args = append(s.args, r.Pad[f*p.CharLength:(f+1)*p.CharLength])
		}
	}
	if _, err := st.ExecContext(ctx, s.args...); err != nil {
		return fmt.Errorf("insert into %s: %w", tableName, err)
	}
	return nil
}

func (s *sqlSession) query(ctx context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error) {
	out = out[:0]
	key := queryKey{idx, limit}
	q, ok := s.queries[key]
	if !ok {
		text, args := s.b.queryText(idx, limit)
		st, err := s.conn.PrepareContext(ctx, text)
		if err != nil {
			return out, fmt.Errorf("prepare %q: %w", text, err)
		}
		q = &prepared{st: st, args: args}
		s.queries[key] = q
	}
	s.args = s.args[:0]
	for _, a := range q.args {
		s.args = append(s.args, seek[a])
	}
	rows, err := q.st.QueryContext(ctx, s.args...)
	if err != nil {
		return out, fmt.Errorf("query %s: %w", indexes[idx].name, err)
	}
	n := len(indexes[idx].cols)
	for rows.Next() {
		s.k = Key{}
		switch n {
		case 1:
			err = rows.Scan(&s.k[0])
		case 2:
			err = rows.Scan(&s.k[0], &s.k[1])
		default:
			err = rows.Scan(&s.k[0], &s.k[1], &s.k[2])
		}
		if err != nil {
			rows.Close()
			return out, fmt.Errorf("query %s: %w", indexes[idx].name, err)
		}
		out = append(out, s.k)
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("query %s: %w", indexes[idx].name, err)
	}
	return out, rows.Close()
}
