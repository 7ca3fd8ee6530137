package insertbench

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// recDB is a document database that records the commands the workload sends, by shape: the
// command, the collection, the filter (canonical extended JSON, its numbers and the data
// replaced by N and S, so that their BSON types show), and the find's options.
type recDB struct {
	doc.DB
	mu     sync.Mutex
	shapes map[string]int
}

func (d *recDB) record(shape string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.shapes[shape]++
}

func (d *recDB) Collection(name string) doc.Collection {
	return &recColl{Collection: d.DB.Collection(name), db: d}
}

func (d *recDB) Transact(ctx context.Context, fn func(context.Context) error) error {
	d.record("Transact")
	return d.DB.Transact(ctx, fn)
}

type recColl struct {
	doc.Collection
	db *recDB
}

var (
	extNumber = regexp.MustCompile(`"(\$number(Int|Long))":"-?[0-9]+"`)
	extData   = regexp.MustCompile(`"data":"[^"]*"`)
)

// shapeOf is v in canonical extended JSON with its numbers and data replaced.
func shapeOf(v any) string {
	if v == nil {
		return "nil"
	}
	b, err := bson.MarshalExtJSON(v, true, false)
	if err != nil {
		return "unmarshalable: " + err.Error()
	}
	s := extNumber.ReplaceAllString(string(b), `"$1":"N"`)
	return extData.ReplaceAllString(s, `"data":"S"`)
}

// relaxed is v in relaxed extended JSON (sorts, projections, keys).
func relaxed(v any) string {
	if v == nil {
		return "nil"
	}
	b, err := bson.MarshalExtJSON(v, false, false)
	if err != nil {
		return "unmarshalable: " + err.Error()
	}
	return string(b)
}

func (c *recColl) InsertMany(ctx context.Context, docs any) error {
	raws := docs.([]bson.Raw)
	c.db.record(fmt.Sprintf("InsertMany %s %d %s", c.Name(), len(raws), shapeOf(raws[0])))
	return c.Collection.InsertMany(ctx, docs)
}

func findShape(op, coll string, filter any, o doc.Find) string {
	return fmt.Sprintf("%s %s %s sort=%s proj=%s limit=%d hint=%s", op, coll, shapeOf(filter), relaxed(o.Sort), relaxed(o.Projection), o.Limit, relaxed(o.Hint))
}

func (c *recColl) Find(ctx context.Context, filter any, o doc.Find, each func(bson.Raw) error) (int, error) {
	c.db.record(findShape("Find", c.Name(), filter, o))
	return c.Collection.Find(ctx, filter, o, each)
}

func (c *recColl) FindOne(ctx context.Context, filter any, o doc.Find, out any) (bool, error) {
	c.db.record(findShape("FindOne", c.Name(), filter, o))
	return c.Collection.FindOne(ctx, filter, o, out)
}

func (c *recColl) DeleteMany(ctx context.Context, filter any) (int64, error) {
	c.db.record("DeleteMany " + c.Name() + " " + shapeOf(filter))
	return c.Collection.DeleteMany(ctx, filter)
}

func (c *recColl) CreateIndex(ctx context.Context, ix doc.Index) error {
	c.db.record(fmt.Sprintf("CreateIndex %s %s %s unique=%v", c.Name(), ix.Name, relaxed(ix.Keys), ix.Unique))
	return c.Collection.CreateIndex(ctx, ix)
}

// ids is the shape of an array of n int64s.
func ids(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(`{"$numberLong":"N"},`, n), ",") + "]"
}

