package iibench

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/runner"
)

// The document family, after the Java client of tmcallaghan/iibench-mongodb
// (src/jmongoiibench.java; docs/fidelity.md, iiBench on the document family). The collection is
// purchases_index; each row is one document, its fields in the order the client puts them:
//
//	_id             ObjectId   (made by the client, as the Java driver makes it)
//	dateandtime     int64      milliseconds since the epoch (System.currentTimeMillis)
//	cashregisterid  int32
//	customerid      int32
//	productid       int32
//	price           double     (rand x MaxPrice + customerid) / 100, unrounded
//	cf1..cfN        string     the padding fields
//
// The secondary indexes are the client's, ascending, with the names MongoDB gives them
// (price_1_customerid_1, ...). A batch is one insertMany; a query thread runs its index's query
// as the client sends it: the seek spelled as an $or of its clauses, the four fields the client
// projects, a limit, no sort (the corrected variant sorts on the index's fields and projects
// them, so that the query reads the index in its order).

// docFields are the document's field names of the key columns.
var docFields = [...]string{colID: "_id", colPrice: "price", colCustomer: "customerid", colRegister: "cashregisterid", colDate: "dateandtime"}

// maxDocIDs bounds the _ids one process makes: their count has 48 bits (objectID).
const maxDocIDs = 1 << 48

// docBackend is iiBench on a document engine.
type docBackend struct {
	db   doc.DB
	coll doc.Collection
	p    *Params
	ids  *atomic.Uint64 // the _ids this process handed out
	// base is the shard's part of every _id it makes: its index, above the 48 bits of the count.
	base uint64
	pads []string // the padding fields' names: cf1..cfN
	// keys are each index's fields in order, ascending: its key, and its sort; proj projects
	// each index's fields, and no _id but the primary key's.
	keys, proj [numIndexes]bson.D
}

// queriedFields are the fields the Java client's queries project (jmongoiibench.java:427-429).
var queriedFields = bson.D{{Key: "cashregisterid", Value: 1}, {Key: "dateandtime", Value: 1},
	{Key: "customerid", Value: 1}, {Key: "price", Value: 1}, {Key: "_id", Value: 0}}

func newDocBackend(db doc.DB, p *Params) *docBackend {
	b := &docBackend{db: db, coll: db.Collection(tableName), p: p, ids: new(atomic.Uint64),
		base: uint64(p.Shard.Index) << 48}
	for f := 1; f <= p.CharFields; f++ {
		b.pads = append(b.pads, "cf"+strconv.Itoa(f))
	}
	for idx := range indexes {
		for _, c := range indexes[idx].cols {
			b.keys[idx] = append(b.keys[idx], bson.E{Key: docFields[c], Value: 1})
			b.proj[idx] = append(b.proj[idx], bson.E{Key: docFields[c], Value: 1})
		}
		if idx != idxPK {
			b.proj[idx] = append(b.proj[idx], bson.E{Key: "_id", Value: 0})
		}
	}
	return b
}

// indexName is the name MongoDB gives an index of ascending fields, as the Java client leaves it.
func (b *docBackend) indexName(idx int) string {
	var parts []string
	for _, e := range b.keys[idx] {
		parts = append(parts, e.Key+"_1")
	}
	return strings.Join(parts, "_")
}

// create drops the collection and creates the secondary indexes of p, as the Java client does
// (jmongoiibench.java:205-226); the collection itself is created by the first index or insert.
func (b *docBackend) create(ctx context.Context) error {
	if err := b.db.DropCollection(ctx, tableName); err != nil {
		return runner.OpError("create "+tableName, err)
	}
	for _, idx := range b.p.Indexes()[1:] {
		if err := b.coll.CreateIndex(ctx, doc.Index{Name: b.indexName(idx), Keys: b.keys[idx]}); err != nil {
			return runner.OpError("create "+tableName, err)
		}
	}
	return nil
}

func (b *docBackend) retryable(err error) bool { return doc.Retryable(err) }

func (b *docBackend) newSession(context.Context) (session, error) {
	s := &docSession{b: b}
	s.insertFn, s.eachFn = s.insertMany, s.each
	for idx := range s.find {
		s.find[idx] = b.queryShape(idx)
	}
	return s, nil
}

// queryShape is the find of index idx's query, but its limit. The Java client's queries
// (jmongoiibench.java:427-429, :558) project its four fields and do not sort; the primary key,
// which it does not query, reads whole documents in _id order as the reference's SELECT *
// (iibench.py@48cd738e:260). The corrected variant sorts each on its index's fields and
// projects those only, as its statements select them.
func (b *docBackend) queryShape(idx int) doc.Find {
	switch {
	case b.p.Corrected():
		return doc.Find{Sort: b.keys[idx], Projection: b.proj[idx]}
	case idx == idxPK:
		return doc.Find{Sort: b.keys[idx]}
	}
	return doc.Find{Projection: queriedFields}
}

