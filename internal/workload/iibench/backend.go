package iibench

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
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
// point and each row it returns. A price is in cents (see Row), a dateandtime in unix seconds;
// on the document family (form) a price is the bits of its double, a dateandtime in
// milliseconds, and a query's rows' primary key is the _id's first 4 bytes and its last 8.
type Key [3]int64

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

// backend is iiBench on one engine family.
type backend interface {
	// create creates purchases_index with its primary key and the secondary indexes of p.
	create(ctx context.Context) error
	newSession(ctx context.Context) (session, error)
	// scanRows calls fn with every row of the table, read through the primary key in its order.
	scanRows(ctx context.Context, fn func(*storedRow)) error
	// scanIndex calls fn with every entry of secondary index idx, read through that index in its
	// order: its columns, a price as the bits of its float (rawKey).
	scanIndex(ctx context.Context, idx int, fn func(Key)) error
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
	case doc.DB:
		return newDocBackend(db, p), nil
	}
	return nil, fmt.Errorf("engine family %q is not supported by iibench", eng.Family())
}
