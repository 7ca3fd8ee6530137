package iibench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestDocEngines checks on FerretDB (SQLite and PostgreSQL), in both variants, that each query
// returns the documents its filter selects (in index order in the corrected variant, which
// sorts; any of them in the reference variant, which does not), and verification's reads; then
// runs iiBench at tiny scale with verification, as TestEngines does on the other families, with
// 5,000 rows: FerretDB reads every document for each query and for each sort.
func TestDocEngines(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
			checkDocQueries(t, ctx, db, v)
		}
		checkTinyRun(t, ctx, db, 5_000)
	})
}

// docKeys returns the keys of index idx of every document of the collection, sorted on the
// index's fields.
func docKeys(t *testing.T, ctx context.Context, b *docBackend, idx int) []Key {
	t.Helper()
	var keys []Key
	if err := b.scanIndex(ctx, idx, func(k Key) { keys = append(keys, k) }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func checkDocQueries(t *testing.T, ctx context.Context, db doc.DB, v workload.Variant) {
	t.Helper()
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.CashRegs, p.Customers, p.MaxPrice = 4, 30, 7
	p.CharFields, p.CharLength = 1, 20
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	be, err := newBackend(db, &p)
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*docBackend)
	if err := b.create(ctx); err != nil {
		t.Fatal(err)
	}
	sess, err := b.newSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.close()
	f := form{doc: true}
	gen := NewGen(&p, 1, 2)
	var rows []Row
	const t0 = 1_700_000_000_000
	for i := 0; i < 6; i++ {
		batch := gen.Batch(100, t0+int64(i%3)*1000+int64(i)) // three seconds, in and out of order
		if err := sess.insert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for _, r := range batch {
			r.Data, r.Pad = slices.Clone(r.Data), slices.Clone(r.Pad)
			rows = append(rows, r)
		}
	}
	checkScans(t, ctx, b, &p, rows, f)
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.UnixMilli(t0 - 500)
	sk := newSeeker(&p, f, 5, start)
	for _, idx := range p.Indexes() {
		keys := docKeys(t, ctx, b, idx)
		n := len(indexes[idx].cols)
		if idx == idxPK {
			n = 2 // the _id's seconds, then its count
		}
		var out []Key
		for i := 0; i < 12; i++ {
			seek := sk.next(idx, int64(len(rows)), start.Add(5*time.Second))
			if i%3 == 0 && idx != idxPK { // an existing key: its equality clauses match
				seek = keys[rng.IntN(len(keys))]
			}
			limit := 1 + rng.IntN(60)
			if out, err = sess.query(ctx, idx, seek, limit, out); err != nil {
				t.Fatalf("%s: %v", indexes[idx].name, err)
			}
			from := slices.IndexFunc(keys, func(k Key) bool { return docSelects(idx, k, seek) })
			if from < 0 {
				from = len(keys)
			}
			want := keys[from:min(from+limit, len(keys))]
			if !p.Corrected() && idx != idxPK { // no sort: any of the documents the filter selects
				if !subset(out, keys[from:]) || len(out) != len(want) {
					t.Fatalf("%s %s: seek %v limit %d returned %d documents, not %d of those its filter selects: %v",
						v, indexes[idx].name, seek[:n], limit, len(out), len(want), out)
				}
				continue
			}
			if !slices.Equal(out, want) {
				t.Fatalf("%s %s: seek %v limit %d returned\n %v\nwant\n %v", v, indexes[idx].name, seek[:n], limit, out, want)
			}
		}
	}
}

// docSelects reports whether the query of index idx from seek selects the document of key k:
// on the primary key an _id at or after the seek's second, else the whole key at or after the
// seek's (the $or of its clauses).
func docSelects(idx int, k, seek Key) bool {
	if idx == idxPK {
		return k[0] >= seek[0]/1000
	}
	return compareKeys(k, seek, len(indexes[idx].cols)) >= 0
}

// subset reports whether every key of got is one of from (as a multiset).
func subset(got, from []Key) bool {
	left := map[Key]int{}
	for _, k := range from {
		left[k]++
	}
	for _, k := range got {
		if left[k] == 0 {
			return false
		}
		left[k]--
	}
	return true
}

// docs returns a copy of every document of the collection in _id order.
func docs(t *testing.T, ctx context.Context, c doc.Collection) []bson.Raw {
	t.Helper()
	var out []bson.Raw
	if _, err := c.Find(ctx, bson.D{}, doc.Find{Sort: bson.D{{Key: "_id", Value: 1}}}, func(r bson.Raw) error {
		out = append(out, slices.Clone(r))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// byID is the filter of one document.
func byID(d bson.Raw) bson.D { return bson.D{{Key: "_id", Value: d.Lookup("_id").ObjectID()}} }

// docDamage is damage done to the collection through the engine after a run, and what
// verification must then say.
type docDamage struct {
	name string
	do   func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw)
	want func(n int64) []string // the detail must contain each
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// set sets fields of document d.
func set(t *testing.T, ctx context.Context, c doc.Collection, d bson.Raw, fields bson.D) {
	t.Helper()
	if u, err := c.UpdateOne(ctx, byID(d), bson.D{{Key: "$set", Value: fields}}, false); err != nil || u.Matched != 1 {
		t.Fatalf("update %v: %+v %v", fields, u, err)
	}
}

var docDamages = []docDamage{
	{
		name: "a deleted document balanced by a copy of another with a new _id",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			_, err := c.DeleteOne(ctx, byID(ds[10]))
			must(t, err)
			var cp bson.D
			must(t, bson.Unmarshal(ds[20], &cp))
			cp[0].Value = bson.NewObjectIDFromTimestamp(time.Now().Add(time.Hour))
			must(t, c.InsertOne(ctx, cp))
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (1 missing, 1 extra)", n, n), "is missing", "is an extra row"}
		},
	},
	{
		name: "1000 documents with another productid",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$lte", Value: ds[999].Lookup("_id").ObjectID()}}}}
			u, err := c.UpdateMany(ctx, filter, bson.D{{Key: "$inc", Value: bson.D{{Key: "productid", Value: int32(1)}}}})
			if err != nil || u.Modified != 1000 {
				t.Fatalf("%+v %v", u, err)
			}
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (1000 changed)", n, n), "differs: productid"}
		},
	},
	{
		name: "a batch of 100 documents deleted",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: ds[300].Lookup("_id").ObjectID()},
				{Key: "$lte", Value: ds[399].Lookup("_id").ObjectID()}}}}
			if k, err := c.DeleteMany(ctx, filter); err != nil || k != 100 {
				t.Fatalf("deleted %d: %v", k, err)
			}
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (100 missing) marketsegment=%[2]d (entries differ)", n, n-100), "are missing"}
		},
	},
	{
		name: "a document with another customerid, a field of every secondary index",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			set(t, ctx, c, ds[7], bson.D{{Key: "customerid", Value: ds[7].Lookup("customerid").Int32() + 1}})
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed) marketsegment=%[1]d (as many entries, but they differ) "+
				"registersegment=%[1]d (as many entries, but they differ) pdc=%[1]d (as many entries, but they differ)", n), "differs: customerid"}
		},
	},
	{
		name: "a price one double away",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			set(t, ctx, c, ds[5], bson.D{{Key: "price", Value: math.Nextafter(ds[5].Lookup("price").Double(), math.Inf(1))}})
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed) marketsegment=%[1]d (as many entries, but they differ)", n), "differs: price"}
		},
	},
	{
		name: "the same cashregisterid as an int64",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			set(t, ctx, c, ds[8], bson.D{{Key: "cashregisterid", Value: int64(ds[8].Lookup("cashregisterid").Int32())}})
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed) marketsegment=%[1]d registersegment=%[1]d (as many entries, but they differ) pdc=%[1]d;", n),
				"differs: cashregisterid is a 64-bit integer"}
		},
	},
	{
		name: "an extra field",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			set(t, ctx, c, ds[9], bson.D{{Key: "note", Value: "x"}})
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed) marketsegment=%[1]d registersegment=%[1]d pdc=%[1]d;", n), "differs: an extra field note"}
		},
	},
	{
		name: "a padding field of the same length altered",
		do: func(t *testing.T, ctx context.Context, c doc.Collection, ds []bson.Raw) {
			set(t, ctx, c, ds[11], bson.D{{Key: "cf1", Value: strings.Repeat("z", 20)}})
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed)", n), "differs: padding differs"}
		},
	},
}

