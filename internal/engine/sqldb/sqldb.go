// Package sqldb holds the SQL engine family: database/sql engines and their dialects. A workload
// writes its SQL once against the Dialect, which supplies what differs between engines (DDL
// types, placeholders, index hints, delete-oldest and upsert syntax, transactions and row locks,
// which errors are retryable).
package sqldb

import (
	"database/sql"
	"strconv"
	"strings"

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
	VarBinary // variable length bytes with a maximum length, which may be indexed
	Blob      // bytes of up to size bytes (see Dialect.Type), not indexed
)

// Kind is which DBMS a Dialect is for. A workload switches on it only for the statements it
// spells its own way on each (as its reference spells them); a difference that a method of
// Dialect names (Server, Returning, ...) is asked of that method.
type Kind int

// The kinds of dialect.
const (
	SQLite   Kind = iota + 1 // SQLite
	Postgres                 // PostgreSQL
	MySQL                    // MySQL and MariaDB (InnoDB, MyRocks)
)

// String returns the kind's name, which is its Dialect's Name: sqlite, postgres, mysql.
func (k Kind) String() string {
	switch k {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// DialectOf returns the Dialect of kind k (MySQL's leaves the tables' storage engine to the
// server's default), or nil for an unknown kind. An open engine's is DB.Dialect.
func DialectOf(k Kind) Dialect {
	switch k {
	case SQLite:
		return sqliteDialect{}
	case Postgres:
		return postgresDialect{}
	case MySQL:
		return mysqlDialect{}
	}
	return nil
}

// Dialect is what differs between SQL engines. A workload asks the method that names the
// difference, or switches on Kind for the statements it spells per DBMS; Name is for messages.
type Dialect interface {
	// Name is the dialect's name, for messages: sqlite, postgres, mysql (Kind.String).
	Name() string
	// Kind is which DBMS the dialect is for (see Kind).
	Kind() Kind
	// Server reports whether the engine is a database server that clients reach over
	// connections (PostgreSQL, MySQL): it has a wire protocol, and several connections and
	// processes share its database. False for SQLite, a library in the process on one file.
	Server() bool
	// Placeholder returns the bind parameter marker for the i-th (1-based) argument.
	Placeholder(i int) string
	// Type returns the DDL of a column type; size is the maximum length for VarChar, VarBinary
	// and Blob (in bytes for the binary types).
	Type(t ColType, size int) string
	// AutoIncrementPK returns the column definition of an append-only integer primary key
	// assigned by the engine in insert order (auto_increment, bigserial, integer primary key).
	AutoIncrementPK() string
	// TableOptions is appended to CREATE TABLE (e.g. " ENGINE=InnoDB"); may be empty.
	TableOptions() string
	// IndexHint returns the clause that forces index on table (placed after the table name in
	// FROM, or in a single-table UPDATE; for DELETE see DeleteWithHint), or "" where the dialect
	// has none.
	IndexHint(index string) string
	// PrimaryKeyHint returns the clause that makes a query use the primary key (or the table
	// itself where it is clustered on it), or "" where the dialect needs none.
	PrimaryKeyHint() string
	// DeleteOldest returns a statement that deletes at most limit rows of table with the
	// smallest values of the integer column pk that are >= the single bind parameter.
	DeleteOldest(table, pk string, limit int) string
	// DeleteOldestByKey returns a statement that deletes what DeleteOldest deletes, written as
	// the Insert Benchmark's reference writes it: DELETE ... ORDER BY pk ASC LIMIT where the
	// dialect has it (MySQL), else DELETE ... WHERE pk IN (SELECT pk ... ORDER BY pk ASC LIMIT
	// limit); DeleteOldest may use a faster form.
	DeleteOldestByKey(table, pk string, limit int) string
	// AddIndexes returns the statements that create the secondary indexes of table: one
	// ALTER TABLE that adds them all where the storage engine builds them in one pass of the
	// table (InnoDB), else one statement per index (indexes.go).
	AddIndexes(table string, indexes []Index) []string
	// SequenceCache returns the statement that makes each session take n values at a time from
	// the sequence of table's AutoIncrementPK column col, or "" where the column has no
	// sequence (PostgreSQL has one).
	SequenceCache(table, col string, n int) string
	// Retryable reports whether err is a transient conflict (deadlock, lock wait timeout,
	// serialization failure, busy) after which the statement or transaction may be retried.
	Retryable(err error) bool
	// TimestampFromUnix returns the expression that turns arg (a bind parameter holding
	// seconds since the epoch, UTC) into the value of a Timestamp column, e.g. in VALUES.
	TimestampFromUnix(arg string) string
	// TimestampToUnix returns the expression that reads the Timestamp column col back as an
	// integer of seconds since the epoch, the value TimestampFromUnix stored.
	TimestampToUnix(col string) string

	// ClusteredPK is appended to CREATE TABLE (after TableOptions) for a table with a declared,
	// composite PRIMARY KEY, so that the table itself is stored in primary key order, as InnoDB
	// and MyRocks always store it: " WITHOUT ROWID" for SQLite; "" elsewhere.
	ClusteredPK() string
	// BeginWrite returns the statement that starts a transaction that writes, executed on one
	// connection (and ended with COMMIT or ROLLBACK). SQLite's takes the write lock at once, so
	// that no later statement of the transaction fails to upgrade a read lock.
	BeginWrite() string
	// BeginSnapshot returns the statements that start, on one connection, a read transaction
	// whose snapshot is kept until COMMIT or ROLLBACK (taken by its first read at the latest),
	// so that the engine keeps every row version it may read: what a long-running analytical
	// query does to purge, vacuum and checkpoints (the Insert Benchmark's
	// --htap-transaction-seconds). See SnapshotBlocksWriters for where it would block writers.
	BeginSnapshot() []string
	// ForUpdate returns the clause appended to a SELECT in a transaction that locks the rows it
	// reads until the transaction ends (" FOR UPDATE"), or "" where the transaction of
	// BeginWrite already excludes every other writer (SQLite).
	ForUpdate() string
	// Upsert returns an INSERT of one row of cols into table, whose values are the bind
	// parameters 1 to len(cols), that instead updates the existing row when one with the same
	// key (the columns of the primary key) exists: set is the assignment list ("a = expr, ...")
	// applied to that row, in which a column qualified with the table's name (table.col) is the
	// existing row's value and placeholders are numbered from len(cols)+1. (MySQL applies set on
	// a conflict with any unique key; key names the primary key for the others.)
	Upsert(table string, cols, key []string, set string) string
	// Returning returns the clause appended to an INSERT that makes it return the value the
	// engine assigned to col as a result row per row inserted (" RETURNING col"; col "*" returns
	// every column), or "" where the engine's LastInsertId gives that value instead.
	Returning(col string) string
	// AdvanceSequence returns a statement with one bind parameter, next, after which the engine
	// assigns the AutoIncrementPK column col of table values of at least next and above every
	// value it holds; "" where the engine already does so after explicit values were inserted
	// (it continues after the largest value the column holds).
	AdvanceSequence(table, col string) string
	// DeleteWithHint returns a DELETE of the rows of table that match where (a condition, with
	// bind parameters), found through the access path that hint (from IndexHint or
	// PrimaryKeyHint) forces.
	DeleteWithHint(table, hint, where string) string
	// DuplicateKey reports whether err (or an error it wraps) is a primary key or unique
	// constraint violation.
	DuplicateKey(err error) bool
	// MaxParams is the largest number of bind parameters a statement may have.
	MaxParams() int
	// RowValueSeek reports whether the planner reads a row-value comparison on an index's
	// leading columns, (a, b) >= (?, ?), as one range of that index in order. Where it does not,
	// a workload spells the seek as (a = ? AND b >= ?) OR (a > ?).
	RowValueSeek() bool
	// IndexOrderSettings returns the statements that, run first in a transaction, make the
	// planner read a query's ORDER BY from the index that gives it rather than scan the table
	// and sort, for dialects without index hints (IndexHint returns ""); nil for the others.
	IndexOrderSettings() []string
}

// Bind replaces each ? of q with d's placeholder, numbered from 1, so that a workload writes
// its statements once with ? and runs them on every dialect.
func Bind(d Dialect, q string) string {
	var sb strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			sb.WriteString(d.Placeholder(n))
			continue
		}
		sb.WriteRune(c)
	}
	return sb.String()
}