// docSession is one query or insert thread's buffers: the documents of a batch, back to back,
// and a query's filter. The engine's connection pool is shared.
type docSession struct {
	b       *docBackend
	buf     []byte
	offs    []int
	docs    []bson.Raw
	filter  []byte
	lastSec int64 // the seconds of the last _id: a thread's _ids never go back with the clock
	find    [numIndexes]doc.Find
	// out and idx are the query in flight, which each reads into.
	out []Key
	idx int
	// insertFn and eachFn are insertMany and each, bound once.
	insertFn func(context.Context) error
	eachFn   func(bson.Raw) error
	// docsArg and filterArg box docs and filter for the driver's calls.
	docsArg   boxer[[]bson.Raw, bson.Raw]
	filterArg boxer[bson.Raw, byte]
}

// boxer boxes a slice into the any a driver's call takes once for as long as the slice's
// header stays the same: boxing a slice allocates, and a session sends the same buffers again.
type boxer[S ~[]E, E any] struct {
	v any
	p *E
	n int
}

func (b *boxer[S, E]) box(s S) any {
	if len(s) == 0 {
		return s
	}
	if &s[0] != b.p || len(s) != b.n {
		b.v, b.p, b.n = s, &s[0], len(s)
	}
	return b.v
}

func (s *docSession) close() error { return nil }

// insert inserts rows as one insertMany (one transaction when the configuration asks for
// transactions, doc.DB.Transact), each row a document with a new _id.
func (s *docSession) insert(ctx context.Context, rows []Row) error {
	n := uint64(len(rows))
	first := s.b.ids.Add(n) - n
	s.buf, s.offs = s.buf[:0], s.offs[:0]
	for i := range rows {
		s.offs = append(s.offs, len(s.buf))
		s.buf = s.appendDoc(s.buf, &rows[i], first+uint64(i))
	}
	s.offs = append(s.offs, len(s.buf))
	s.docs = s.docs[:0]
	for i := range rows {
		s.docs = append(s.docs, s.buf[s.offs[i]:s.offs[i+1]])
	}
	return runner.OpError("insert into "+tableName, s.b.db.Transact(ctx, s.insertFn))
}

func (s *docSession) insertMany(ctx context.Context) error {
	return s.b.coll.InsertUnordered(ctx, s.docsArg.box(s.docs))
}

// objectID returns the _id of the n-th document this process makes, made at ms: an ObjectId
// as the driver makes one, the seconds first, then, instead of the process's random bytes and
// a 3-byte counter that wraps, the shard and the count (8 bytes), so that each thread's _ids
// increase in the order it inserts, which verification relies on.
func (s *docSession) objectID(ms int64, n uint64) bson.ObjectID {
	sec := max(ms/1000, s.lastSec)
	s.lastSec = sec
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], uint32(sec))
	binary.BigEndian.PutUint64(id[4:], s.b.base|n)
	return id
}

// appendDoc appends the document of row r with the n-th _id.
func (s *docSession) appendDoc(dst []byte, r *Row, n uint64) []byte {
	p := s.b.p
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = elemObjectID(dst, "_id", s.objectID(r.DateAndTime, n))
	dst = elemInt64(dst, "dateandtime", r.DateAndTime)
	dst = elemInt32(dst, "cashregisterid", r.CashRegisterID)
	dst = elemInt32(dst, "customerid", r.CustomerID)
	dst = elemInt32(dst, "productid", r.ProductID)
	dst = elemDouble(dst, "price", r.PriceRaw)
	for f, name := range s.b.pads {
		dst = elemString(dst, name, r.Pad[f*p.CharLength:(f+1)*p.CharLength])
	}
	return endDocument(dst, start)
}

// query runs the query of index idx from seek: the documents matching the seek (appendSeek),
// in the shape of queryShape, up to limit, read to the end, their keys appended to out[:0].
func (s *docSession) query(ctx context.Context, idx int, seek Key, limit int, out []Key) ([]Key, error) {
	s.filter = s.b.appendSeek(s.filter[:0], idx, seek)
	f := s.find[idx]
	f.Limit = int64(limit)
	s.out, s.idx = out[:0], idx
	_, err := s.b.coll.Find(ctx, s.filterArg.box(bson.Raw(s.filter)), f, s.eachFn)
	out, s.out = s.out, nil
	if err != nil {
		return out, runner.OpError("query "+indexes[idx].name, err)
	}
	return out, nil
}

func (s *docSession) each(raw bson.Raw) error {
	s.out = append(s.out, docKey(raw, s.idx))
	return nil
}