// TestDocVerificationCatchesDamage runs iiBench on FerretDB with two insert threads, damages
// the collection through the engine after each run, and checks that verification, which passed
// before the damage, fails and says what it found: documents missing, extra and changed (even
// where the count still matches), a value one double away, a field of another type, a field
// that the client does not write.
func TestDocVerificationCatchesDamage(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		c := db.Collection(tableName)
		for _, d := range docDamages {
			r, _ := runFor(t, ctx, damageParams(), db, nil, nil)
			n := r.inserted.Load()
			d.do(t, ctx, c, docs(t, ctx, c))
			v, err := r.verify(ctx)
			if err != nil || v == nil || v.OK {
				t.Fatalf("%s: verification passed or could not read: %+v %v", d.name, v, err)
			}
			for _, want := range d.want(n) {
				if !strings.Contains(v.Detail, want) {
					t.Errorf("%s: the detail does not say %q:\n%s", d.name, want, v.Detail)
				}
			}
			t.Logf("%s: %s", d.name, v.Detail)
		}
	})
}

// recorder records the commands a run sends to a document engine, each as its shape.
type recorder struct {
	mu      sync.Mutex
	inserts map[string]int // document shape -> documents
	batches map[int]int    // documents per insertMany -> insertManys
	finds   map[string]int // find shape -> finds
	indexes []string
}

