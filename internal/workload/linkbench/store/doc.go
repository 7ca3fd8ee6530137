package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
)

// The document store has two layouts, one per variant, each its reference's MongoDB store
// (docs/linkbench.md, Document engines; docs/fidelity.md, LinkBench on the document family):
//
// The reference variant is Percona's LinkbenchX (LinkStoreMongoDBv2.java, with its
// config/LinkConfigMongoDBv2.properties: transaction_support_level 1, which on MongoDB runs
// without transactions), its documents keyed by an ObjectId with a unique index on the
// SQL primary key:
//
//	linktable  {_id: ObjectId, link_type, id1, id2, data, time, version, visibility}
//	           unique {link_type, id1, id2}; id1_type {id1, link_type, visibility, time, id2, version, data}
//	counttable {_id: ObjectId, id, link_type, count, time, version}   unique {id, link_type}
//	nodetable  {_id: id, type, version, time, data}
//
// The corrected variant is mdcallag/linkbench's LinkStoreMongoDb2.java (with
// config/LinkConfigMongoDb2.properties and its README's index), keyed by the SQL primary key
// in a binary _id, its writes in transactions where the configuration has them:
//
//	linktable  {_id: BinData(link_type id1 id2), id1, link_type, id2, visibility, version, time, data}
//	           id1_type {id1, link_type, visibility, time, id2, version, data}
//	counttable {_id: BinData(id1 link_type), id, link_type, count, version, time}
//	nodetable  {_id: id, type, version, time, data}
//
// Integers are BSON int64 but visibility and a link's version (int32), as the references'
// Java types make them; node types and times are int32.

// Field names.
const (
	fID      = "_id"
	fID1     = "id1"
	fID2     = "id2"
	fType    = "link_type"
	fVis     = "visibility"
	fData    = "data"
	fTime    = "time"
	fVersion = "version"
	fCountID = "id" // counttable's id1
	fCount   = "count"
	fNodeTyp = "type"
)

// Binary _id sizes of the corrected variant (LinkStoreMongoDb2.java:990-1009).
const (
	linkIDLen  = 24
	countIDLen = 16
)

// forkMaxRetries is the corrected variant's retry limit: LinkStoreMongoDb2 makes at most
// max_retries (16) attempts (LinkStoreMongoDb2.java:83, :1105).
const forkMaxRetries = 15

// maxDupRetries bounds the retries of an upsert that lost a race for its key to a concurrent
// upsert (a duplicate key error, which MongoDB retries on the server itself).
const maxDupRetries = 16

// forkRetryCodes are the MongoDB error codes the corrected variant retries besides a
// TransientTransactionError (LinkStoreMongoDb2.java:294-307).
var forkRetryCodes = [...]int{24, 46, 112, 117, 208, 225, 226, 239, 246, 251}

// forkRetryable reports whether the corrected variant retries err.
func forkRetryable(err error) bool {
	if doc.Retryable(err) {
		return true
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return false
	}
	for _, code := range forkRetryCodes {
		if se.HasErrorCode(code) {
			return true
		}
	}
	return false
}

// idIndex is MongoDB's index on _id.
func idIndex() doc.Index { return doc.Index{Name: "_id_", Keys: bson.D{{Key: fID, Value: int32(1)}}} }

// id1TypeIndex is id1_type: the covering index of both references (LinkStoreMongoDBv2.java:257-267,
// mdcallag README.md:601), named as MongoDB names it by default.
func id1TypeIndex() doc.Index {
	return doc.Index{Name: "id1_1_link_type_1_visibility_1_time_1_id2_1_version_1_data_1", Keys: ascending(
		fID1, fType, fVis, fTime, fID2, fVersion, fData)}
}

// refLinkKey is the reference variant's unique index on a link's key (LinkStoreMongoDBv2.java:249-256).
func refLinkKey() doc.Index {
	return doc.Index{Name: "link_type_1_id1_1_id2_1", Keys: ascending(fType, fID1, fID2), Unique: true}
}