// TestDocCommands runs l.i0, l.x, l.i1, qr100 and qp100 on FerretDB on SQLite, in each variant,
// through a database that records every command, and holds the commands against those the
// reference sends on MongoDB (iibench.py --dbms=mongo) and the translations of the SQL
// backend's statements (docs/fidelity.md): each shape, and the count of those the sizes fix.
func TestDocCommands(t *testing.T) {
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) {
				p, _ := DefaultParams("tiny")
				p.Variant = v
				p.Rows, p.RowsI1, p.QuerySeconds = 500, 200, 1
				p.Steps = []string{"l.i0", "l.x", "l.i1", "qr100", "qp100"}
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
				rec := &recDB{DB: db, shapes: map[string]int{}}
				steps, err := workloadtest.Run(ctx, &Workload{p: p}, rec, &runner.Runner{Clock: runner.SystemClock()})
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range steps {
					if st.Status != result.StatusOK {
						t.Fatalf("%s: %s %s", st.Name, st.Status, st.Error)
					}
				}
				if last := steps[len(steps)-1]; last.Verify == nil || !last.Verify.OK {
					t.Fatalf("verification: %+v", last.Verify)
				}
				checkDocShapes(t, p, rec.shapes)
			})
		}
	})
}

// checkDocShapes holds the shapes recorded in a run of p against the expected ones.
func checkDocShapes(t *testing.T, p Params, got map[string]int) {
	t.Helper()
	const row = `{"_id":{"$numberLong":"N"},"dateandtime":{"$date":{"$numberLong":"N"}},"cashregisterid":{"$numberInt":"N"},` +
		`"customerid":{"$numberInt":"N"},"product":{"$numberInt":"N"},"price":{"$numberInt":"N"},"data":"S"}`
	market := `{"product":1,"customerid":1,"_id":0}`
	if p.Corrected() {
		market = `{"product":1,"customerid":1,"price":1,"_id":0}`
	}
	// The delete's two commands: the oldest 50 _ids from the estimate on, and their delete.
	deleteFind := `Find pi1 {"_id":{"$gte":{"$numberLong":"N"}}} sort={"_id":1} proj={"_id":1} limit=50 hint=nil`
	deleteMany := `DeleteMany pi1 {"_id":{"$in":` + ids(50) + `}}`
	loads := p.Rows / 100
	if !p.Corrected() {
		loads++ // l.x's batch
	}
	// Exact counts for what the sizes fix; -1: at least once.
	want := map[string]int{
		"InsertMany pi1 100 " + row: int(loads),
		"InsertMany pi1 50 " + row:  -1,
		`CreateIndex pi1 pc {"product":1,"customerid":1,"price":1} unique=false`:         1,
		`CreateIndex pi1 cpc {"cashregisterid":1,"customerid":1,"price":1} unique=false`: 1,
		`CreateIndex pi1 pdc {"price":1,"dateandtime":1,"customerid":1} unique=false`:    1,
		// The delete: the _ids of the oldest documents, then a delete of those.
		deleteFind: -1,
		deleteMany: -1,
		// min and max of _id: the probe and resync, and the point queries' maximum.
		`FindOne pi1 {} sort={"_id":1} proj={"_id":1} limit=0 hint=nil`:  -1,
		`FindOne pi1 {} sort={"_id":-1} proj={"_id":1} limit=0 hint=nil`: -1,
		// The range queries (FerretDB ignores hints: none is sent).
		`Find pi1 {"product":{"$gte":{"$numberInt":"N"}}} sort={"product":1,"customerid":1,"price":1} proj=` + market + ` limit=10 hint=nil`:                                                      -1,
		`Find pi1 {"cashregisterid":{"$gte":{"$numberInt":"N"}}} sort={"cashregisterid":1,"customerid":1,"price":1} proj={"cashregisterid":1,"customerid":1,"price":1,"_id":0} limit=10 hint=nil`: -1,
		`Find pi1 {"price":{"$gte":{"$numberInt":"N"}}} sort={"price":1,"dateandtime":1,"customerid":1} proj={"price":1,"dateandtime":1,"customerid":1,"_id":0} limit=10 hint=nil`:                -1,
		// The point queries.
		`Find pi1 {"_id":{"$in":` + ids(p.PointIDs) + `}} sort=nil proj={"product":1,"data":1} limit=0 hint=nil`: -1,
		"Transact": -1,
	}
	// Verification's reads after the last step, through _id and each index.
	verifyReads := []string{
		`Find pi1 {} sort={"_id":1} proj=nil limit=0 hint=nil`,
		`Find pi1 {} sort={"product":1,"customerid":1,"price":1} proj={"product":1,"customerid":1,"price":1,"_id":1} limit=0 hint=nil`,
		`Find pi1 {} sort={"cashregisterid":1,"customerid":1,"price":1} proj={"cashregisterid":1,"customerid":1,"price":1,"_id":1} limit=0 hint=nil`,
		`Find pi1 {} sort={"price":1,"dateandtime":1,"customerid":1} proj={"price":1,"dateandtime":1,"customerid":1,"_id":1} limit=0 hint=nil`,
	}
	for _, r := range verifyReads {
		want[r] = 1
	}
	var names []string
	for k := range got {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		n, ok := want[k]
		switch {
		case !ok:
			t.Errorf("unexpected command (%d times): %s", got[k], k)
		case n >= 0 && got[k] != n:
			t.Errorf("%d times, want %d: %s", got[k], n, k)
		}
	}
	for k := range want {
		if got[k] == 0 {
			t.Errorf("never sent: %s", k)
		}
	}
	if f, d := got[deleteFind], got[deleteMany]; f != d {
		t.Errorf("%d finds of the oldest _ids, %d deletes of them", f, d)
	}
	// Every insert, delete and query is a unit of Transact (a transaction where configured).
	units := 0
	for k, n := range got {
		if strings.HasPrefix(k, "InsertMany") || strings.Contains(k, "limit=50") ||
			strings.Contains(k, "limit=10") || strings.Contains(k, "proj={\"product\":1,\"data\":1}") {
			units += n
		}
	}
	if got["Transact"] != units {
		t.Errorf("%d units of Transact, want %d (every insert, delete and query)", got["Transact"], units)
	}
}