// appendSeek appends the filter of index idx's query from seek. A secondary index's is the Java
// client's (jmongoiibench.java:464-554): an $or of one clause per column, the columns before
// it equal to the seek's, that column after it, the last at or after it:
//
//	{$or: [{price: p, dateandtime: t, customerid: {$gte: c}}, {price: p, dateandtime: {$gt: t}}, {price: {$gt: p}}]}
//
// The primary key's, which the client does not query, is {_id: {$gte: the _id of the seek's
// instant}}.
func (b *docBackend) appendSeek(dst []byte, idx int, seek Key) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	if idx == idxPK {
		var id bson.ObjectID
		binary.BigEndian.PutUint32(id[:4], uint32(seek[0]/1000))
		dst, in := appendEmbedded(dst, bson.TypeEmbeddedDocument, "_id")
		dst = endDocument(elemObjectID(dst, "$gte", id), in)
		return endDocument(dst, start)
	}
	cols := indexes[idx].cols
	dst, or := appendEmbedded(dst, bson.TypeArray, "$or")
	for j := len(cols) - 1; j >= 0; j-- {
		var clause, cmp int
		dst, clause = appendEmbedded(dst, bson.TypeEmbeddedDocument, arrayKeys[len(cols)-1-j])
		for i := 0; i < j; i++ {
			dst = appendKeyValue(dst, docFields[cols[i]], cols[i], seek[i])
		}
		op := "$gt"
		if j == len(cols)-1 {
			op = "$gte"
		}
		dst, cmp = appendEmbedded(dst, bson.TypeEmbeddedDocument, docFields[cols[j]])
		dst = endDocument(appendKeyValue(dst, op, cols[j], seek[j]), cmp)
		dst = endDocument(dst, clause)
	}
	dst = endDocument(dst, or)
	return endDocument(dst, start)
}

// arrayKeys are the keys of an array's first elements.
var arrayKeys = [...]string{"0", "1", "2"}

// appendKeyValue appends the element key holding the value v of column c of a Key: a price as
// the double whose bits v is, dateandtime as an int64, the other ints as int32.
func appendKeyValue(dst []byte, key string, c int, v int64) []byte {
	switch c {
	case colPrice:
		return elemDouble(dst, key, math.Float64frombits(uint64(v)))
	case colDate:
		return elemInt64(dst, key, v)
	}
	return elemInt32(dst, key, v)
}

// appendEmbedded appends the header of an embedded document or array element key and the place
// of its length, which it returns for endDocument.
func appendEmbedded(dst []byte, t bson.Type, key string) ([]byte, int) {
	dst = elemHeader(dst, t, key)
	return append(dst, 0, 0, 0, 0), len(dst)
}

// badKey is the value of a key column that a document lacks or holds with another type: no
// entry a row makes has it, so verification counts the entry as differing.
const badKey = math.MinInt64

// docKey returns the key of index idx that a document holds: its columns in index order, a
// price as the bits of its double; on the primary key the _id's first 4 bytes, then its last 8.
func docKey(raw bson.Raw, idx int) Key {
	var k Key
	for i, c := range indexes[idx].cols {
		k[i] = badKey
		v, err := raw.LookupErr(docFields[c])
		if err != nil {
			continue
		}
		switch c {
		case colID:
			if id, ok := v.ObjectIDOK(); ok {
				k[0], k[1] = int64(binary.BigEndian.Uint32(id[:4])), int64(binary.BigEndian.Uint64(id[4:]))
			}
		case colPrice:
			if f, ok := v.DoubleOK(); ok {
				k[i] = int64(math.Float64bits(f))
			}
		case colDate:
			if n, ok := v.Int64OK(); ok {
				k[i] = n
			}
		default:
			if n, ok := v.Int32OK(); ok {
				k[i] = int64(n)
			}
		}
	}
	return k
}

// elemHeader appends an element's type and key; the elem functions append an element.
func elemHeader(dst []byte, t bson.Type, key string) []byte {
	dst = append(dst, byte(t))
	dst = append(dst, key...)
	return append(dst, 0)
}

func elemInt32(dst []byte, key string, v int64) []byte {
	return binary.LittleEndian.AppendUint32(elemHeader(dst, bson.TypeInt32, key), uint32(int32(v)))
}

func elemInt64(dst []byte, key string, v int64) []byte {
	return binary.LittleEndian.AppendUint64(elemHeader(dst, bson.TypeInt64, key), uint64(v))
}

func elemDouble(dst []byte, key string, v float64) []byte {
	return binary.LittleEndian.AppendUint64(elemHeader(dst, bson.TypeDouble, key), math.Float64bits(v))
}

func elemString(dst []byte, key string, v []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(elemHeader(dst, bson.TypeString, key), uint32(len(v)+1))
	dst = append(dst, v...)
	return append(dst, 0)
}

func elemObjectID(dst []byte, key string, id bson.ObjectID) []byte {
	return append(elemHeader(dst, bson.TypeObjectID, key), id[:]...)
}

// endDocument ends the document (or array) whose length is at dst[start:]: its terminator, then
// its length.
func endDocument(dst []byte, start int) []byte {
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}
