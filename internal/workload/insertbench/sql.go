package insertbench

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// indexColumns are the columns of each index, in index order.
var indexColumns = [numIndexes]string{
	"transactionid",
	"productid, customerid, price",
	"cashregisterid, customerid, price",
	"price, dateandtime, customerid",
}

type sqlBackend struct {
	db *sql.DB
	d  sqldb.Dialect
}

func newSQLBackend(db sqldb.DB, _ *Params) *sqlBackend {
	return &sqlBackend{db: db.SQL(), d: db.Dialect()}
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

func (b *sqlBackend) createTable(ctx context.Context, t *table) error {
	d := b.d
	q := fmt.Sprintf("CREATE TABLE %s (transactionid %s, dateandtime %s, cashregisterid %s NOT NULL, "+
		"customerid %s NOT NULL, productid %s NOT NULL, price %s NOT NULL, data %s)%s",
		t.name, d.AutoIncrementPK(), d.Type(sqldb.Timestamp, 0), d.Type(sqldb.Int, 0),
		d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0), d.Type(sqldb.Int, 0),
		d.Type(sqldb.VarChar, 4000), d.TableOptions())
	if _, err := b.db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("create table %s: %w", t.name, err)
	}
	return nil
}

func (b *sqlBackend) minID(ctx context.Context, t *table) (int64, bool, error) {
	var v sql.NullInt64
	if err := b.db.QueryRowContext(ctx, "SELECT min(transactionid) FROM "+t.name).Scan(&v); err != nil {
		return 0, false, fmt.Errorf("select min(transactionid) from %s: %w", t.name, err)
	}
	return v.Int64, v.Valid, nil
}

// count counts t through index idx: forced with the dialect's hint, or read in that index's
// order where it has none (sqldb.Count). The lower bound is below every value of every first
// column, and within the range of an INT column: PostgreSQL types a parameter as the column.
func (b *sqlBackend) count(ctx context.Context, t *table, idx int) (int64, error) {
	n, err := sqldb.Count(ctx, b.db, b.d, t.name, b.hint(t, idx), strings.Split(indexColumns[idx], ", "), math.MinInt32)
	if err != nil {
		return 0, fmt.Errorf("count %s through %s: %w", t.name, indexNames[idx], err)
	}
	return n, nil
}

// bind replaces each ? of q with the dialect's placeholder.
func (b *sqlBackend) bind(q string) string { return sqldb.Bind(b.d, q) }

func (b *sqlBackend) newSession(ctx context.Context) (session, error) {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return &sqlSession{b: b, conn: conn, stmts: map[stmtKey]*sql.Stmt{}}, nil
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

// sqlSession is one connection with its prepared statements, cached per table, kind and size.
type sqlSession struct {
	b     *sqlBackend
	conn  *sql.Conn
	stmts map[stmtKey]*sql.Stmt
	args  []any
	a, c  int64
	p     int64
	data  sql.RawBytes
}

func (s *sqlSession) close() error {
	for _, st := range s.stmts {
		st.Close()
	}
	return s.conn.Close()
}

// stmt returns the prepared statement for key, preparing text() on first use.
func (s *sqlSession) stmt(ctx context.Context, key stmtKey, text func() string) (*sql.Stmt, error) {
	if st, ok := s.stmts[key]; ok {
		return st, nil
	}
	q := s.b.bind(text())
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", q, err)
	}
	s.stmts[key] = st
	return st, nil
}

func (s *sqlSession) insert(ctx context.Context, t *table, rows []Row) error {
	n := len(rows)
	st, err := s.stmt(ctx, stmtKey{t.no, int(stmtInsert), 0, n}, func() string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO " + t.name +
			" (dateandtime, cashregisterid, customerid, productid, price, data) VALUES ")
		tuple := "(" + s.b.d.TimestampFromUnix("?") + ",?,?,?,?,?)"
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(tuple)
		}
		return sb.String()
	})
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for i := range rows {
		r := &rows[i]
		s.args = append(s.args, r.DateAndTime, r.CashRegisterID, r.CustomerID, r.ProductID, r.Price, r.Data)
	}
	if _, err := st.ExecContext(ctx, s.args...); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	t.inserted.Add(int64(n))
	t.maxID.Add(int64(n))
	return nil
}

func (s *sqlSession) createIndexes(ctx context.Context, t *table) (int64, error) {
	for idx := idxMarket; idx <= idxPDC; idx++ {
		q := fmt.Sprintf("CREATE INDEX %s ON %s (%s)", indexName(t, idx), t.name, indexColumns[idx])
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("create index %s: %w", indexName(t, idx), err)
		}
	}
	t.indexed.Store(true)
	return t.live(), nil
}

func (s *sqlSession) deleteOldest(ctx context.Context, t *table, low int64, n int) (int64, error) {
	st, err := s.stmt(ctx, stmtKey{t.no, int(stmtDelete), 0, n}, func() string {
		return s.b.d.DeleteOldest(t.name, "transactionid", n)
	})
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, low)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", t.name, err)
	}
	d, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete from %s: rows affected: %w", t.name, err)
	}
	return d, nil
}

func (s *sqlSession) rangeQuery(ctx context.Context, t *table, idx int, start int64, limit int) (int, error) {
	st, err := s.stmt(ctx, stmtKey{t.no, int(stmtRange), idx, limit}, func() string {
		cols := indexColumns[idx]
		first := strings.SplitN(cols, ",", 2)[0]
		// dateandtime (of pdc) is read back as unix seconds.
		sel := strings.Replace(cols, "dateandtime", s.b.d.TimestampToUnix("dateandtime"), 1)
		return fmt.Sprintf("SELECT %s FROM %s%s WHERE %s >= ? ORDER BY %s LIMIT %d",
			sel, t.name, s.b.hint(t, idx), first, cols, limit)
	})
	if err != nil {
		return 0, err
	}
	rows, err := st.QueryContext(ctx, start)
	if err != nil {
		return 0, fmt.Errorf("range query on %s: %w", indexName(t, idx), err)
	}
	n := 0
	for rows.Next() {
		if idx == idxPK {
			err = rows.Scan(&s.a)
		} else {
			err = rows.Scan(&s.a, &s.c, &s.p)
		}
		if err != nil {
			rows.Close()
			return n, fmt.Errorf("range query on %s: %w", indexName(t, idx), err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("range query on %s: %w", indexName(t, idx), err)
	}
	return n, rows.Close()
}

func (s *sqlSession) pointQuery(ctx context.Context, t *table, ids []int64) (int, error) {
	st, err := s.stmt(ctx, stmtKey{t.no, int(stmtPoint), 0, len(ids)}, func() string {
		return "SELECT transactionid, productid, data FROM " + t.name + " WHERE transactionid IN (" +
			strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")"
	})
	if err != nil {
		return 0, err
	}
	s.args = s.args[:0]
	for _, id := range ids {
		s.args = append(s.args, id)
	}
	rows, err := st.QueryContext(ctx, s.args...)
	if err != nil {
		return 0, fmt.Errorf("point query on %s: %w", t.name, err)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(&s.a, &s.p, &s.data); err != nil {
			rows.Close()
			return n, fmt.Errorf("point query on %s: %w", t.name, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("point query on %s: %w", t.name, err)
	}
	return n, rows.Close()
}
