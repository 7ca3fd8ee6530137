package insertbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/runner"
)

// The document family runs the reference's MongoDB mode (iibench.py --dbms=mongo): one
// collection per table, each row a document
//
//	{_id: transactionid (int64), dateandtime: date, cashregisterid: int32, customerid: int32,
//	 product: int32, price: int32, data: string}
//
// with the reference's field names (iibench.py:191-196, its defaults: the scripts pass the
// short ones only with short=yes, np.sh:36-40) and types (Python ints of int32 size, the
// batch's time as a BSON date, iibench.py:548-552, :790). l.x creates the reference's three
// indexes, pc, cpc and pdc (iibench.py:321-339). The steps the reference cannot run on MongoDB
// (the deletes, the point queries, min and max of transactionid) are the SQL backend's
// statements translated to the document API (docs/fidelity.md).

// The documents' field names.
const (
	fieldID    = "_id"
	fieldTime  = "dateandtime"
	fieldCash  = "cashregisterid"
	fieldCust  = "customerid"
	fieldProd  = "product"
	fieldPrice = "price"
	fieldData  = "data"
)

// docFields is how many fields a document has.
const docFields = 7

// docIndexFields are the fields of each index, in index order.
var docIndexFields = [numIndexes][]string{
	{fieldID},
	{fieldProd, fieldCust, fieldPrice},
	{fieldCash, fieldCust, fieldPrice},
	{fieldPrice, fieldTime, fieldCust},
}

// docIndexNames are the indexes' names: MongoDB's for _id, the reference's for the others
// (iibench.py:329, :334, :339).
var docIndexNames = [numIndexes]string{"_id_", "pc", "cpc", "pdc"}

// docBackend is the Insert Benchmark on a document database.
type docBackend struct {
	db doc.DB
	p  *Params

	// Per index: its keys, and the options of the finds through it, boxed once so that a find
	// allocates none: the sort (its keys), the hint (its keys; nil where hints are ignored),
	// the range query's projection, and the projections of a read through it (its fields and
	// _id) and of a count (its fields alone).
	keys                           [numIndexes]bson.D
	sorts, hints                   [numIndexes]any
	rangeProj, readProj, countProj [numIndexes]any
	// byID and byIDDesc sort on _id; idOnly projects it; pointProj is the point query's.
	byID, byIDDesc, idOnly, pointProj any
}

// emptyFilter is the filter {}.
var emptyFilter = bson.Raw{5, 0, 0, 0, 0}

func newDocBackend(db doc.DB, p *Params) *docBackend {
	b := &docBackend{db: db, p: p,
		byID: bson.D{{Key: fieldID, Value: 1}}, byIDDesc: bson.D{{Key: fieldID, Value: -1}},
		idOnly:    bson.D{{Key: fieldID, Value: 1}},
		pointProj: bson.D{{Key: fieldProd, Value: 1}, {Key: fieldData, Value: 1}}}
	for idx, fields := range docIndexFields {
		var read, count bson.D
		for _, f := range fields {
			b.keys[idx] = append(b.keys[idx], bson.E{Key: f, Value: 1})
			read = append(read, bson.E{Key: f, Value: 1})
			count = append(count, bson.E{Key: f, Value: 1})
		}
		if idx != idxPK {
			read = append(read, bson.E{Key: fieldID, Value: 1})
			count = append(count, bson.E{Key: fieldID, Value: 0})
			b.rangeProj[idx] = b.rangeProjection(idx)
		}
		b.sorts[idx], b.readProj[idx], b.countProj[idx] = b.keys[idx], read, count
		if !db.Server().IgnoresHints {
			b.hints[idx] = b.keys[idx]
		}
	}
	return b
}

// rangeProjection is the projection of the range query on index idx: the reference's
// (iibench.py:576, :633, :690), whose market query leaves out price; the corrected variant
// returns the index's three fields on every index, as the SQL queries do.
func (b *docBackend) rangeProjection(idx int) bson.D {
	fields := docIndexFields[idx]
	if idx == idxMarket && !b.p.Corrected() {
		fields = fields[:2]
	}
	var proj bson.D
	for _, f := range fields {
		proj = append(proj, bson.E{Key: f, Value: 1})
	}
	return append(proj, bson.E{Key: fieldID, Value: 0})
}

