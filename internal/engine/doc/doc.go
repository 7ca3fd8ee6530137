// Package doc defines the document engine family: a database of collections of BSON documents
// that speaks MongoDB's wire protocol (MongoDB itself with any storage engine, Percona Server
// for MongoDB, FerretDB). The interface is the small part of MongoDB's API the workloads use:
// insert many, find with filter, sort, projection and limit, count, delete many, update one
// with upsert, create index, and multi-document transactions where the server has them. It is
// implemented once, over the official Go driver (go.mongodb.org/mongo-driver/v2); the engines
// of the family (mongodb, ferretdb) differ in how the server is found or started and in what it
// supports.
//
// Documents, filters, sorts, projections and updates are BSON values as the driver takes them
// (bson.D keeps the order of fields, which a sort and an index key need).
package doc

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
)

// DB is an open document database: the benchmark database on one server. It is safe for
// concurrent use by many goroutines.
type DB interface {
	engine.Engine
	// Collection returns the benchmark database's collection called name (which need not
	// exist yet: the first insert or CreateIndex creates it).
	Collection(name string) Collection
	// Collections lists the benchmark database's collections, sorted.
	Collections(ctx context.Context) ([]string, error)
	// DropCollection drops a collection and its indexes; dropping one that does not exist is
	// not an error.
	DropCollection(ctx context.Context, name string) error
	// Concern is the configuration's write and read concern and transaction setting.
	Concern() Concern
	// Transact runs fn as one multi-document transaction when the configuration asks for
	// transactions (Concern().Transactions), retrying fn where the driver retries a
	// transaction (a transient transaction error, an unknown commit result); otherwise it
	// runs fn once, as is. fn must use the ctx it is given for every operation that belongs to
	// the transaction.
	Transact(ctx context.Context, fn func(ctx context.Context) error) error
	// Server describes the server: who it is (MongoDB, FerretDB) and its storage engine.
	Server() ServerInfo
}

// Collection is one collection of the benchmark database. Every operation takes the
// configuration's write or read concern.
type Collection interface {
	// Name is the collection's name.
	Name() string
	// InsertMany inserts docs (a slice of documents) in one ordered insert command, or as many
	// as the driver splits it into; the first error stops it.
	InsertMany(ctx context.Context, docs any) error
	// InsertUnordered is InsertMany with ordered false: the server may apply the documents in
	// any order, and a failing document does not stop the others.
	InsertUnordered(ctx context.Context, docs any) error
	// InsertOne inserts one document.
	InsertOne(ctx context.Context, doc any) error
	// Find calls each with every document that matches filter, in the order of o.Sort, and
	// returns how many it saw. The document is valid during the call only. A nil each reads
	// and counts the documents.
	Find(ctx context.Context, filter any, o Find, each func(bson.Raw) error) (int, error)
	// FindOne decodes the first document that matches filter (in the order of o.Sort) into
	// out; found is false when none matches.
	FindOne(ctx context.Context, filter any, o Find, out any) (found bool, err error)
	// Count counts the documents that match filter (countDocuments), at most limit when
	// limit > 0.
	Count(ctx context.Context, filter any, limit int64) (int64, error)
	// DeleteMany deletes every document that matches filter and returns how many.
	DeleteMany(ctx context.Context, filter any) (int64, error)
	// DeleteOne deletes the first document that matches filter and returns how many (0 or 1).
	DeleteOne(ctx context.Context, filter any) (int64, error)
	// UpdateOne applies update (an update document: $set, $inc...) to the first document that
	// matches filter; with upsert, inserts one when none matches.
	UpdateOne(ctx context.Context, filter, update any, upsert bool) (Updated, error)
	// UpdateMany applies update to every document that matches filter.
	UpdateMany(ctx context.Context, filter, update any) (Updated, error)
	// CreateIndex creates a secondary index called name on keys (bson.D of field: 1 or -1).
	CreateIndex(ctx context.Context, ix Index) error
	// Indexes lists the collection's index names, sorted (MongoDB's _id_ among them).
	Indexes(ctx context.Context) ([]string, error)
}

// Find shapes a find command. The zero value finds every match in natural order.
type Find struct {
	// Sort orders the result (bson.D of field: 1 or -1); nil: natural order.
	Sort any
	// Projection selects fields (bson.D of field: 1, or _id: 0); nil: whole documents.
	Projection any
	// Limit caps the number of documents; 0: none.
	Limit int64
	// Hint names the index the query must use (its name, or its keys as bson.D); nil: the
	// server chooses. It is sent only with Concern.Hints (setting hints=send), which a server
	// that ignores hints (FerretDB) is refused before the run (ServerInfo.IgnoresHints).
	Hint any
	// BatchSize is the number of documents per reply batch; 0: the server's default.
	BatchSize int32
}

// Index is a secondary index.
type Index struct {
	Name   string
	Keys   bson.D
	Unique bool
}

// Updated is what an update did.
type Updated struct {
	Matched, Modified, Upserted int64
}

// Concern is how the configuration writes and reads, as the references expose it (iibench.py
// --mongo_w, --mongo_j, --mongo_r, --mongo_trx). The zero value takes the server's defaults.
type Concern struct {
	// W is the write concern's w: "" (the server's default), a number of members ("1"), or
	// "majority".
	W string
	// Journal asks that writes are acknowledged after they are in the journal (j: true).
	Journal bool
	// Read is the read concern level: "" (the server's default), "local", "available",
	// "majority", "linearizable" or "snapshot".
	Read string
	// Transactions runs the workloads' multi-statement units (Transact) as multi-document
	// transactions, which need a replica set or a sharded cluster.
	Transactions bool
	// Hints says whether Find's hints are sent (setting hints=send); without, the server plans
	// every query itself.
	Hints bool
}

// ServerInfo says what the server is: what the report and the results name it.
type ServerInfo struct {
	// Product is the server's own name: "MongoDB", "FerretDB", "Percona Server for MongoDB".
	Product string
	// Version is the server's version (buildInfo's version; FerretDB's own for FerretDB).
	Version string
	// StorageEngine is the storage engine: WiredTiger, inMemory, or FerretDB's backend
	// ("FerretDB on SQLite", "FerretDB on PostgreSQL").
	StorageEngine string
	// ReplicaSet is the replica set's name; "" for a standalone.
	ReplicaSet string
	// IgnoresHints, IgnoresConcerns and NoTransactions are the server's documented gaps
	// (FerretDB 1.24 has all three): a configuration that asks for them is refused before
	// the run.
	IgnoresHints, IgnoresConcerns, NoTransactions bool
	// LosesConcurrentUpdates says that two concurrent updates of one document may both read
	// it before either writes, so that one is lost (FerretDB 1.24: 800 concurrent $inc of one
	// document counted 69 on SQLite and 127 on PostgreSQL): a workload that needs them
	// serialises them itself.
	LosesConcurrentUpdates bool
}

// IsDuplicateKey reports whether err is a duplicate key error (E11000) of an insert or an
// upsert.
func IsDuplicateKey(err error) bool { return isDuplicateKey(err) }

// Retryable reports whether err is a transient conflict that the references retry: a write
// conflict between concurrent transactions or a transient transaction error.
func Retryable(err error) bool { return isRetryable(err) }
