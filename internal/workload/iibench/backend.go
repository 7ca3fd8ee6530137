package iibench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
)

// tableName is the benchmark's one table, as in the original.
const tableName = "purchases_index"

// Index numbers: 0 is the primary key, 1..3 the secondary indexes in the order
// --secondary-indexes adds them.
const (
	idxPK = iota
	idxMarket
	idxRegister
	idxPDC
	numIndexes
)

// Columns of an index key, in index order.
const (
	colID = iota
	colPrice
	colCustomer
	colRegister
	colDate
)

// indexDef is one index of purchases_index: its name and its columns in order.
type indexDef struct {
	name string
	cols []int
}

// indexes are the original iiBench indexes.
var indexes = [numIndexes]indexDef{
	{"pk", []int{colID}},
	{"marketsegment", []int{colPrice, colCustomer}},
	{"registersegment", []int{colRegister, colPrice, colCustomer}},
	{"pdc", []int{colPrice, colDate, colCustomer}},
}

// colNames are the SQL names of the key columns.
var colNames = [...]string{colID: "transactionid", colPrice: "price", colCustomer: "customerid",
	colRegister: "cashregisterid", colDate: "dateandtime"}

// Key is the value of an index's columns, in index order (unused entries are 0): a query's seek
// point and each row it returns.
type Key [3]int64

// Row is one row of purchases_index. Pad points into the generator's arena (CharFields fields
// of CharLength bytes, back to back) and is valid until the next call to Batch.
type Row struct {
	ID             int64 // transactionid; assigned by SQL engines, by the client on KV engines
	DateAndTime    int64 // unix seconds: the time the batch was generated (one value per batch)
	CashRegisterID int64
	CustomerID     int64
	ProductID      int64
	Price          int64
	Pad            []byte
}

// col returns the value of column c of r.
func (r *Row) col(c int) int64 {
	switch c {
	case colID:
		return r.ID
	case colPrice:
		return r.Price
	case colCustomer:
		return r.CustomerID
	case colRegister:
		return r.CashRegisterID
	case colDate:
		return r.DateAndTime
	}
	panic(fmt.Sprintf("iibench: no column %d", c))
}

// key returns r's key in index idx.
func (r *Row) key(idx int) Key {
	var k Key
	for i, c := range indexes[idx].cols {
		k[i] = r.col(c)
	}
	return k
}

// compareKeys compares the first n columns of a and b.
func compareKeys(a, b Key, n int) int {
	for i := 0; i < n; i++ {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}

// Gen generates rows from a seeded generator. It is used by one goroutine and allocates
// nothing once warm.
type Gen struct {
	rng   *rand.Rand
	p     *Params
	rows  []Row
	arena []byte
}

// NewGen returns a generator for stream of seed (each insert thread uses its own stream).
func NewGen(p *Params, seed, stream uint64) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, stream)), p: p}
}

// Batch returns n new rows generated at unix time now; the slice and the rows' Pad are reused
// by the next call. Values are uniform in their domains, as the Insert Benchmark's; each padding
// column is random letters followed by CompressiblePct percent of 'a', as the original's.
func (g *Gen) Batch(n int, now int64) []Row {
	p := g.p
	pad := p.CharFields * p.CharLength
	if cap(g.rows) < n {
		g.rows = make([]Row, n)
		g.arena = make([]byte, n*pad)
	}
	g.rows = g.rows[:n]
	for i := range g.rows {
		r := &g.rows[i]
		r.ID = 0
		r.DateAndTime = now
		r.CashRegisterID = g.rng.Int64N(int64(p.CashRegs))
		r.CustomerID = g.rng.Int64N(int64(p.Customers))
		r.ProductID = g.rng.Int64N(int64(p.Products))
		r.Price = g.rng.Int64N(int64(p.MaxPrice))
		r.Pad = g.arena[i*pad : (i+1)*pad : (i+1)*pad]
		g.fillPad(r.Pad)
	}
	return g.rows
}

// fillPad fills the padding columns of one row.
func (g *Gen) fillPad(b []byte) {
	p := g.p
	random := p.CharLength - p.CharLength*p.CompressiblePct/100
	for f := 0; f < p.CharFields; f++ {
		field := b[f*p.CharLength : (f+1)*p.CharLength]
		var bits uint64
		for i := 0; i < random; i++ {
			if i%12 == 0 {
				bits = g.rng.Uint64()
			}
			field[i] = 'a' + byte(bits%26)
			bits /= 26
		}
		for i := random; i < len(field); i++ {
			field[i] = 'a'
		}
	}
}

// seek returns a random seek point of index idx: a transactionid among the rows inserted, or
// each column uniform in its domain (dateandtime between from and to, unix seconds).
func seek(rng *rand.Rand, p *Params, idx int, rows, from, to int64) Key {
	var k Key
	for i, c := range indexes[idx].cols {
		switch c {
		case colID:
			k[i] = 1 + rng.Int64N(max(rows, 1))
		case colPrice:
			k[i] = rng.Int64N(int64(p.MaxPrice))
		case colCustomer:
			k[i] = rng.Int64N(int64(p.Customers))
		case colRegister:
			k[i] = rng.Int64N(int64(p.CashRegs))
		case colDate:
			k[i] = from + rng.Int64N(max(to-from+1, 1))
		}
	}
	return k
}

// backend is iiBench on one engine family.
type backend interface {
	// create creates purchases_index with its primary key and the secondary indexes of p.
	create(ctx context.Context) error
	newSession(ctx context.Context) (session, error)
	// count counts the rows of the table by a full scan of index idx.
	count(ctx context.Context, idx int) (int64, error)
	// retryable reports whether err is a transient conflict worth retrying.
	retryable(err error) bool
}

// session is one client connection, used by one goroutine.
type session interface {
	// insert inserts rows (and their index entries) in one transaction.
	insert(ctx context.Context, rows []Row) error
	// query reads up to limit entries of index idx at or after seek in index order and
	// returns their keys, appended to out[:0].
	query(ctx context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error)
	close() error
}

// newBackend returns the backend for an opened engine's family.
func newBackend(eng engine.Engine, p *Params) (backend, error) {
	switch db := eng.(type) {
	case sqldb.DB:
		return newSQLBackend(db, p), nil
	case kv.DB:
		return &kvBackend{db: db, p: p, ids: new(atomic.Int64)}, nil
	}
	return nil, fmt.Errorf("engine family %q is not supported by iibench", eng.Family())
}