// hint returns the hint of a query through index idx: its keys, as the reference's
// (iibench.py:582, :639, :696), or nil for a server that ignores hints (FerretDB).
func (b *docBackend) hint(idx int) any { return b.hints[idx] }

func (b *docBackend) retryable(err error) bool { return doc.Retryable(err) }

// rowLocks implements backend: a delete deletes the documents it finds by _id, and a document
// two deletes find is deleted, and counted, by one of them.
func (b *docBackend) rowLocks() bool { return true }

// storedTime implements backend: dateandtime is stored in milliseconds of the unix second.
func (b *docBackend) storedTime(sec int64) int64 { return sec }

// assignsKeys implements backend: with a collection per client _id is the row's insert number
// plus one.
func (b *docBackend) assignsKeys() bool { return !b.p.SharedTable }

// checkLimits implements backend: the driver splits an insert of more documents or bytes than
// the server takes in one command (100,000 documents, 48 MB) into several, as pymongo does.
func (b *docBackend) checkLimits(context.Context) error { return nil }

// createTable drops t's collection, as the reference does (iibench.py:341-345); the first
// insert creates it.
func (b *docBackend) createTable(ctx context.Context, t *table) error {
	if err := b.db.DropCollection(ctx, t.name); err != nil {
		return runner.OpError("create collection "+t.name, err)
	}
	return nil
}

func (b *docBackend) newSession(context.Context, bool) (session, error) {
	s := &docSession{b: b}
	s.insertFn = func(ctx context.Context) error { return s.c.InsertMany(ctx, s.docs) }
	s.rangeFn = s.runRange
	s.pointFn = s.runPoint
	s.deleteFn = s.runDelete
	s.takeID = func(raw bson.Raw) error {
		id, err := int64Field(raw, fieldID)
		s.ids = append(s.ids, id)
		return err
	}
	return s, nil
}

// docSession is one client of the document database: the driver's pool is shared, so a
// session holds only its buffers and the operation in flight, for the functions it hands to
// Transact (made once, so that an operation allocates no closure).
type docSession struct {
	b *docBackend
	t *table
	c doc.Collection

	docs   []bson.Raw
	ends   []int
	arena  []byte
	filter []byte
	ids    []int64
	keys   []string // array indexes as BSON keys: "0", "1", ...

	// The operation in flight.
	idx, limit, found int
	low               int64
	deleted           int64

	insertFn, rangeFn, pointFn, deleteFn func(context.Context) error
	takeID                               func(bson.Raw) error
}

// coll returns t's collection.
func (s *docSession) coll(t *table) doc.Collection {
	if s.t != t {
		s.t, s.c = t, s.b.db.Collection(t.name)
	}
	return s.c
}

// fresh implements session: a document session has no connection of its own.
func (s *docSession) fresh() {}

func (s *docSession) close() error { return nil }

// prepareQueries implements session: there is nothing to prepare.
func (s *docSession) prepareQueries(context.Context, *table, bool) error { return nil }

// insert inserts rows as one ordered insert_many (iibench.py:1316), in a transaction when
// the configuration asks for them (iibench.py:1315-1320: --mongo_trx). With a collection per
// client _id is the row's insert number plus one (Row.ID as generated); with a shared
// collection the next values of the table's counter, in insert order, as a KV engine's.
func (s *docSession) insert(ctx context.Context, t *table, rows []Row) error {
	s.coll(t)
	if s.b.p.SharedTable {
		first := t.maxID.Add(int64(len(rows))) - int64(len(rows)) + 1
		for i := range rows {
			rows[i].ID = first + int64(i)
		}
	}
	s.buildDocs(rows)
	if err := s.b.db.Transact(ctx, s.insertFn); err != nil {
		return runner.OpError("insert into "+t.name, err)
	}
	t.inserted.Add(int64(len(rows)))
	return nil
}

