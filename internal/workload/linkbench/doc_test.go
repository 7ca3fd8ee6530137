package linkbench

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// docSize makes p's graph 200 nodes with an out-degree CDF of mean about 4 links a node and at
// most 12: FerretDB 1.24 reads a whole collection for every query, even of an _id (about 40 us
// a document on SQLite), and the reference's CDF gives its top node about a million links at
// any size.
func docSize(t *testing.T, p *Params) {
	t.Helper()
	p.MaxID1 = 201
	p.DistributionFile = filepath.Join(t.TempDir(), "nlinks.dat")
	if err := os.WriteFile(p.DistributionFile, []byte("nlinks\n1 30\n4 70\n12 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDocEngines runs every step on a small graph on FerretDB on SQLite and on PostgreSQL, in
// both variants (the corrected one as it runs without transactions, which FerretDB does not
// have): once as published, once loading without id1_type and building it in the index step,
// with expunging deletes.
func TestDocEngines(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, tt := range []struct {
			name     string
			variant  workload.Variant
			deferred bool
		}{{"reference", workload.Reference, false}, {"corrected", workload.Corrected, false}, {"corrected/deferred-index", workload.Corrected, true}} {
			t.Run(tt.name, func(t *testing.T) {
				for _, c := range store.SQLTables() {
					if err := db.DropCollection(ctx, c); err != nil {
						t.Fatal(err)
					}
				}
				p := tinyParams(t)
				docSize(t, &p)
				// One interval that ends when each requester has run its requests, however slow
				// the server: FerretDB on SQLite runs about 10 a second here.
				p.Intervals, p.IntervalSeconds, p.Requests, p.Variant = 1, 600, 40, tt.variant
				if tt.deferred {
					p.DeferIndex, p.Expunge = true, true
				}
				w := mustNew(t, p)
				if err := w.CheckEngine(s.Driver); err != nil {
					t.Fatal(err)
				}
				steps, err := runOn(t, ctx, w, db)
				checkRunOf(t, w.p, steps, err, int64(p.Requesters)*p.Requests)
			})
		}
	})
}

// docTables damages a document engine's collections with plain commands, in the layout of
// the variant (docs/linkbench.md, Document engines).
type docTables struct {
	db   doc.DB
	fork bool
}

func (s docTables) coll(name string) doc.Collection { return s.db.Collection(name) }

func linkFilter(l store.Link) bson.D {
	return bson.D{{Key: "id1", Value: l.ID1}, {Key: "link_type", Value: l.LinkType}, {Key: "id2", Value: l.ID2}}
}

// linkDoc is l as the variant's store writes it.
func (s docTables) linkDoc(l store.Link) bson.D {
	if s.fork {
		id := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil,
			uint64(l.LinkType)), uint64(l.ID1)), uint64(l.ID2))
		return bson.D{{Key: "_id", Value: bson.Binary{Data: id}}, {Key: "id1", Value: l.ID1}, {Key: "link_type", Value: l.LinkType},
			{Key: "id2", Value: l.ID2}, {Key: "visibility", Value: int32(l.Visibility)}, {Key: "version", Value: int32(l.Version)},
			{Key: "time", Value: l.Time}, {Key: "data", Value: bson.Binary{Data: l.Data}}}
	}
	return bson.D{{Key: "link_type", Value: l.LinkType}, {Key: "id1", Value: l.ID1}, {Key: "id2", Value: l.ID2},
		{Key: "data", Value: bson.Binary{Data: l.Data}}, {Key: "time", Value: l.Time}, {Key: "version", Value: int32(l.Version)},
		{Key: "visibility", Value: int32(l.Visibility)}}
}

func (s docTables) putLink(t *testing.T, l store.Link) {
	t.Helper()
	s.delLink(t, l)
	if err := s.coll("linktable").InsertOne(context.Background(), s.linkDoc(l)); err != nil {
		t.Fatal(err)
	}
}

func (s docTables) delLink(t *testing.T, l store.Link) {
	t.Helper()
	if _, err := s.coll("linktable").DeleteMany(context.Background(), linkFilter(l)); err != nil {
		t.Fatal(err)
	}
}

func (s docTables) putNode(t *testing.T, n store.Node) {
	t.Helper()
	s.delNode(t, n.ID)
	d := bson.D{{Key: "_id", Value: n.ID}, {Key: "type", Value: n.Type}, {Key: "version", Value: n.Version},
		{Key: "time", Value: n.Time}, {Key: "data", Value: bson.Binary{Data: n.Data}}}
	if err := s.coll("nodetable").InsertOne(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func (s docTables) delNode(t *testing.T, id int64) {
	t.Helper()
	if _, err := s.coll("nodetable").DeleteMany(context.Background(), bson.D{{Key: "_id", Value: id}}); err != nil {
		t.Fatal(err)
	}
}

func (s docTables) putCount(t *testing.T, c store.Count) {
	t.Helper()
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "count", Value: c.Count}, {Key: "time", Value: c.Time}, {Key: "version", Value: c.Version}}}}
	f := bson.D{{Key: "id", Value: c.ID1}, {Key: "link_type", Value: c.LinkType}}
	if _, err := s.coll("counttable").UpdateMany(context.Background(), f, set); err != nil {
		t.Fatal(err)
	}
}

// setLinkField sets one field of a link's document behind the store's back.
func (s docTables) setLinkField(t *testing.T, l store.Link, field string, v any) {
	t.Helper()
	if _, err := s.coll("linktable").UpdateMany(context.Background(), linkFilter(l), bson.D{{Key: "$set", Value: bson.D{{Key: field, Value: v}}}}); err != nil {
		t.Fatal(err)
	}
}

// docDamage are the damages of a document store beyond those of every family: a field of
// another BSON type, and (corrected variant) a link whose fields leave its binary _id.
func docDamage(fork bool) []damageCase {
	cs := []damageCase{{"a version of another BSON type", func(t *testing.T, r *run, raw rawTables) func() {
		l := r.testLinks(t, r.untouched(t, 1))[0]
		raw.(docTables).setLinkField(t, l, "version", "7")
		return func() { raw.putLink(t, l) }
	}, []string{"field version has BSON type string"}}}
	if fork {
		cs = append(cs, damageCase{"a link's id2 changed under its _id", func(t *testing.T, r *run, raw rawTables) func() {
			l := r.testLinks(t, r.untouched(t, 1))[0]
			moved := l
			moved.ID2 += 1_000_000
			raw.(docTables).setLinkField(t, l, "id2", moved.ID2)
			return func() { raw.delLink(t, moved); raw.putLink(t, l) }
		}, []string{"its _id is not its key"}})
	}
	return cs
}

// TestDocVerificationFindsDamage damages the collections of a verified run on FerretDB on
// SQLite and on PostgreSQL, in both variants, behind the store's back: a deleted link balanced
// by a duplicate, altered payloads and versions, deleted and duplicated nodes, a changed
// count, a field of another type and a link moved under its _id. Verification fails naming
// each, and passes once it is undone.
func TestDocVerificationFindsDamage(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
			t.Run(string(v), func(t *testing.T) {
				for _, c := range store.SQLTables() {
					if err := db.DropCollection(ctx, c); err != nil {
						t.Fatal(err)
					}
				}
				fork := v == workload.Corrected
				// One requester: which requests the run makes does not then depend on how the
				// requesters share them, and they add the two nodes a case needs.
				r := verifiedRunOf(t, ctx, db, v, func(p *Params) { docSize(t, p); p.Requests, p.Requesters = 150, 1 })
				testDamage(t, r, docTables{db: db, fork: fork}, docDamage(fork)...)
			})
		}
	})
}