// refCountKey is the reference variant's unique index on a count's key (LinkStoreMongoDBv2.java:268-274).
func refCountKey() doc.Index {
	return doc.Index{Name: "id_1_link_type_1", Keys: ascending(fCountID, fType), Unique: true}
}

// ascending returns index keys of fields, each ascending (the references' Integer 1).
func ascending(fields ...string) bson.D {
	d := make(bson.D, len(fields))
	for i, f := range fields {
		d[i] = bson.E{Key: f, Value: int32(1)}
	}
	return d
}

// atomicUpdates reports whether the server applies an update to a document atomically, as
// MongoDB does. FerretDB 1.24 does not: it reads, changes and writes the document back, so
// that of concurrent $inc of one document some are lost (of 800 by 8 clients, 69 counted on
// SQLite, 127 on PostgreSQL), which no reference's count survives.
func atomicUpdates(info doc.ServerInfo) bool { return !info.LosesConcurrentUpdates }

// lock locks and returns the mutex of (id1, linkType) where the server needs one (nil
// elsewhere, and nothing is locked).
func (s *docStore) lock(id1, linkType int64) *sync.Mutex {
	if s.locks == nil {
		return nil
	}
	mu := &s.locks[stripe(id1, linkType)]
	mu.Lock()
	return mu
}

// docStore is the Store of a document engine.
type docStore struct {
	db                   doc.DB
	links, counts, nodes doc.Collection
	opt                  Options
	// fork: the corrected variant (mdcallag's LinkStoreMongoDb2), else LinkbenchX's.
	fork    bool
	indexed atomic.Bool // id1_type exists
	// locks, on a server whose updates are not atomic, serialize the link writes of one
	// (id1, link_type) in the process (nil elsewhere).
	locks *[lockStripes]sync.Mutex
	// nextNode is the id AddNode assigns next: the references keep a counter in the client
	// (NodeAutoIncrement, nodeIdGen), as MongoDB has no auto-increment.
	nextNode atomic.Int64
	// Constant documents and shapes of the queries (read-only): GET_LINKS_LIST's find in
	// each variant, the sort and projection of the query for the largest node id.
	refList, forkList doc.Find
	idSort, nodeInit  bson.Raw
}

func newDocStore(db doc.DB, opt Options) *docStore {
	s := &docStore{db: db, opt: opt, fork: opt.Corrected,
		links: db.Collection(linkTable), counts: db.Collection(countTable), nodes: db.Collection(nodeTable)}
	s.indexed.Store(!opt.DeferIndex)
	s.nextNode.Store(1)
	if !atomicUpdates(db.Server()) {
		s.locks = new([lockStripes]sync.Mutex)
	}
	byTime := new(bsonBuf).reset().i32(fTime, -1).done()
	s.refList = doc.Find{Sort: byTime}
	// The corrected variant's GET_LINKS_LIST reads id1_type alone (LinkStoreMongoDb2.java:606-615).
	s.forkList = doc.Find{Sort: byTime, Projection: new(bsonBuf).reset().i32(fID1, 1).i32(fType, 1).i32(fID2, 1).
		i32(fVis, 1).i32(fData, 1).i32(fVersion, 1).i32(fTime, 1).i32(fID, 0).done()}
	s.idSort = new(bsonBuf).reset().i32(fID, -1).done()
	// The corrected variant's query for the largest node id projects it (LinkStoreMongoDb2.java:817-821).
	s.nodeInit = new(bsonBuf).reset().i32(fID, 1).done()
	return s
}

// Create creates the indexes (id1_type unless DeferIndex), which creates linktable and
// counttable; nodetable comes with its first insert. The reference variant's are LinkbenchX's
// three, the corrected variant's id1_type alone (mdcallag README.md:597-601).
func (s *docStore) Create(ctx context.Context) error {
	type ix struct {
		c  doc.Collection
		ix doc.Index
	}
	var ixs []ix
	if !s.fork {
		ixs = append(ixs, ix{s.links, refLinkKey()})
	}
	if !s.opt.DeferIndex {
		ixs = append(ixs, ix{s.links, id1TypeIndex()})
	}
	if !s.fork {
		ixs = append(ixs, ix{s.counts, refCountKey()})
	}
	for _, x := range ixs {
		if err := x.c.CreateIndex(ctx, x.ix); err != nil {
			return fmt.Errorf("create linkbench schema: %w", err)
		}
	}
	return nil
}