// buildDocs encodes rows as documents in the session's arena.
func (s *docSession) buildDocs(rows []Row) {
	s.arena, s.ends = s.arena[:0], s.ends[:0]
	for i := range rows {
		s.arena = appendRowDoc(s.arena, &rows[i])
		s.ends = append(s.ends, len(s.arena))
	}
	s.docs = s.docs[:0]
	start := 0
	for _, end := range s.ends {
		s.docs = append(s.docs, bson.Raw(s.arena[start:end:end]))
		start = end
	}
}

// appendRowDoc appends r as a document, its fields in the reference's order (iibench.py:550-552,
// _id first as the driver puts it).
func appendRowDoc(dst []byte, r *Row) []byte {
	i, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, fieldID, r.ID)
	dst = bsoncore.AppendDateTimeElement(dst, fieldTime, r.DateAndTime*1000)
	dst = bsoncore.AppendInt32Element(dst, fieldCash, int32(r.CashRegisterID))
	dst = bsoncore.AppendInt32Element(dst, fieldCust, int32(r.CustomerID))
	dst = bsoncore.AppendInt32Element(dst, fieldProd, int32(r.ProductID))
	dst = bsoncore.AppendInt32Element(dst, fieldPrice, int32(r.Price))
	dst = appendStringElement(dst, fieldData, r.Data)
	dst, _ = bsoncore.AppendDocumentEnd(dst, i)
	return dst
}

// appendStringElement appends a string element of value v without making a string of it.
func appendStringElement(dst []byte, key string, v []byte) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, key)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)+1))
	dst = append(dst, v...)
	return append(dst, 0)
}

// createIndexes creates the reference's three indexes one after the other (iibench.py:321-339),
// as the reference on MongoDB in both variants.
func (s *docSession) createIndexes(ctx context.Context, t *table) (int64, error) {
	c := s.coll(t)
	for idx := idxMarket; idx <= idxPDC; idx++ {
		if err := c.CreateIndex(ctx, doc.Index{Name: docIndexNames[idx], Keys: s.b.keys[idx]}); err != nil {
			return 0, runner.OpError("create the indexes of "+t.name, err)
		}
	}
	t.indexed.Store(true)
	return t.live(), nil
}

// deleteOldest deletes up to n documents with the smallest _ids >= low: the SQL backend's
// delete on PostgreSQL (iibench.py:1181-1183: delete ... where transactionid in (select
// transactionid ... >= low order by transactionid limit n)) as a find of their _ids, sorted
// on _id, and a delete of those _ids, in one transaction when the configuration asks for them.
// The reference has no delete on MongoDB (iibench.py:1149-1151).
func (s *docSession) deleteOldest(ctx context.Context, t *table, low int64, n int) (int64, error) {
	s.coll(t)
	s.low, s.limit, s.deleted = low, n, 0
	if err := s.b.db.Transact(ctx, s.deleteFn); err != nil {
		return 0, runner.OpError("delete from "+t.name, err)
	}
	return s.deleted, nil
}

// runDelete is deleteOldest's unit of work.
func (s *docSession) runDelete(ctx context.Context) error {
	s.ids, s.deleted = s.ids[:0], 0
	s.filter = appendIDFrom(s.filter[:0], s.low)
	if _, err := s.c.Find(ctx, bson.Raw(s.filter), doc.Find{Sort: s.b.byID, Projection: s.b.idOnly,
		Limit: int64(s.limit)}, s.takeID); err != nil {
		return err
	}
	if len(s.ids) == 0 {
		return nil
	}
	s.filter = s.appendIDsIn(s.filter[:0], s.ids)
	d, err := s.c.DeleteMany(ctx, bson.Raw(s.filter))
	s.deleted = d
	return err
}

// minID and maxID are the SQL backend's select min|max(transactionid) (iibench.py:838-841)
// translated: the first _id in _id order, ascending or descending.
func (s *docSession) minID(ctx context.Context, t *table) (int64, bool, error) {
	return s.edgeID(ctx, t, s.b.byID, "min")
}

func (s *docSession) maxID(ctx context.Context, t *table) (int64, bool, error) {
	return s.edgeID(ctx, t, s.b.byIDDesc, "max")
}

func (s *docSession) edgeID(ctx context.Context, t *table, sort any, fn string) (int64, bool, error) {
	var out struct {
		ID int64 `bson:"_id"`
	}
	found, err := s.coll(t).FindOne(ctx, emptyFilter, doc.Find{Sort: sort, Projection: s.b.idOnly}, &out)
	if err != nil {
		return 0, false, runner.OpError(fmt.Sprintf("%s(_id) of %s", fn, t.name), err)
	}
	return out.ID, found, nil
}