func newRecorder() *recorder {
	return &recorder{inserts: map[string]int{}, batches: map[int]int{}, finds: map[string]int{}}
}

// recDB records the commands sent to its collections.
type recDB struct {
	doc.DB
	rec *recorder
}

func (d recDB) Collection(name string) doc.Collection { return recColl{d.DB.Collection(name), d.rec} }

type recColl struct {
	doc.Collection
	rec *recorder
}

func (c recColl) InsertUnordered(ctx context.Context, docs any) error {
	ds := docs.([]bson.Raw)
	c.rec.mu.Lock()
	c.rec.batches[len(ds)]++
	for _, d := range ds {
		c.rec.inserts[shape(d, true)]++
	}
	c.rec.mu.Unlock()
	return c.Collection.InsertUnordered(ctx, docs)
}

func (c recColl) Find(ctx context.Context, filter any, o doc.Find, each func(bson.Raw) error) (int, error) {
	raw, err := bson.Marshal(filter)
	if err != nil {
		return 0, err
	}
	line := "find " + shape(raw, true)
	for _, opt := range []struct {
		name string
		v    any
	}{{"sort", o.Sort}, {"projection", o.Projection}, {"hint", o.Hint}} {
		if opt.v != nil {
			b, err := bson.Marshal(opt.v)
			if err != nil {
				return 0, err
			}
			line += " " + opt.name + " " + shape(b, false)
		}
	}
	if o.Limit > 0 {
		line += fmt.Sprintf(" limit %d", o.Limit)
	}
	c.rec.mu.Lock()
	c.rec.finds[line]++
	c.rec.mu.Unlock()
	return c.Collection.Find(ctx, filter, o, each)
}

func (c recColl) CreateIndex(ctx context.Context, ix doc.Index) error {
	b, _ := bson.Marshal(ix.Keys)
	c.rec.mu.Lock()
	c.rec.indexes = append(c.rec.indexes, ix.Name+" "+shape(b, false))
	c.rec.mu.Unlock()
	return c.Collection.CreateIndex(ctx, ix)
}

