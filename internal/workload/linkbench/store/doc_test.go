package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
)

// TestDocEngines runs the conformance suite and the concurrent hammer on FerretDB on SQLite
// and on PostgreSQL, in both variants: LinkbenchX's layout and commands, and mdcallag's
// (whose transactions FerretDB does not have: doc.DB.Transact runs each unit as it is).
func TestDocEngines(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			e := &testEngine{name: s.Name + "/" + v.name, docDB: db, fork: v.corrected}
			t.Run(v.name, func(t *testing.T) {
				t.Run("links", func(t *testing.T) { testLinks(t, e) })
				t.Run("link list", func(t *testing.T) { testLinkList(t, e) })
				t.Run("multiget", func(t *testing.T) { testMultiget(t, e) })
				t.Run("nodes", func(t *testing.T) { testNodes(t, e) })
				t.Run("payloads", func(t *testing.T) { testPayloads(t, e) })
				t.Run("load", func(t *testing.T) { testLoad(t, e) })
				t.Run("deferred index", func(t *testing.T) { testDeferredIndex(t, e) })
				t.Run("hammer", func(t *testing.T) { testHammer(t, e, v.corrected) })
			})
		}
	})
}

// txKey marks the context of a unit run by recDB.Transact.
type txKey struct{}

// recDB is a document engine whose collections record every command the store sends (its
// shape: the collection, the documents' fields with their BSON types and values, the
// options). With tx, its Concern asks for transactions and Transact records the unit's start
// and end and gives the unit a marked context, so that the log shows which commands ran in a
// unit's context; the commands still go to the server, outside a transaction (FerretDB has
// none).
type recDB struct {
	doc.DB
	tx  bool
	mu  sync.Mutex
	log []string
}

func (d *recDB) add(ctx context.Context, format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if ctx.Value(txKey{}) != nil {
		s = "tx " + s
	}
	d.mu.Lock()
	d.log = append(d.log, s)
	d.mu.Unlock()
}

// take returns the log and empties it.
func (d *recDB) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.log
	d.log = nil
	return l
}

func (d *recDB) Collection(name string) doc.Collection {
	return recColl{Collection: d.DB.Collection(name), d: d}
}

func (d *recDB) Concern() doc.Concern {
	c := d.DB.Concern()
	c.Transactions = d.tx
	return c
}

func (d *recDB) Transact(ctx context.Context, fn func(ctx context.Context) error) error {
	if !d.tx {
		return d.DB.Transact(ctx, fn)
	}
	d.add(ctx, "begin")
	err := fn(context.WithValue(ctx, txKey{}, true))
	if err != nil {
		d.add(ctx, "abort")
	} else {
		d.add(ctx, "commit")
	}
	return err
}

// recColl records the commands of one collection.
type recColl struct {
	doc.Collection
	d *recDB
}

func (c recColl) InsertMany(ctx context.Context, docs any) error {
	ds := docs.([]bson.Raw)
	c.d.add(ctx, "insertMany %s %d %s", c.Name(), len(ds), shape(ds[0]))
	return c.Collection.InsertMany(ctx, docs)
}

func (c recColl) InsertUnordered(ctx context.Context, docs any) error {
	ds := docs.([]bson.Raw)
	c.d.add(ctx, "insertUnordered %s %d %s", c.Name(), len(ds), shape(ds[0]))
	return c.Collection.InsertUnordered(ctx, docs)
}

func (c recColl) InsertOne(ctx context.Context, d any) error {
	c.d.add(ctx, "insertOne %s %s", c.Name(), shape(d))
	return c.Collection.InsertOne(ctx, d)
}

func (c recColl) Find(ctx context.Context, filter any, o doc.Find, each func(bson.Raw) error) (int, error) {
	c.d.add(ctx, "find %s %s%s", c.Name(), shape(filter), findShape(o))
	return c.Collection.Find(ctx, filter, o, each)
}

func (c recColl) FindOne(ctx context.Context, filter any, o doc.Find, out any) (bool, error) {
	c.d.add(ctx, "findOne %s %s%s", c.Name(), shape(filter), findShape(o))
	return c.Collection.FindOne(ctx, filter, o, out)
}