// CreateIndex builds id1_type.
func (s *docStore) CreateIndex(ctx context.Context) error {
	if s.indexed.Load() {
		return fmt.Errorf("create index %s: it exists (Options.DeferIndex was not set)", indexName)
	}
	if err := s.links.CreateIndex(ctx, id1TypeIndex()); err != nil {
		return fmt.Errorf("create index %s: %w", indexName, err)
	}
	s.indexed.Store(true)
	return nil
}

// FinishLoad makes AddNode assign ids from nextNodeID on (or later, past the ids it gave).
func (s *docStore) FinishLoad(ctx context.Context, nextNodeID int64) error {
	s.advanceNode(nextNodeID)
	return ctx.Err()
}

// advanceNode raises the next node id to at least next.
func (s *docStore) advanceNode(next int64) {
	for {
		cur := s.nextNode.Load()
		if cur >= next || s.nextNode.CompareAndSwap(cur, next) {
			return
		}
	}
}

// Client returns a client with its own buffers.
func (s *docStore) Client(ctx context.Context) (Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("linkbench client: %w", err)
	}
	return newDocClient(s), nil
}

// Rows counts the documents of each collection through its indexes: linktable through the
// link key (the reference variant's unique index, the corrected variant's _id) and through
// id1_type, counttable through its key, nodetable through _id. Where the reference variant's
// collections also have an _id index beside the key, both are counted, and a difference is an
// error.
func (s *docStore) Rows(ctx context.Context) (Rows, error) {
	r := Rows{LinksByIndex: -1}
	var err error
	linkKey, countKey := idIndex(), idIndex()
	if !s.fork {
		linkKey, countKey = refLinkKey(), refCountKey()
	}
	if r.LinksByPK, err = s.countThrough(ctx, s.links, linkKey); err != nil {
		return r, err
	}
	if s.indexed.Load() {
		if r.LinksByIndex, err = s.countThrough(ctx, s.links, id1TypeIndex()); err != nil {
			return r, err
		}
	}
	if r.Counts, err = s.countThrough(ctx, s.counts, countKey); err != nil {
		return r, err
	}
	if r.Nodes, err = s.countThrough(ctx, s.nodes, idIndex()); err != nil {
		return r, err
	}
	if s.fork {
		return r, nil
	}
	for _, c := range []struct {
		coll doc.Collection
		n    int64
	}{{s.links, r.LinksByPK}, {s.counts, r.Counts}} {
		n, err := s.countThrough(ctx, c.coll, idIndex())
		if err != nil {
			return r, err
		}
		if n != c.n {
			return r, fmt.Errorf("%s holds %d documents through _id and %d through its key", c.coll.Name(), n, c.n)
		}
	}
	return r, nil
}

// countThrough counts the documents of c through index ix: a find sorted on its keys,
// projected to them (so that MongoDB reads the index alone), forced with a hint (sent with the
// setting hints=send; FerretDB, which ignores hints, reads an index for its sort).
func (s *docStore) countThrough(ctx context.Context, c doc.Collection, ix doc.Index) (int64, error) {
	n, err := c.Find(ctx, bson.D{}, s.through(ix), nil)
	if err != nil {
		return int64(n), fmt.Errorf("count %s through %s: %w", c.Name(), ix.Name, err)
	}
	return int64(n), nil
}

// through is the shape of a find that reads index ix in order: sorted on its keys, projected
// to them, with its hint.
func (s *docStore) through(ix doc.Index) doc.Find {
	proj := bson.D{}
	id := false
	for _, k := range ix.Keys {
		proj = append(proj, bson.E{Key: k.Key, Value: int32(1)})
		id = id || k.Key == fID
	}
	if !id {
		proj = append(proj, bson.E{Key: fID, Value: int32(0)})
	}
	return doc.Find{Sort: ix.Keys, Projection: proj, Hint: ix.Name}
}