// shape writes a document compactly: its keys in order, and the types of its values (types) or
// the values (else).
func shape(d bson.Raw, types bool) string {
	elems, err := d.Elements()
	if err != nil {
		return "malformed"
	}
	var parts []string
	for _, e := range elems {
		parts = append(parts, e.Key()+": "+shapeValue(e.Value(), types))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func shapeValue(v bson.RawValue, types bool) string {
	switch v.Type {
	case bson.TypeEmbeddedDocument:
		return shape(v.Document(), types)
	case bson.TypeArray:
		vals, _ := v.Array().Values()
		var parts []string
		for _, e := range vals {
			parts = append(parts, shapeValue(e, types))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if !types && v.Type == bson.TypeInt32 {
		return strconv.Itoa(int(v.Int32()))
	}
	if types {
		return map[bson.Type]string{bson.TypeDouble: "double", bson.TypeString: "string", bson.TypeObjectID: "objectId",
			bson.TypeInt32: "int", bson.TypeInt64: "long"}[v.Type]
	}
	return v.String()
}

// TestDocCommands runs iiBench on FerretDB (SQLite) through a collection that records what it
// is sent, in both variants, and checks the commands against the Java client's
// (jmongoiibench.java): its indexes, its documents, its insert batches and its queries, and
// verification's reads.
func TestDocCommands(t *testing.T) {
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
			rec := newRecorder()
			p := damageParams()
			p.Variant, p.QueryThreads, p.QueryLimit, p.QueryAfterRows = v, 4, 10, 0
			r, _ := runFor(t, ctx, p, recDB{db, rec}, nil, nil)
			want := "[price_1_customerid_1 {price: 1, customerid: 1} cashregisterid_1_price_1_customerid_1 {cashregisterid: 1, price: 1, customerid: 1} " +
				"price_1_dateandtime_1_customerid_1 {price: 1, dateandtime: 1, customerid: 1}]"
			if got := fmt.Sprint(rec.indexes); got != want {
				t.Errorf("%s: indexes %s\nwant %s", v, got, want)
			}
			docShape := "{_id: objectId, dateandtime: long, cashregisterid: int, customerid: int, productid: int, price: double, cf1: string}"
			if len(rec.inserts) != 1 || rec.inserts[docShape] != int(r.inserted.Load()) {
				t.Errorf("%s: documents %v, want %d of %s", v, rec.inserts, r.inserted.Load(), docShape)
			}
			// Two threads of 750 rows: whole batches of 100 in the reference variant, the last of 50 in the corrected.
			batches := map[workload.Variant]string{workload.Reference: "map[100:16]", workload.Corrected: "map[50:2 100:14]"}[v]
			if got := fmt.Sprint(rec.batches); got != batches {
				t.Errorf("%s: insertMany batches (documents: insertManys) %s, want %s", v, got, batches)
			}
			checkFinds(t, v, rec.finds)
		}
	})
}

// checkFinds checks the finds a run sent, in variant v: each query thread's, then verification's.
func checkFinds(t *testing.T, v workload.Variant, finds map[string]int) {
	t.Helper()
	market := "find {$or: [{price: double, customerid: {$gte: int}}, {price: {$gt: double}}]}"
	register := "find {$or: [{cashregisterid: int, price: double, customerid: {$gte: int}}, {cashregisterid: int, price: {$gt: double}}, {cashregisterid: {$gt: int}}]}"
	pdc := "find {$or: [{price: double, dateandtime: long, customerid: {$gte: int}}, {price: double, dateandtime: {$gt: long}}, {price: {$gt: double}}]}"
	pk := "find {_id: {$gte: objectId}}"
	sortPK := " sort {_id: 1}"
	sortMarket := " sort {price: 1, customerid: 1}"
	sortRegister := " sort {cashregisterid: 1, price: 1, customerid: 1}"
	sortPDC := " sort {price: 1, dateandtime: 1, customerid: 1}"
	projMarket := " projection {price: 1, customerid: 1, _id: 0}"
	projRegister := " projection {cashregisterid: 1, price: 1, customerid: 1, _id: 0}"
	projPDC := " projection {price: 1, dateandtime: 1, customerid: 1, _id: 0}"
	java := " projection {cashregisterid: 1, dateandtime: 1, customerid: 1, price: 1, _id: 0}"
	queries := []string{pk + sortPK + " limit 10", market + java + " limit 10", register + java + " limit 10", pdc + java + " limit 10"}
	if v == workload.Corrected {
		queries = []string{pk + sortPK + " projection {_id: 1} limit 10", market + sortMarket + projMarket + " limit 10",
			register + sortRegister + projRegister + " limit 10", pdc + sortPDC + projPDC + " limit 10"}
	}
	reads := []string{"find {}" + sortPK, "find {}" + sortMarket + projMarket, "find {}" + sortRegister + projRegister, "find {}" + sortPDC + projPDC}
	for _, q := range queries {
		if finds[q] == 0 {
			t.Errorf("%s: no query %s", v, q)
		}
	}
	for _, q := range reads {
		if finds[q] != 1 {
			t.Errorf("%s: verification read %s %d times, want once", v, q, finds[q])
		}
	}
	if len(finds) != len(queries)+len(reads) {
		t.Errorf("%s: finds %v", v, finds)
	}
}

// TestDocObjectIDs checks the _ids a session makes: an ObjectId of the batch's second, then
// the shard and the count; a thread's _ids increase even when the clock goes back, and two
// shards never make the same.
func TestDocObjectIDs(t *testing.T) {
	p, _ := DefaultParams("tiny")
	s := &docSession{b: newDocBackend(nullDoc{}, &p)}
	a := s.objectID(1_700_000_005_999, 7)
	if got := a.Hex(); got != fmt.Sprintf("%08x%016x", 1_700_000_005, 7) {
		t.Errorf("_id %s", got)
	}
	if back := s.objectID(1_700_000_001_000, 8); bytes.Compare(back[:], a[:]) <= 0 || back.Timestamp().Unix() != 1_700_000_005 {
		t.Errorf("after the clock went back: %s, after %s", back.Hex(), a.Hex())
	}
	p.Shard.Index, p.Shard.Count = 1, 2
	other := (&docSession{b: newDocBackend(nullDoc{}, &p)}).objectID(1_700_000_005_999, 7)
	if other == a || other.Hex()[8:12] != "0001" {
		t.Errorf("shard 1's _id %s, shard 0's %s", other.Hex(), a.Hex())
	}
}

// TestDocValues checks the document family's values: a row's unrounded price rounds to its
// cents, and a seek point's price follows its customer and its dateandtime is a millisecond of
// the run so far, as the Java client draws them.
func TestDocValues(t *testing.T) {
	p, _ := DefaultParams("tiny")
	g := NewGen(&p, 1, 1)
	for _, r := range g.Batch(10_000, 1) {
		if math.Abs(r.PriceRaw*100-float64(r.Price)) > 0.5+1e-9 || r.PriceRaw < float64(r.CustomerID)/100 {
			t.Fatalf("price %v rounds to %d cents", r.PriceRaw, r.Price)
		}
	}
	start := time.UnixMilli(1_700_000_000_000)
	now := start.Add(90 * time.Second)
	sk := newSeeker(&p, form{doc: true}, 7, start)
	for i := 0; i < 10_000; i++ {
		k := sk.next(idxPDC, 0, now)
		price, c := math.Float64frombits(uint64(k[0])), k[2]
		if price < float64(c)/100 || price >= float64(c+int64(p.MaxPrice))/100 || k[1] < start.UnixMilli() || k[1] > now.UnixMilli() {
			t.Fatalf("seek %v: price %v of customer %d, time %d", k, price, c, k[1])
		}
	}
}

// TestDocCheckEngine checks that a document engine is refused more rows than its _ids count,
// and takes the presets.
func TestDocCheckEngine(t *testing.T) {
	for _, c := range []struct {
		rows int64
		ok   bool
	}{{50_000, true}, {maxDocIDs - 1000, true}, {maxDocIDs, false}} {
		p, _ := DefaultParams("large")
		p.MaxRows = c.rows
		err := mustNew(t, p).CheckEngine(doc.FerretDBDriver())
		if (err == nil) != c.ok {
			t.Errorf("%d rows: %v", c.rows, err)
		}
	}
}

// nullDoc is a document engine that stores nothing, whose finds return one document: for the
// hot path's allocations.
type nullDoc struct{ doc.DB }

func (nullDoc) Family() engine.Family                                              { return engine.FamilyDoc }
func (d nullDoc) Collection(string) doc.Collection                                 { return nullColl{} }
func (nullDoc) Transact(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }

type nullColl struct{ doc.Collection }

var nullFound = func() bson.Raw {
	b, _ := bson.Marshal(bson.D{{Key: "price", Value: 1.5}, {Key: "customerid", Value: int32(3)}, {Key: "cashregisterid", Value: int32(4)},
		{Key: "dateandtime", Value: int64(5)}, {Key: "_id", Value: bson.NewObjectID()}})
	return b
}()

func (nullColl) InsertUnordered(context.Context, any) error { return nil }

func (nullColl) Find(_ context.Context, _ any, _ doc.Find, each func(bson.Raw) error) (int, error) {
	for i := 0; i < 3; i++ {
		if err := each(nullFound); err != nil {
			return i, err
		}
	}
	return 3, nil
}

// TestDocHotPathDoesNotAllocate checks that a warm document session allocates nothing of its
// own per insert batch or per query (the driver's allocations aside).
func TestDocHotPathDoesNotAllocate(t *testing.T) {
	ctx := context.Background()
	p, _ := DefaultParams("tiny")
	p.CharFields = 2
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	be, err := newBackend(nullDoc{}, &p)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := be.newSession(ctx)
	defer sess.close()
	gen := NewGen(&p, 1, 1)
	if a := testing.AllocsPerRun(50, func() {
		if err := sess.insert(ctx, gen.Batch(100, 1)); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per insert batch", a)
	}
	out := make([]Key, 0, p.QueryLimit)
	sk := newSeeker(&p, form{doc: true}, 1, time.UnixMilli(0))
	now := time.UnixMilli(10_000)
	for idx := idxPK; idx < numIndexes; idx++ { // a session per index, as a query thread's
		q, _ := be.newSession(ctx)
		defer q.close()
		if a := testing.AllocsPerRun(50, func() {
			if out, err = q.query(ctx, idx, sk.next(idx, 100, now), p.QueryLimit, out); err != nil || len(out) != 3 {
				t.Fatal(len(out), err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations per query", indexes[idx].name, a)
		}
	}
}
