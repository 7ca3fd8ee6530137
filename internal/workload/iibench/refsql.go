package iibench

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/runner"
)

// The reference's statements (the reference variant on MariaDB and PostgreSQL), as iibench.py in
// its iiBench form sends them over a MySQLdb connection, which does not autocommit: every
// statement is text with its values in it; an insert of a batch is committed at once; a query
// thread commits after every fourth query. On PostgreSQL, which that form of iibench.py does not
// run, the queries are those of iibench.py's PostgreSQL support on the same table (prepared with
// PREPARE, run with EXECUTE, both text), and each transaction starts with BEGIN, as a psycopg2
// connection that does not autocommit sends it. docs/fidelity.md lists each with its line.

// refQuery is a reference query of one index: its SELECT, with a ? for each value, the Key
// position of each value, the columns it returns (colSkip for one that is no key column) and,
// on PostgreSQL, the name and parameter types of its prepared statement.
type refQuery struct {
	text  string
	args  []int
	cols  []int
	name  string
	types string
}

// selectStarCols are the columns of SELECT * but transactionid.
func (b *sqlBackend) selectStarCols() []int {
	cols := []int{colID}
	for i := 0; i < 6+b.p.CharFields; i++ {
		cols = append(cols, colSkip)
	}
	return cols
}

// refQuery returns the reference's query of index idx reading limit rows.
func (b *sqlBackend) refQuery(idx, limit int) refQuery {
	if b.d.Kind() == sqldb.Postgres {
		return b.pgRefQuery(idx, limit)
	}
	var q refQuery
	switch idx {
	case idxPK:
		q = refQuery{text: "SELECT * FROM %s WHERE transactionid >= ? ORDER BY transactionid LIMIT %d",
			args: []int{0}, cols: b.selectStarCols()}
	case idxMarket:
		q = refQuery{text: "SELECT price,customerid FROM %s FORCE INDEX (marketsegment) WHERE " +
			"(price=? and customerid>=?) OR (price>?) LIMIT %d", args: []int{0, 1, 0}}
	case idxRegister:
		q = refQuery{text: "SELECT cashregisterid,price,customerid FROM %s FORCE INDEX (registersegment) WHERE " +
			"(cashregisterid=? and price=? and customerid>=?) OR (cashregisterid=? and price>?) OR (cashregisterid>?) LIMIT %d",
			args: []int{0, 1, 2, 0, 1, 0}}
	default:
		q = refQuery{text: "SELECT price,dateandtime,customerid FROM %s FORCE INDEX (pdc) WHERE " +
			"(price=? and dateandtime=? and customerid>=?) OR (price=? and dateandtime>?) OR (price>?) LIMIT %d",
			args: []int{0, 1, 2, 0, 1, 0}}
	}
	if q.cols == nil {
		q.cols = indexes[idx].cols
	}
	q.text = fmt.Sprintf(q.text, tableName, limit)
	return q
}

// pgRefQuery returns the PostgreSQL query of index idx: a seek on the index's first column only,
// strictly after the cash register on registersegment, in the index's order.
func (b *sqlBackend) pgRefQuery(idx, limit int) refQuery {
	if idx == idxPK {
		return refQuery{text: fmt.Sprintf("SELECT * FROM %s WHERE transactionid >= $1 ORDER BY transactionid LIMIT %d", tableName, limit),
			args: []int{0}, cols: b.selectStarCols(), name: "pk_query_ps", types: "int"}
	}
	name, types, op := map[int]string{idxMarket: "market", idxRegister: "register", idxPDC: "pdc"}[idx], "real", ">="
	if idx == idxRegister {
		types, op = "int", ">"
	}
	return refQuery{text: fmt.Sprintf("SELECT %s FROM %s WHERE (%s %s $1) ORDER BY %s LIMIT %d", colList(idx, ", "), tableName,
		colNames[indexes[idx].cols[0]], op, colList(idx, ", "), limit),
		args: []int{0}, cols: indexes[idx].cols, name: name + "_query_ps", types: types}
}

// refSession is one connection that sends the reference's statements.
type refSession struct {
	b     *sqlBackend
	conn  *sqldb.Conn
	pg    bool
	texts map[int]string // insert statements by rows
	ready map[queryKey]refQuery
	args  []any
	scan  keyScan
	// insertSet tells whether the session settings of the insert connection were sent.
	insertSet bool
	inTx      bool // a query transaction is open
	queries   int  // queries in the open transaction
}

// newRefSession starts the reference's session on conn: MySQLdb turns autocommit off when it
// connects.
func newRefSession(ctx context.Context, b *sqlBackend, conn *sqldb.Conn) (*refSession, error) {
	s := &refSession{b: b, conn: conn, pg: b.d.Kind() == sqldb.Postgres, texts: map[int]string{}, ready: map[queryKey]refQuery{}}
	if !s.pg {
		if err := s.exec(ctx, "set autocommit=0"); err != nil {
			return nil, errors.Join(err, s.close())
		}
	}
	return s, nil
}