func (c recColl) Count(ctx context.Context, filter any, limit int64) (int64, error) {
	c.d.add(ctx, "count %s %s limit %d", c.Name(), shape(filter), limit)
	return c.Collection.Count(ctx, filter, limit)
}

func (c recColl) DeleteMany(ctx context.Context, filter any) (int64, error) {
	c.d.add(ctx, "deleteMany %s %s", c.Name(), shape(filter))
	return c.Collection.DeleteMany(ctx, filter)
}

func (c recColl) DeleteOne(ctx context.Context, filter any) (int64, error) {
	c.d.add(ctx, "deleteOne %s %s", c.Name(), shape(filter))
	return c.Collection.DeleteOne(ctx, filter)
}

func (c recColl) UpdateOne(ctx context.Context, filter, update any, upsert bool) (doc.Updated, error) {
	up := ""
	if upsert {
		up = " upsert"
	}
	c.d.add(ctx, "updateOne %s %s %s%s", c.Name(), shape(filter), shape(update), up)
	return c.Collection.UpdateOne(ctx, filter, update, upsert)
}

func (c recColl) UpdateMany(ctx context.Context, filter, update any) (doc.Updated, error) {
	c.d.add(ctx, "updateMany %s %s %s", c.Name(), shape(filter), shape(update))
	return c.Collection.UpdateMany(ctx, filter, update)
}

func (c recColl) CreateIndex(ctx context.Context, ix doc.Index) error {
	unique := ""
	if ix.Unique {
		unique = " unique"
	}
	c.d.add(ctx, "createIndex %s %s%s", c.Name(), shape(ix.Keys), unique)
	return c.Collection.CreateIndex(ctx, ix)
}

// findShape renders a find's options.
func findShape(o doc.Find) string {
	var b strings.Builder
	if o.Sort != nil {
		b.WriteString(" sort " + shape(o.Sort))
	}
	if o.Projection != nil {
		b.WriteString(" projection " + shape(o.Projection))
	}
	if o.Limit != 0 {
		fmt.Fprintf(&b, " limit %d", o.Limit)
	}
	if o.Hint != nil {
		fmt.Fprintf(&b, " hint %v", o.Hint)
	}
	return b.String()
}

// shape renders a document: its fields in order, int32 values as numbers, int64 values with
// an L, binary data as bin(length), a time field (of the clock) as T.
func shape(d any) string {
	raw, ok := d.(bson.Raw)
	if !ok {
		var err error
		if raw, err = bson.Marshal(d); err != nil {
			return fmt.Sprintf("(%v)", err)
		}
	}
	var b strings.Builder
	writeShape(&b, bsoncore.Document(raw), false)
	return b.String()
}

func writeShape(b *strings.Builder, d bsoncore.Document, array bool) {
	elems, err := d.Elements()
	if err != nil {
		b.WriteString("(corrupt)")
		return
	}
	open, end := "{", "}"
	if array {
		open, end = "[", "]"
	}
	b.WriteString(open)
	for i, e := range elems {
		if i > 0 {
			b.WriteString(",")
		}
		if !array {
			b.WriteString(e.Key() + ":")
		}
		v := e.Value()
		switch {
		case e.Key() == fTime && v.Type == bsoncore.TypeInt64:
			b.WriteString("T")
		case v.Type == bsoncore.TypeInt32:
			fmt.Fprintf(b, "%d", v.Int32())
		case v.Type == bsoncore.TypeInt64:
			fmt.Fprintf(b, "%dL", v.Int64())
		case v.Type == bsoncore.TypeBinary:
			_, data := v.Binary()
			fmt.Fprintf(b, "bin(%d)", len(data))
		case v.Type == bsoncore.TypeEmbeddedDocument:
			writeShape(b, v.Document(), false)
		case v.Type == bsoncore.TypeArray:
			writeShape(b, bsoncore.Document(v.Array()), true)
		default:
			b.WriteString(v.Type.String())
		}
	}
	b.WriteString(end)
}

// docStep is one store call of the command tables and the commands each variant sends for
// it, as the references send them (docs/fidelity.md lists where they differ). A corrected
// variant's unit of work is between begin and commit (or abort), its commands marked tx.
type docStep struct {
	name      string
	run       func(ctx context.Context, st Store, c Client) error
	ref, fork []string
}