// rangeQuery is the reference's range query on MongoDB (iibench.py:574-586, :631-643,
// :688-700): the documents whose index's first field is >= start (on registersegment too: the
// reference's MongoDB query has $gte where its SQL has >), sorted on the index's fields,
// limit documents, projected, with the index as hint; in a transaction when the
// configuration asks for them (iibench.py:1023-1032).
func (s *docSession) rangeQuery(ctx context.Context, t *table, idx int, start int64, limit int) (int, error) {
	s.coll(t)
	s.filter = appendFieldFrom(s.filter[:0], docIndexFields[idx][0], int32(start))
	s.idx, s.limit, s.found = idx, limit, 0
	if err := s.b.db.Transact(ctx, s.rangeFn); err != nil {
		return s.found, runner.OpError("range query on "+t.name+"."+docIndexNames[idx], err)
	}
	return s.found, nil
}

func (s *docSession) runRange(ctx context.Context) error {
	b := s.b
	n, err := s.c.Find(ctx, bson.Raw(s.filter), doc.Find{Sort: b.sorts[s.idx], Projection: b.rangeProj[s.idx],
		Limit: int64(s.limit), Hint: b.hint(s.idx)}, nil)
	s.found = n
	return err
}

// pointQuery is the SQL backend's point query (iibench.py:748-751: select transactionid,
// productid, data ... where transactionid in (...)) translated: a find of the _ids, projected
// to _id, product and data. The reference has none on MongoDB (iibench.py:772-774).
func (s *docSession) pointQuery(ctx context.Context, t *table, ids []int64) (int, error) {
	s.coll(t)
	s.filter = s.appendIDsIn(s.filter[:0], ids)
	s.found = 0
	if err := s.b.db.Transact(ctx, s.pointFn); err != nil {
		return s.found, runner.OpError("point query on "+t.name, err)
	}
	return s.found, nil
}

func (s *docSession) runPoint(ctx context.Context) error {
	n, err := s.c.Find(ctx, bson.Raw(s.filter), doc.Find{Projection: s.b.pointProj}, nil)
	s.found = n
	return err
}

// appendFieldFrom appends the filter {field: {$gte: v}}.
func appendFieldFrom(dst []byte, field string, v int32) []byte {
	i, dst := bsoncore.AppendDocumentStart(dst)
	j, dst := bsoncore.AppendDocumentElementStart(dst, field)
	dst = bsoncore.AppendInt32Element(dst, "$gte", v)
	dst, _ = bsoncore.AppendDocumentEnd(dst, j)
	dst, _ = bsoncore.AppendDocumentEnd(dst, i)
	return dst
}

// appendIDFrom appends the filter {_id: {$gte: low}}.
func appendIDFrom(dst []byte, low int64) []byte {
	i, dst := bsoncore.AppendDocumentStart(dst)
	j, dst := bsoncore.AppendDocumentElementStart(dst, fieldID)
	dst = bsoncore.AppendInt64Element(dst, "$gte", low)
	dst, _ = bsoncore.AppendDocumentEnd(dst, j)
	dst, _ = bsoncore.AppendDocumentEnd(dst, i)
	return dst
}

// appendIDsIn appends the filter {_id: {$in: [ids...]}}.
func (s *docSession) appendIDsIn(dst []byte, ids []int64) []byte {
	for len(s.keys) < len(ids) {
		s.keys = append(s.keys, strconv.Itoa(len(s.keys)))
	}
	i, dst := bsoncore.AppendDocumentStart(dst)
	j, dst := bsoncore.AppendDocumentElementStart(dst, fieldID)
	k, dst := bsoncore.AppendArrayElementStart(dst, "$in")
	for n, id := range ids {
		dst = bsoncore.AppendInt64Element(dst, s.keys[n], id)
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, k)
	dst, _ = bsoncore.AppendDocumentEnd(dst, j)
	dst, _ = bsoncore.AppendDocumentEnd(dst, i)
	return dst
}
