package shard

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// sqlBoard is the board in SQL tables of the target database of an SQL server.
type sqlBoard struct {
	src   sqldb.DB
	db    *sql.DB
	d     sqldb.Dialect
	run   string
	beats *beater // the heartbeat's own connection
}

// newSQLBoard returns run's board on the SQL server engine src.
func newSQLBoard(src sqldb.DB, run string) *sqlBoard {
	return &sqlBoard{src: src, db: src.SQL(), d: src.Dialect(), run: run}
}

// createTable creates table, of columns, unless it is there: shards that create it at once all
// succeed, the losers' errors being harmless once it exists. what names the table in the
// error: "barrier" for "create the shards' barrier table".
func (b *sqlBoard) createTable(ctx context.Context, table, what, columns string) error {
	_, err := b.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+" ("+columns+")")
	if err == nil {
		return nil
	}
	if found, ferr := sqldb.ExistingTables(ctx, b.src, []string{table}); ferr == nil && len(found) > 0 {
		return nil
	}
	return fmt.Errorf("create the shards' %s table %s: %w", what, table, err)
}

func (b *sqlBoard) createBarrier(ctx context.Context) error {
	return b.createTable(ctx, BarrierTable, "barrier", "run VARCHAR(200) NOT NULL, step VARCHAR(200) NOT NULL, shard INT NOT NULL,"+
		" arrived_at BIGINT NOT NULL, start_at BIGINT, gave_up_at BIGINT, PRIMARY KEY (run, step, shard)")
}

func (b *sqlBoard) createData(ctx context.Context) error {
	return b.createTable(ctx, DataTable, "data", "run VARCHAR(200) NOT NULL, step VARCHAR(200) NOT NULL, shard INT NOT NULL, part INT NOT NULL,"+
		" data VARCHAR(4000) NOT NULL, PRIMARY KEY (run, step, shard, part)")
}

func (b *sqlBoard) createAlive(ctx context.Context) error {
	return b.createTable(ctx, AliveTable, "heartbeat", "run VARCHAR(200) NOT NULL, shard INT NOT NULL, alive_at BIGINT NOT NULL, PRIMARY KEY (run, shard)")
}

func (b *sqlBoard) arrive(ctx context.Context, key string, shard int, arrivedAt int64, gaveUp bool) error {
	var err error
	if gaveUp {
		_, err = b.db.ExecContext(ctx, sqldb.Bind(b.d, "INSERT INTO "+BarrierTable+" (run, step, shard, arrived_at, gave_up_at) VALUES (?, ?, ?, ?, ?)"),
			b.run, key, shard, arrivedAt, arrivedAt)
	} else {
		_, err = b.db.ExecContext(ctx, sqldb.Bind(b.d, "INSERT INTO "+BarrierTable+" (run, step, shard, arrived_at) VALUES (?, ?, ?, ?)"),
			b.run, key, shard, arrivedAt)
	}
	if err != nil && b.d.DuplicateKey(err) {
		return errArrived
	}
	return err
}