// hintDB is a document database of which newDocBackend asks only what the server is.
type hintDB struct {
	doc.DB
	info doc.ServerInfo
}

func (d hintDB) Server() doc.ServerInfo { return d.info }

// TestDocHintsAndProjections checks the queries' hints (the index's keys, as the reference's,
// on a server that honours them; none on one that ignores them) and the range queries'
// projections in each variant: the reference's market query leaves out price.
func TestDocHintsAndProjections(t *testing.T) {
	for _, v := range variants {
		p, _ := DefaultParams("tiny")
		p.Variant = v
		mongo := newDocBackend(hintDB{info: doc.ServerInfo{Product: "MongoDB"}}, &p)
		ferret := newDocBackend(hintDB{info: doc.ServerInfo{Product: "FerretDB", IgnoresHints: true}}, &p)
		for idx := idxPK; idx <= idxPDC; idx++ {
			if got, want := relaxed(mongo.hint(idx)), relaxed(mongo.keys[idx]); got != want {
				t.Errorf("%s: hint %s on MongoDB, want %s", indexNames[idx], got, want)
			}
			if h := ferret.hint(idx); h != nil {
				t.Errorf("%s: hint %s on FerretDB, want none", indexNames[idx], relaxed(h))
			}
		}
		fields := func(proj any) []string {
			var out []string
			for _, e := range proj.(bson.D) {
				if e.Value == 1 {
					out = append(out, e.Key)
				}
			}
			return out
		}
		wantMarket := []string{fieldProd, fieldCust}
		if v == workload.Corrected {
			wantMarket = docIndexFields[idxMarket]
		}
		if got := fields(mongo.rangeProj[idxMarket]); !slices.Equal(got, wantMarket) {
			t.Errorf("%s: the market query projects %v, want %v", v, got, wantMarket)
		}
		for _, idx := range []int{idxRegister, idxPDC} {
			if got := fields(mongo.rangeProj[idx]); !slices.Equal(got, docIndexFields[idx]) {
				t.Errorf("%s: the %s query projects %v, want %v", v, indexNames[idx], got, docIndexFields[idx])
			}
		}
	}
}