// exec runs a statement without values.
func (s *refSession) exec(ctx context.Context, q string) error {
	if _, err := s.conn.ExecContext(s.conn.Ctx(ctx), q); err != nil {
		return runner.OpError(runner.Clip(q, 120), s.conn.Err(err))
	}
	return nil
}

// close drops the connection rather than returning it to the pool with autocommit off or a
// transaction open, as the reference's processes end: the server rolls back what is open.
func (s *refSession) close() error {
	s.conn.Discard()
	return nil
}

// rollback ends the transaction that an error left, as the reference does after a failed
// insert, so that a retry starts a new one.
func (s *refSession) rollback(ctx context.Context, err error) error {
	s.inTx, s.queries = false, 0
	if rerr := s.exec(context.WithoutCancel(ctx), "rollback"); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// insert inserts rows in one text statement (several where the batch has more values than the
// dialect takes in one) and commits, after BEGIN on PostgreSQL. The first insert of the session
// sets unique_checks first on MariaDB, as the reference's insert connection does.
func (s *refSession) insert(ctx context.Context, rows []Row) error {
	if !s.pg && !s.insertSet {
		if err := s.exec(ctx, "set unique_checks=1"); err != nil {
			return err
		}
		s.insertSet = true
	}
	if s.pg {
		if err := s.exec(ctx, "BEGIN"); err != nil {
			return err
		}
	}
	for chunk := s.b.chunk(); len(rows) > 0; {
		n := min(len(rows), chunk)
		if err := s.insertRows(ctx, rows[:n]); err != nil {
			return s.rollback(ctx, err)
		}
		rows = rows[n:]
	}
	if err := s.exec(ctx, "commit"); err != nil {
		return s.rollback(ctx, err)
	}
	return nil
}

func (s *refSession) insertRows(ctx context.Context, rows []Row) error {
	p := s.b.p
	q, ok := s.texts[len(rows)]
	if !ok {
		q = s.b.insertText(len(rows), "(?,?,?,?,?,?"+strings.Repeat(",?", p.CharFields)+")")
		s.texts[len(rows)] = q
	}
	date := dateText(rows[0].DateAndTime) // one time a batch
	s.args = s.args[:0]
	for i := range rows {
		r := &rows[i]
		s.args = append(s.args, date, r.CashRegisterID, r.CustomerID, r.ProductID, priceDecimal(r.Price), string(r.Data))
		for f := 0; f < p.CharFields; f++ {
			s.args = append(s.args, string(r.Pad[f*p.CharLength:(f+1)*p.CharLength]))
		}
	}
	if _, err := s.conn.ExecContext(s.conn.Ctx(ctx), q, s.args...); err != nil {
		return runner.OpError("insert into "+tableName, s.conn.Err(err))
	}
	return nil
}

// query runs the reference's query of index idx as text (EXECUTE of the statement that the
// session prepares with PREPARE on its first query of the index, on PostgreSQL), in the
// session's open transaction, and commits after every fourth.
func (s *refSession) query(ctx context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error) {
	q, text, err := s.prepare(ctx, idx, limit)
	if err != nil {
		return out[:0], err
	}
	if s.pg && !s.inTx {
		if err := s.exec(ctx, "BEGIN"); err != nil {
			return out[:0], err
		}
	}
	s.inTx = true
	s.args = s.args[:0]
	for _, a := range q.args {
		s.args = append(s.args, s.b.keyArg(indexes[idx].cols[a], seek[a]))
	}
	rows, err := s.conn.QueryContext(s.conn.Ctx(ctx), text, s.args...)
	if err != nil {
		return out[:0], s.rollback(ctx, runner.OpError("query "+indexes[idx].name, s.conn.Err(err)))
	}
	if out, err = s.scan.all(rows, idx, q.cols, out); err != nil {
		return out, s.rollback(ctx, err)
	}
	if s.queries++; s.queries == queriesPerTx {
		s.inTx, s.queries = false, 0
		if err := s.exec(ctx, "commit"); err != nil {
			return out, s.rollback(ctx, err)
		}
	}
	return out, nil
}

// prepare returns the reference query of index idx and the text that runs it: the SELECT on
// MariaDB; on PostgreSQL the EXECUTE of the statement it prepares on first use.
func (s *refSession) prepare(ctx context.Context, idx, limit int) (refQuery, string, error) {
	key := queryKey{idx, limit}
	q, ok := s.ready[key]
	if !ok {
		q = s.b.refQuery(idx, limit)
		if s.pg {
			for k := range s.ready { // another limit of the same index: another name
				if k.idx == idx {
					q.name += fmt.Sprintf("_%d", limit)
					break
				}
			}
			if err := s.exec(ctx, fmt.Sprintf("PREPARE %s (%s) AS %s", q.name, q.types, q.text)); err != nil {
				return q, "", err
			}
			q.text = "EXECUTE " + q.name + " ($1)"
		}
		s.ready[key] = q
	}
	return q, q.text, nil
}