func (b *sqlBoard) arrivals(ctx context.Context, key string) ([]arrival, error) {
	rs, err := b.db.QueryContext(ctx, sqldb.Bind(b.d, "SELECT shard, start_at, gave_up_at FROM "+BarrierTable+" WHERE run = ? AND step = ?"),
		b.run, key)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []arrival
	for rs.Next() {
		var a arrival
		if err := rs.Scan(&a.shard, &a.startAt, &a.gaveUp); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rs.Err()
}

func (b *sqlBoard) setStart(ctx context.Context, key string, startAt int64) error {
	_, err := b.db.ExecContext(ctx, sqldb.Bind(b.d, "UPDATE "+BarrierTable+" SET start_at = ? WHERE run = ? AND step = ? AND shard = 0"),
		startAt, b.run, key)
	return err
}

func (b *sqlBoard) markGaveUp(ctx context.Context, key string, shard int, at int64) error {
	_, err := b.db.ExecContext(ctx, sqldb.Bind(b.d, "UPDATE "+BarrierTable+" SET gave_up_at = ? WHERE run = ? AND step = ? AND shard = ?"),
		at, b.run, key, shard)
	return err
}

func (b *sqlBoard) putData(ctx context.Context, key string, shard, part int, data string) error {
	_, err := b.db.ExecContext(ctx, sqldb.Bind(b.d, "INSERT INTO "+DataTable+" (run, step, shard, part, data) VALUES (?, ?, ?, ?, ?)"),
		b.run, key, shard, part, data)
	return err
}

func (b *sqlBoard) data(ctx context.Context, key string) ([]dataPart, error) {
	rs, err := b.db.QueryContext(ctx, sqldb.Bind(b.d, "SELECT shard, part, data FROM "+DataTable+" WHERE run = ? AND step = ? ORDER BY shard, part"),
		b.run, key)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []dataPart
	for rs.Next() {
		var p dataPart
		if err := rs.Scan(&p.shard, &p.part, &p.data); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rs.Err()
}

// serverNowMs returns the SQL expression of the database server's clock in Unix milliseconds:
// heartbeats are written and their ages read on the server's clock, so that the hosts'
// clocks need not agree.
func serverNowMs(d sqldb.Dialect) string {
	if d.Kind() == sqldb.Postgres {
		return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
	}
	return "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
}

// beatQuery is the statement of a beat, of run and shard.
func (b *sqlBoard) beatQuery() string {
	return sqldb.Bind(b.d, "UPDATE "+AliveTable+" SET alive_at = "+serverNowMs(b.d)+" WHERE run = ? AND shard = ?")
}

func (b *sqlBoard) firstBeat(ctx context.Context, shard int) error {
	_, err := b.db.ExecContext(ctx, sqldb.Bind(b.d, "INSERT INTO "+AliveTable+" (run, shard, alive_at) VALUES (?, ?, "+serverNowMs(b.d)+")"),
		b.run, shard)
	if err != nil && b.d.DuplicateKey(err) { // a later configuration of the run: beat again
		_, err = b.db.ExecContext(ctx, b.beatQuery(), b.run, shard)
	}
	return err
}

func (b *sqlBoard) beat(ctx context.Context, shard int) error {
	if b.beats == nil {
		b.beats = &beater{db: b.db, query: b.beatQuery(), args: []any{b.run, shard}}
	}
	return b.beats.beat(ctx)
}

func (b *sqlBoard) ages(ctx context.Context) (map[int]int64, error) {
	rs, err := b.db.QueryContext(ctx, sqldb.Bind(b.d, "SELECT shard, "+serverNowMs(b.d)+" - alive_at FROM "+AliveTable+" WHERE run = ?"), b.run)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := map[int]int64{}
	for rs.Next() {
		var shard int
		var ms int64
		if err := rs.Scan(&shard, &ms); err != nil {
			return nil, err
		}
		out[shard] = ms
	}
	return out, rs.Err()
}

func (b *sqlBoard) close() {
	if b.beats != nil {
		b.beats.close()
	}
}

// beater writes a shard's heartbeat on a connection of its own, taken again after a failure.
type beater struct {
	db    *sql.DB
	conn  *sql.Conn
	query string
	args  []any
}

// beat sets the shard's alive_at to the server's time.
func (b *beater) beat(ctx context.Context) error {
	if b.conn == nil {
		conn, err := b.db.Conn(ctx)
		if err != nil {
			return err
		}
		b.conn = conn
	}
	if _, err := b.conn.ExecContext(ctx, b.query, b.args...); err != nil {
		b.conn.Close() // the next beat takes a new connection
		b.conn = nil
		return err
	}
	return nil
}

// close returns the beater's connection.
func (b *beater) close() {
	if b.conn != nil {
		b.conn.Close()
	}
}