func docSteps() []docStep {
	lt := int64(lt0)
	l := Link{ID1: 10, LinkType: lt, ID2: 11, Visibility: Visible, Data: []byte("a"), Time: 1000, Version: 3}
	n := Node{Type: NodeType, Version: 9, Time: 77, Data: []byte("node")}
	const (
		linkKey   = "{link_type:123456789L,id1:10L,id2:11L}"
		countKey  = "{id:10L,link_type:123456789L}"
		linkSetOn = "$setOnInsert:{_id:bin(24),id1:10L,link_type:123456789L,id2:11L}"
		linkSet   = "$set:{visibility:1,version:3,time:T,data:bin(1)}"
		countUp   = "{$setOnInsert:{_id:bin(16),id:10L,link_type:123456789L},$inc:{count:%s,version:%s},$set:{time:T}} upsert"
		id1Type   = "{id1:1,link_type:1,visibility:1,time:1,id2:1,version:1,data:1}"
	)
	write := func(add bool) func(ctx context.Context, st Store, c Client) error {
		return func(ctx context.Context, _ Store, c Client) error {
			var err error
			if add {
				_, err = c.AddLink(ctx, &l)
			} else {
				_, err = c.UpdateLink(ctx, &l)
			}
			return err
		}
	}
	refCount := []string{
		"updateOne counttable " + countKey + " {$set:{id:10L,link_type:123456789L,time:T}} upsert",
	}
	return []docStep{
		{name: "create", run: func(ctx context.Context, st Store, _ Client) error { return st.Create(ctx) },
			// LinkStoreMongoDBv2.java:249-274; mdcallag README.md:601.
			ref: []string{
				"createIndex linktable {link_type:1,id1:1,id2:1} unique",
				"createIndex linktable " + id1Type,
				"createIndex counttable {id:1,link_type:1} unique",
			},
			fork: []string{"createIndex linktable " + id1Type}},
		{name: "ADD_LINK of a new link", run: write(true),
			// LinkStoreMongoDBv2.java:716-759, :541-594; LinkStoreMongoDb2.java:347-383.
			ref: append([]string{
				"updateOne linktable " + linkKey + " {$setOnInsert:{id1:10L,id2:11L,link_type:123456789L,data:bin(1),time:T,version:3},$set:{visibility:1}} upsert",
			}, append(refCount, "updateOne counttable "+countKey+" {$inc:{count:1L}}")...),
			fork: []string{
				"begin",
				"tx updateOne linktable {_id:bin(24),visibility:1} {" + linkSetOn + "," + linkSet + "} upsert",
				"tx updateOne counttable {_id:bin(16)} " + fmt.Sprintf(countUp, "1L", "1"),
				"commit",
			}},
		{name: "UPDATE_LINK of a visible link", run: write(false),
			// LinkStoreMongoDBv2.java:1027-1038, :596-633; LinkStoreMongoDb2.java:322-326.
			ref: []string{
				"updateOne linktable " + linkKey + " {$setOnInsert:{id1:10L,id2:11L,link_type:123456789L,data:bin(1),time:T,version:3},$set:{visibility:1}} upsert",
				"updateOne linktable " + linkKey + " {$set:{visibility:1,data:bin(1),time:T,version:3}}",
			},
			fork: []string{
				"begin",
				"tx updateOne linktable {_id:bin(24),visibility:1} {" + linkSetOn + "," + linkSet + "} upsert",
				"commit",
			}},
		{name: "DELETE_LINK of a visible link", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.DeleteLink(ctx, 10, lt, 11, false)
			return err
		},
			// LinkStoreMongoDBv2.java:814-978; LinkStoreMongoDb2.java:441-489.
			ref: append(append([]string{
				"findOne linktable " + linkKey,
				"updateOne linktable {_id:objectID} {$set:{visibility:0}}",
			}, refCount...),
				"updateOne counttable "+countKey+" {$inc:{count:-1,version:1}}",
				"updateOne counttable {id:10L,link_type:123456789L,count:{$lt:0}} {$set:{count:0}}",
				"findOne counttable "+countKey),
			fork: []string{
				"begin",
				"tx updateOne linktable {_id:bin(24),visibility:1} {$set:{visibility:0}}",
				"tx updateOne counttable {_id:bin(16)} " + fmt.Sprintf(countUp, "-1L", "1L"),
				"commit",
			}},
		{name: "ADD_LINK of a hidden link", run: write(true),
			ref: append([]string{
				"updateOne linktable " + linkKey + " {$setOnInsert:{id1:10L,id2:11L,link_type:123456789L,data:bin(1),time:T,version:3},$set:{visibility:1}} upsert",
			}, append(refCount,
				"updateOne counttable "+countKey+" {$inc:{count:1,version:1}}",
				"updateOne linktable "+linkKey+" {$set:{visibility:1,data:bin(1),time:T,version:3}}")...),
			// The upsert's duplicate key aborts the unit; the update of the hidden link follows.
			fork: []string{
				"begin",
				"tx updateOne linktable {_id:bin(24),visibility:1} {" + linkSetOn + "," + linkSet + "} upsert",
				"abort",
				"begin",
				"tx updateOne linktable {_id:bin(24),visibility:{$ne:1}} {" + linkSetOn + "," + linkSet + "}",
				"tx updateOne counttable {_id:bin(16)} " + fmt.Sprintf(countUp, "1L", "1"),
				"commit",
			}},
		{name: "MULTIGET_LINK", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.MultigetLinks(ctx, 10, lt, []int64{11, 12})
			return err
		},
			// LinkStoreMongoDBv2.java:1085-1104; mdcallag LinkStore.java:122-134, LinkStoreMongoDb2.java:570-571.
			ref: []string{
				"count linktable {id1:10L,link_type:123456789L,id2:{$in:[11L,12L]}} limit 0",
				"find linktable {id1:10L,link_type:123456789L,id2:{$in:[11L,12L]}}",
			},
			fork: []string{"findOne linktable {_id:bin(24)}", "findOne linktable {_id:bin(24)}"}},
		{name: "GET_LINKS_LIST, the second page", run: func(ctx context.Context, _ Store, c Client) error {
			_, _, err := c.GetLinkList(ctx, 10, lt, math.MaxInt64, 1, 10)
			return err
		},
			// LinkStoreMongoDBv2.java:1151-1169 (offset 1: the count is 0, no find);
			// LinkStoreMongoDb2.java:599-625.
			ref: []string{
				"count linktable {id1:10L,link_type:123456789L,visibility:1,time:{$gte:0L,$lte:9223372036854775807L}} limit 11",
			},
			fork: []string{
				"begin",
				"tx find linktable {id1:10L,link_type:123456789L,time:{$gte:0L,$lte:9223372036854775807L},visibility:1} sort {time:-1} " +
					"projection {id1:1,link_type:1,id2:1,visibility:1,data:1,version:1,time:1,_id:0} limit 11",
				"commit",
			}},
		{name: "GET_LINKS_LIST", run: func(ctx context.Context, _ Store, c Client) error {
			_, _, err := c.GetLinkList(ctx, 10, lt, math.MaxInt64, 0, 10)
			return err
		},
			ref: []string{
				"count linktable {id1:10L,link_type:123456789L,visibility:1,time:{$gte:0L,$lte:9223372036854775807L}} limit 10",
				"find linktable {id1:10L,link_type:123456789L,visibility:1,time:{$gte:0L,$lte:9223372036854775807L}} sort {time:-1} limit 10",
			},
			fork: []string{
				"begin",
				"tx find linktable {id1:10L,link_type:123456789L,time:{$gte:0L,$lte:9223372036854775807L},visibility:1} sort {time:-1} " +
					"projection {id1:1,link_type:1,id2:1,visibility:1,data:1,version:1,time:1,_id:0} limit 10",
				"commit",
			}},
		{name: "COUNT_LINK", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.CountLinks(ctx, 10, lt)
			return err
		},
			// LinkStoreMongoDBv2.java:1232-1236; LinkStoreMongoDb2.java:762-763.
			ref:  []string{"find counttable " + countKey},
			fork: []string{"findOne counttable {_id:bin(16)}"}},
		{name: "ADD_NODE", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.AddNode(ctx, &n)
			return err
		},
			// LinkStoreMongoDBv2.java:1412-1428; LinkStoreMongoDb2.java:842-858.
			ref: []string{"insertUnordered nodetable 1 {_id:1L,type:2048,version:9L,time:77,data:bin(4)}"},
			fork: []string{
				"begin",
				"tx insertUnordered nodetable 1 {_id:1L,type:2048,version:9L,time:77,data:bin(4)}",
				"commit",
			}},
		{name: "GET_NODE", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.GetNode(ctx, 1)
			return err
		},
			// LinkStoreMongoDBv2.java:1473-1476; LinkStoreMongoDb2.java:883-887.
			ref:  []string{"find nodetable {_id:1L}"},
			fork: []string{"findOne nodetable {_id:1L}"}},
		{name: "UPDATE_NODE", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.UpdateNode(ctx, &Node{ID: 1, Type: NodeType, Version: 10, Time: 78, Data: []byte("n2")})
			return err
		},
			// LinkStoreMongoDBv2.java:1524-1535; LinkStoreMongoDb2.java:914-928 (without the session).
			ref:  []string{"updateOne nodetable {_id:1L,type:2048} {$set:{version:10L,time:78,data:bin(2)}}"},
			fork: []string{"updateOne nodetable {_id:1L,type:2048} {$set:{version:10L,time:78,data:bin(2)}}"}},
		{name: "DELETE_NODE", run: func(ctx context.Context, _ Store, c Client) error {
			_, err := c.DeleteNode(ctx, 1)
			return err
		},
			// LinkStoreMongoDBv2.java:1573-1577; LinkStoreMongoDb2.java:957-965.
			ref:  []string{"deleteMany nodetable {_id:1L,type:2048}"},
			fork: []string{"deleteOne nodetable {_id:1L,type:2048}"}},
		{name: "the load", run: func(ctx context.Context, _ Store, c Client) error {
			if err := c.InsertLinks(ctx, []Link{{ID1: 20, LinkType: lt, ID2: 21, Visibility: Visible, Time: 5}, {ID1: 20, LinkType: lt, ID2: 22, Time: 6}}); err != nil {
				return err
			}
			if err := c.InsertCounts(ctx, []Count{{ID1: 20, LinkType: lt, Count: 1, Time: 6}}); err != nil {
				return err
			}
			if err := c.ResetNodes(ctx, 1); err != nil {
				return err
			}
			return c.InsertNodes(ctx, []Node{{ID: 1, Type: NodeType, Version: 1, Time: 1}, {ID: 2, Type: NodeType, Version: 1, Time: 1}})
		},
			// LinkStoreMongoDBv2.java:1283-1295, :1312-1357, :1367-1371, :1405-1451;
			// LinkStoreMongoDb2.java:654-702, :711-754, :774-780, :798-875.
			ref: []string{
				"insertUnordered linktable 2 {link_type:123456789L,id1:20L,id2:21L,data:bin(0),time:T,version:0,visibility:1}",
				"insertUnordered counttable 1 {id:20L,link_type:123456789L,count:1L,time:T,version:0L}",
				"deleteMany nodetable {}",
				"insertUnordered nodetable 2 {_id:1L,type:2048,version:1L,time:1,data:bin(0)}",
			},
			fork: []string{
				"begin",
				"tx insertUnordered linktable 2 {_id:bin(24),id1:20L,link_type:123456789L,id2:21L,visibility:1,version:0,time:T,data:bin(0)}",
				"commit",
				"begin",
				"tx insertUnordered counttable 1 {_id:bin(16),id:20L,link_type:123456789L,count:1L,version:0L,time:T}",
				"commit",
				"deleteMany nodetable {}",
				"begin",
				"tx insertUnordered nodetable 2 {_id:1L,type:2048,version:1L,time:1,data:bin(0)}",
				"commit",
			}},
		{name: "the scans of verification", run: func(ctx context.Context, st Store, _ Client) error {
			none := func(*Link) error { return nil }
			if err := st.ScanLinks(ctx, lt, 10, 30, none); err != nil {
				return err
			}
			return st.ScanIndex(ctx, 10, 30, none)
		},
			ref: []string{
				"find linktable {link_type:123456789L,id1:{$gte:10L,$lt:30L}} sort {link_type:1,id1:1,id2:1} hint link_type_1_id1_1_id2_1",
				"find linktable {id1:{$gte:10L,$lt:30L}} sort " + id1Type + " projection {id1:1,link_type:1,visibility:1,time:1,id2:1,version:1,data:1,_id:0} hint " + id1TypeIndex().Name,
			},
			fork: []string{
				"find linktable {_id:{$gte:bin(24),$lt:bin(24)}} sort {_id:1} hint _id_",
				"find linktable {id1:{$gte:10L,$lt:30L}} sort " + id1Type + " projection {id1:1,link_type:1,visibility:1,time:1,id2:1,version:1,data:1,_id:0} hint " + id1TypeIndex().Name,
			}},
	}
}

