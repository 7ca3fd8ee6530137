//go:build cgo

package sqldb

import (
	"context"
	"database/sql"
	"math/rand"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

// floorRows is how many rows the floor's table holds: 100-byte values, as the KV engines'
// (kvtest.BenchRows), which SQLite's page cache holds.
const floorRows = 200_000

// The floor's statements on table kv (k INTEGER PRIMARY KEY, v BLOB).
const (
	floorGet   = "SELECT v FROM kv WHERE k = ?"
	floorRange = "SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT 10"
)

// floorBatch is the batch of 10 writes: one statement, as the Insert Benchmark's multi-row insert.
var floorBatch = "INSERT OR REPLACE INTO kv (k, v) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?), ", 10), ", ")

// BenchmarkAdapterFloor puts the sqlite engine as the workloads use it beside a bare
// database/sql loop, on the same table and rows, in runnertest.PairOrder (issue 34): a point SELECT, a 10-row range
// SELECT and a 10-row INSERT OR REPLACE, each a statement prepared once on one connection of the
// engine's pool (its pragmas). "enginebench" is the workloads' path (insertbench's session): a
// sqldb.Conn opened with the run's context, which can be cancelled, its statements run with
// Conn.Ctx, their arguments boxed into a reused slice; "bare" a *sql.Conn with
// context.Background().
func BenchmarkAdapterFloor(b *testing.B) {
	e := enginetest.Open(b, context.Background(), SQLiteDriver(), "", nil, b.TempDir()).(DB)
	loadFloor(b, e.SQL())
	runCtx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ours, err := Connect(runCtx, e)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ours.Close() })
	bare, err := e.SQL().Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bare.Close() })
	paths := map[string]*floorPath{
		"bare":        newFloorPath(b, context.Background(), bare),
		"enginebench": newFloorPath(b, ours.Ctx(runCtx), ours.Conn),
	}
	for _, op := range []struct {
		name string
		run  func(*floorPath, *testing.B, *rand.Rand)
	}{{"get", (*floorPath).get}, {"range10", (*floorPath).range10}, {"batch10", (*floorPath).batch10}} {
		b.Run(op.name, func(b *testing.B) {
			for _, name := range runnertest.PairOrder("bare", "enginebench") {
				p := paths[name]
				b.Run(name, func(b *testing.B) {
					r := rand.New(rand.NewSource(1))
					runnertest.Loop(b, func() { op.run(p, b, r) })
				})
			}
		})
	}
}

// loadFloor creates table kv with floorRows rows, in transactions of 1000.
func loadFloor(b *testing.B, db *sql.DB) {
	b.Helper()
	if _, err := db.Exec("CREATE TABLE kv (k INTEGER PRIMARY KEY, v BLOB NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	val := make([]byte, 100)
	for i := 0; i < floorRows; i += 1000 {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for k := i; k < i+1000; k++ {
			if _, err := tx.Exec("INSERT INTO kv (k, v) VALUES (?, ?)", k, val); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// floorPath is one way of running the floor's statements: a connection, the context of its
// statements and the statements prepared on it.
type floorPath struct {
	ctx              context.Context
	get1, rng, batch *sql.Stmt
	args             []any
	val              []byte
	cols             [2]sql.RawBytes
	one, two         []any
}

func newFloorPath(b *testing.B, ctx context.Context, conn *sql.Conn) *floorPath {
	p := &floorPath{ctx: ctx, val: make([]byte, 100)}
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{{&p.get1, floorGet}, {&p.rng, floorRange}, {&p.batch, floorBatch}} {
		st, err := conn.PrepareContext(ctx, s.q)
		if err != nil {
			b.Fatalf("prepare %s: %v", s.q, err)
		}
		b.Cleanup(func() { st.Close() })
		*s.st = st
	}
	p.one = []any{&p.cols[1]}
	p.two = []any{&p.cols[0], &p.cols[1]}
	return p
}

// query runs st with p.args and scans every row into dest; it returns the number of rows.
func (p *floorPath) query(b *testing.B, st *sql.Stmt, dest []any) int {
	rows, err := st.QueryContext(p.ctx, p.args...)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

func (p *floorPath) get(b *testing.B, r *rand.Rand) {
	p.args = append(p.args[:0], r.Int63n(floorRows))
	if n := p.query(b, p.get1, p.one); n != 1 || len(p.cols[1]) != 100 {
		b.Fatalf("get: %d rows of %d bytes", n, len(p.cols[1]))
	}
}

func (p *floorPath) range10(b *testing.B, r *rand.Rand) {
	p.args = append(p.args[:0], r.Int63n(floorRows-10))
	if n := p.query(b, p.rng, p.two); n != 10 {
		b.Fatalf("range query: %d rows", n)
	}
}

func (p *floorPath) batch10(b *testing.B, r *rand.Rand) {
	p.args = p.args[:0]
	for range 10 {
		p.args = append(p.args, r.Int63n(floorRows), p.val)
	}
	if _, err := p.batch.ExecContext(p.ctx, p.args...); err != nil {
		b.Fatalf("batch: %v", err)
	}
}