// bsonBuf builds a BSON document into a buffer it reuses, without the allocations of bson.D's
// interface values.
type bsonBuf struct {
	b    []byte
	open []int32 // the starts of the (sub)documents not ended yet
}

// reset starts a new document.
func (w *bsonBuf) reset() *bsonBuf {
	w.b, w.open = w.b[:0], w.open[:0]
	var i int32
	i, w.b = bsoncore.AppendDocumentStart(w.b)
	w.open = append(w.open, i)
	return w
}

// doc starts the subdocument key.
func (w *bsonBuf) doc(key string) *bsonBuf {
	var i int32
	i, w.b = bsoncore.AppendDocumentElementStart(w.b, key)
	w.open = append(w.open, i)
	return w
}

// array starts the array key; its elements are added with item.
func (w *bsonBuf) array(key string) *bsonBuf {
	var i int32
	i, w.b = bsoncore.AppendArrayElementStart(w.b, key)
	w.open = append(w.open, i)
	return w
}

// item adds element k of an array: v, an int64.
func (w *bsonBuf) item(k int, v int64) *bsonBuf {
	w.b = append(w.b, byte(bsoncore.TypeInt64))
	w.b = strconv.AppendInt(w.b, int64(k), 10)
	w.b = bsoncore.AppendInt64(append(w.b, 0), v)
	return w
}

// end ends the innermost open (sub)document or array.
func (w *bsonBuf) end() *bsonBuf {
	last := len(w.open) - 1
	// AppendDocumentEnd fails only for a start that is not in the buffer.
	w.b, _ = bsoncore.AppendDocumentEnd(w.b, w.open[last])
	w.open = w.open[:last]
	return w
}

// done ends every open document and returns the document, valid until the next reset.
func (w *bsonBuf) done() bson.Raw {
	for len(w.open) > 0 {
		w.end()
	}
	return bson.Raw(w.b)
}

func (w *bsonBuf) i64(key string, v int64) *bsonBuf {
	w.b = bsoncore.AppendInt64Element(w.b, key, v)
	return w
}

func (w *bsonBuf) i32(key string, v int32) *bsonBuf {
	w.b = bsoncore.AppendInt32Element(w.b, key, v)
	return w
}

// bin adds binary data of the generic subtype, as the references' byte[] (nil is empty).
func (w *bsonBuf) bin(key string, v []byte) *bsonBuf {
	w.b = bsoncore.AppendBinaryElement(w.b, key, 0, v)
	return w
}

// value adds v as it is (an _id read back).
func (w *bsonBuf) value(key string, v bsoncore.Value) *bsonBuf {
	w.b = bsoncore.AppendValueElement(w.b, key, v)
	return w
}

// linkID appends the corrected variant's _id of a link: link_type, id1, id2, each 8 bytes
// big-endian (LinkStoreMongoDb2.java:990-997).
func (w *bsonBuf) linkID(key string, linkType, id1, id2 int64) *bsonBuf {
	var b [linkIDLen]byte
	putBE(b[0:], linkType)
	putBE(b[8:], id1)
	putBE(b[16:], id2)
	return w.bin(key, b[:])
}

// countID appends the corrected variant's _id of a count: id1, link_type
// (LinkStoreMongoDb2.java:1003-1009).
func (w *bsonBuf) countID(key string, id1, linkType int64) *bsonBuf {
	var b [countIDLen]byte
	putBE(b[0:], id1)
	putBE(b[8:], linkType)
	return w.bin(key, b[:])
}

// putBE writes v big-endian into b[:8], as Java's ByteBuffer.putLong.
func putBE(b []byte, v int64) {
	u := uint64(v)
	for i := 7; i >= 0; i-- {
		b[i] = byte(u)
		u >>= 8
	}
}
