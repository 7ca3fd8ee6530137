// Package sqldb holds the SQL engine family: database/sql engines and their dialects. A workload
// writes its SQL once against the Dialect, which supplies what differs between engines (DDL
// types, placeholders, index hints, delete-oldest syntax, which errors are retryable).
package sqldb

import (
	"database/sql"

	"github.com/enginebench/enginebench/internal/engine"
)

// DB is an open SQL engine.
type DB interface {
	engine.Engine
	// SQL is the connection pool. Workloads take one *sql.Conn per client.
	SQL() *sql.DB
	// Dialect tells how to write SQL for this engine.
	Dialect() Dialect
}

// ColType is a portable column type that a Dialect maps to its DDL.
type ColType int

// Portable column types.
const (
	BigInt ColType = iota
	Int
	TinyInt
	Timestamp // a point in time: written with Dialect.TimestampFromUnix, read with TimestampToUnix
	VarChar   // variable length text with a maximum length (see Dialect.Type)
	Text
)

// Dialect is what differs between SQL engines.
type Dialect interface {
	// Name is the dialect's name: sqlite, postgres, mysql.
	Name() string
	// Placeholder returns the bind parameter marker for the i-th (1-based) argument.
	Placeholder(i int) string
	// Type returns the DDL of a column type; size is the maximum length for VarChar.
	Type(t ColType, size int) string
	// AutoIncrementPK returns the column definition of an append-only integer primary key
	// assigned by the engine in insert order (auto_increment, bigserial, integer primary key).
	AutoIncrementPK() string
	// TableOptions is appended to CREATE TABLE (e.g. " ENGINE=InnoDB"); may be empty.
	TableOptions() string
	// IndexHint returns the clause that forces index on table (placed after the table name in
	// FROM), or "" where the dialect has none.
	IndexHint(index string) string
	// PrimaryKeyHint returns the clause that makes a query use the primary key (or the table
	// itself where it is clustered on it), or "" where the dialect needs none.
	PrimaryKeyHint() string
	// DeleteOldest returns a statement that deletes at most limit rows of table with the
	// smallest values of the integer column pk that are >= the single bind parameter.
	DeleteOldest(table, pk string, limit int) string
	// Retryable reports whether err is a transient conflict (deadlock, lock wait timeout,
	// serialization failure, busy) after which the statement or transaction may be retried.
	Retryable(err error) bool
	// TimestampFromUnix returns the expression that turns arg (a bind parameter holding
	// seconds since the epoch, UTC) into the value of a Timestamp column, e.g. in VALUES.
	TimestampFromUnix(arg string) string
	// TimestampToUnix returns the expression that reads the Timestamp column col back as an
	// integer of seconds since the epoch, the value TimestampFromUnix stored.
	TimestampToUnix(col string) string
}