// TestDocCommands holds the commands each store call sends, in both variants, against tables
// derived from the references, on FerretDB on SQLite: the corrected variant once as it runs
// there (doc.DB.Transact runs each unit as it is) and once as it runs where the configuration
// asks for transactions, where each unit's commands must use the unit's context.
func TestDocCommands(t *testing.T) {
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, tt := range []struct {
			name     string
			fork, tx bool
		}{{"reference", false, false}, {"corrected", true, false}, {"corrected/transactions", true, true}} {
			t.Run(tt.name, func(t *testing.T) {
				rec := &recDB{DB: db, tx: tt.tx}
				for _, c := range SQLTables() {
					if err := db.DropCollection(ctx, c); err != nil {
						t.Fatal(err)
					}
				}
				st, err := Open(rec, Options{Corrected: tt.fork})
				if err != nil {
					t.Fatal(err)
				}
				c := client(t, st)
				for _, step := range docSteps() {
					if err := step.run(ctx, st, c); err != nil {
						t.Fatalf("%s: %v", step.name, err)
					}
					want := step.ref
					if tt.fork {
						want = step.fork
						if !tt.tx {
							want = withoutUnits(want)
						}
					}
					if got := rec.take(); strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s sent\n\t%s\nwant\n\t%s", step.name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
					}
				}
			})
		}
	})
}

// withoutUnits is a log of units as it is without transactions: no begin, commit and abort,
// no tx marks.
func withoutUnits(log []string) []string {
	var out []string
	for _, s := range log {
		switch s {
		case "begin", "commit", "abort":
			continue
		}
		out = append(out, strings.TrimPrefix(s, "tx "))
	}
	return out
}

// TestDocAddNodeOfTwoProcesses: two stores on one FerretDB (two shards' processes, each with
// its own node counter, from the same next id after the load) add nodes at once: an id the
// other store gave is a duplicate, upon which the store moves past the largest id and inserts
// again, so that every node is added once, under an id of its own, in both variants.
func TestDocAddNodeOfTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				e := &testEngine{name: s.Name + "/" + v.name, docDB: db, fork: v.corrected}
				a := e.store(t, Options{})
				b, err := Open(db, Options{Corrected: v.corrected})
				if err != nil {
					t.Fatal(err)
				}
				ca, cb := client(t, a), client(t, b)
				if err := ca.InsertNodes(ctx, []Node{{ID: 1, Type: NodeType, Version: 1, Data: []byte("n")}}); err != nil {
					t.Fatal(err)
				}
				for _, st := range []Store{a, b} {
					if err := st.FinishLoad(ctx, 2); err != nil {
						t.Fatal(err)
					}
				}
				const each = 20
				ids := make([][]int64, 2)
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for i, c := range []Client{ca, cb} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range each {
							id, err := c.AddNode(ctx, &Node{Type: NodeType, Version: 1, Data: []byte(fmt.Sprint("of ", i))})
							if err != nil {
								errs[i] = err
								return
							}
							ids[i] = append(ids[i], id)
						}
					}()
				}
				wg.Wait()
				seen := map[int64]bool{1: true}
				for i := range ids {
					if errs[i] != nil {
						t.Fatalf("store %d: %v", i, errs[i])
					}
					for _, id := range ids[i] {
						if seen[id] {
							t.Fatalf("id %d given twice: %v", id, ids)
						}
						seen[id] = true
						if found, err := ca.GetNode(ctx, id); err != nil || !found {
							t.Errorf("node %d: found %v (%v)", id, found, err)
						}
					}
				}
				if n, err := db.Collection(nodeTable).Count(ctx, bson.D{}, 0); err != nil || n != 1+2*each {
					t.Errorf("%d nodes (%v), want %d", n, err, 1+2*each)
				}
			})
		}
	})
}
