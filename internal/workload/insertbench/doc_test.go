package insertbench

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/doc"
	"github.com/enginebench/enginebench/internal/engine/doc/doctest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// docStepParams are the sizes of TestDocServerEngines: every step, the tiny preset's batches,
// and fewer rows and shorter query steps than the preset's: FerretDB 1.24 reads the whole
// collection for each delete and each sorted find (docs/insert-benchmark.md). The reference's
// query steps write N/2 rows a client and end once the query client, which looks every 16
// queries, sees its writer done; the corrected variant's last 2 s, long enough for the query
// client's first max(_id) and queries.
func docStepParams(v workload.Variant) Params {
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.Rows, p.RowsI1, p.RowsI2 = 500, 300, 50
	p.QuerySeconds = 0.5
	if p.Corrected() {
		p.QuerySeconds = 2
	}
	p.Steps, p.Verify = StepNames(), workload.VerifyEachStep
	return p
}

// TestDocServerEngines runs every step of the Insert Benchmark (scan too) on FerretDB on SQLite
// and on PostgreSQL, in both variants, with verification after every write step and the
// engine's stats sampled as a run samples them; the cleanup step is skipped (the engine has
// none).
func TestDocServerEngines(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) {
				p := docStepParams(v)
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
				rn := &runner.Runner{Clock: runner.SystemClock()}
				if st, ok := db.(engine.Statser); ok {
					rn.Samplers = []runner.Sampler{workload.EngineStats{Engine: st}}
				}
				steps, err := workloadtest.Run(ctx, &Workload{p: p}, db, rn)
				if err != nil {
					for _, s := range steps {
						t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
					}
					t.Fatal(err)
				}
				checkDocSteps(t, p, steps)
			})
		}
	})
}

// checkDocSteps checks the steps of a run of p: each ended ok and verified, the writers wrote
// what they must, scan read every row through every index, the queries found rows.
func checkDocSteps(t *testing.T, p Params, steps []*result.Step) {
	t.Helper()
	if len(steps) != len(p.Steps) {
		t.Fatalf("%d steps ran, want %d", len(steps), len(p.Steps))
	}
	var inserted int64 // rows inserted so far: the largest transactionid
	for _, s := range steps {
		if ins := s.Ops["insert"]; ins != nil {
			inserted += ins.Units
		}
		if s.Name == "cleanup" {
			if s.Status != result.StatusSkipped && s.Status != result.StatusOK {
				t.Errorf("cleanup: %s %s", s.Status, s.Error)
			}
			continue
		}
		if s.Status != result.StatusOK {
			t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
		}
		if writes(s.Name) && (s.Verify == nil || !s.Verify.OK) {
			t.Errorf("%s: verify %+v", s.Name, s.Verify)
		}
		t.Logf("%s: %.2f s, verification: %s", s.Name, s.Seconds, verifyDetail(s))
		switch {
		case s.Name == "l.i1" || s.Name == "l.i2":
			want := p.RowsI1
			if s.Name == "l.i2" {
				want = p.RowsI2
			}
			if ins, del := s.Ops["insert"].Units, s.Ops["delete"].Units; ins != want || del != want {
				t.Errorf("%s inserted %d and deleted %d rows, want %d each", s.Name, ins, del, want)
			}
		case s.Name == "scan":
			live := p.Rows
			if !p.Corrected() {
				live += int64(p.BatchI0) // l.x inserts a batch before it indexes, as the reference
			}
			if len(s.Phases) != len(scanOrder) {
				t.Errorf("scan: %d phases, want %d", len(s.Phases), len(scanOrder))
			}
			for _, ph := range s.Phases {
				if ph.Rows != live {
					t.Errorf("scan %s read %d rows, want %d", ph.Name, ph.Rows, live)
				}
			}
		case s.Name[0] == 'q':
			q := s.Ops["query"]
			if q == nil || q.Units == 0 {
				t.Errorf("%s ran no query: %+v", s.Name, q)
				continue
			}
			want := float64(p.QueryRows)
			if s.Name[1] == 'p' {
				// As TestServerEngines: until the writer's first estimate, point queries draw
				// from [0, max).
				live := float64(p.Rows + int64(p.BatchI0))
				want = float64(p.PointIDs) * min(1, live/float64(max(inserted, 1)))
			}
			if avg := float64(q.Found) / float64(q.Units); avg < 0.8*want {
				t.Errorf("%s found %.1f rows per query, want about %.1f", s.Name, avg, want)
			}
		}
	}
}

// verifyDetail is the tail of a step's verification detail: what it read and how long it took.
func verifyDetail(s *result.Step) string {
	if s.Verify == nil {
		return "none"
	}
	d := s.Verify.Detail
	return d[strings.LastIndex(d, ";")+1:]
}

// docCollection returns pi1 of r's engine.
func docCollection(t *testing.T, r *run) doc.Collection {
	t.Helper()
	db, ok := r.eng.(doc.DB)
	if !ok {
		t.Fatalf("engine family %s", r.eng.Family())
	}
	return db.Collection("pi1")
}

// docEdges returns the smallest and largest _id of pi1.
func docEdges(t *testing.T, ctx context.Context, r *run) (first, last int64) {
	t.Helper()
	s := &docSession{b: r.be.(*docBackend)}
	first, _, err := s.minID(ctx, r.tables[0])
	if err != nil {
		t.Fatal(err)
	}
	last, _, err = s.maxID(ctx, r.tables[0])
	if err != nil {
		t.Fatal(err)
	}
	return first, last
}

// docOne returns the document of pi1 whose _id is id.
func docOne(t *testing.T, ctx context.Context, c doc.Collection, id int64) bson.D {
	t.Helper()
	var d bson.D
	found, err := c.FindOne(ctx, bson.D{{Key: fieldID, Value: id}}, doc.Find{}, &d)
	if err != nil || !found {
		t.Fatalf("document %d: found %v, %v", id, found, err)
	}
	return d
}

// mustDo fails the test on err.
func mustDo(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// docDamageParams are the sizes of TestDocVerificationCatchesDamage: every kind of write step,
// with deletes past l.i0's rows, so that the rows that remain start inside l.i1's.
func docDamageParams(v workload.Variant) Params {
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.Rows, p.RowsI1, p.RowsI2 = 600, 700, 25
	p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2"}
	return p
}

// TestDocVerificationCatchesDamage runs the write steps on FerretDB (each backend, each
// variant), checks that verification passes, then damages pi1 through its collection as
// TestServerVerificationCatchesDamage damages a table (an indexed field changed, a document
// deleted and another duplicated under a new _id, 300 documents' data altered, one more
// document deleted) and in the ways only a document can be (a field of another type with the
// same value, a field added, a field removed), and checks that verification fails and counts
// each.
func TestDocVerificationCatchesDamage(t *testing.T) {
	doctest.Each(t, doctest.Servers(), func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) {
				r := startRun(t, ctx, db, docDamageParams(v))
				c := docCollection(t, r)
				first, last := docEdges(t, ctx, r)
				if want := first + r.tables[0].live() - 1; last != want {
					t.Fatalf("_id from %d to %d, want to %d", first, last, want)
				}
				update := func(id int64, op, field string, value any) {
					t.Helper()
					_, err := c.UpdateOne(ctx, bson.D{{Key: fieldID, Value: id}}, bson.D{{Key: op, Value: bson.D{{Key: field, Value: value}}}}, false)
					mustDo(t, "update", err)
				}
				del := func(id int64) {
					t.Helper()
					n, err := c.DeleteOne(ctx, bson.D{{Key: fieldID, Value: id}})
					if err != nil || n != 1 {
						t.Fatalf("delete %d: %d, %v", id, n, err)
					}
				}
				update(first+7, "$set", fieldCust, docInt32(t, ctx, c, first+7, fieldCust)+1) // an indexed field
				del(first + 50)
				dup := docOne(t, ctx, c, first+70)
				dup[0].Value = last + 1
				mustDo(t, "insert", c.InsertOne(ctx, dup))
				_, err := c.UpdateMany(ctx, bson.D{{Key: fieldID, Value: bson.D{{Key: "$gte", Value: first + 100}, {Key: "$lt", Value: first + 400}}}},
					bson.D{{Key: "$set", Value: bson.D{{Key: fieldData, Value: "x"}}}})
				mustDo(t, "update", err)
				del(first + 500)
				update(first+10, "$set", fieldPrice, int64(docInt32(t, ctx, c, first+10, fieldPrice))) // the same value, an int64
				update(first+20, "$set", "extra", 1)
				update(first+30, "$unset", fieldData, "")
				res, err := r.verify(ctx, "l.i2")
				if err != nil || res == nil || res.OK {
					t.Fatalf("verification after the damage: %+v, %v", res, err)
				}
				t.Log(res.Detail)
				// The detail lists the first problems: the indexed field, the type and the fields.
				for _, want := range []string{"(problems: missing 2, extra 1, altered 304)", "altered: customerid",
					"altered: price -9223372036854775808, expected", "<8 fields, 1 of them not the benchmark's>", "<no string data>"} {
					if !strings.Contains(res.Detail, want) {
						t.Errorf("the detail does not say %q", want)
					}
				}
			})
		}
	})
}

// TestDocVerificationNeedsIndexes checks that verification fails when a secondary index is
// missing, though a sort on its fields would read every document without it.
func TestDocVerificationNeedsIndexes(t *testing.T) {
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		p, _ := DefaultParams("tiny")
		p.Rows, p.Steps = 300, []string{"l.i0"}
		r := startRun(t, ctx, db, p)
		r.tables[0].indexed.Store(true) // as if l.x had run
		res, err := r.verify(ctx, "l.i0")
		if err != nil || res == nil || res.OK || !strings.Contains(res.Detail, "pi1 has no index pc") {
			t.Fatalf("verification without the indexes: %+v, %v", res, err)
		}
	})
}

// docInt32 returns the int32 field of document id.
func docInt32(t *testing.T, ctx context.Context, c doc.Collection, id int64, field string) int32 {
	t.Helper()
	for _, e := range docOne(t, ctx, c, id) {
		if e.Key == field {
			if v, ok := e.Value.(int32); ok {
				return v
			}
		}
	}
	t.Fatalf("document %d has no int32 %s", id, field)
	return 0
}

// TestDocSharedTable runs the write steps and scan with two clients on one collection, in
// each variant, on FerretDB on SQLite: _id comes from the table's counter; in the reference
// variant each writer's deletes start from its own estimate, so two deletes may find the same
// documents and the second delete fewer (as the reference's PostgreSQL delete, whose rows are
// its subquery's), and the collection grows; in the corrected one they claim disjoint ranges
// and it keeps the size of the load. Every index holds every document.
func TestDocSharedTable(t *testing.T) {
	doctest.Each(t, []doctest.Server{doctest.SQLite()}, func(t *testing.T, s doctest.Server, ctx context.Context) {
		db, _ := s.Start(t, ctx, nil)
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) {
				p, _ := DefaultParams("tiny")
				p.Variant = v
				p.Clients, p.SharedTable = 2, true
				p.Rows, p.RowsI1, p.RowsI2 = 600, 300, 30
				p.BatchI1, p.Resync = 7, 5 // batches that do not divide the rows
				p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2", "scan"}
				if err := p.Validate(); err != nil {
					t.Fatal(err)
				}
				steps, err := workloadtest.Run(ctx, &Workload{p: p}, db, nil)
				if err != nil {
					t.Fatal(err)
				}
				last := steps[len(steps)-1]
				if last.Status != result.StatusOK || last.Verify == nil || !last.Verify.OK {
					t.Fatalf("scan: %s %s, verify %+v", last.Status, last.Error, last.Verify)
				}
				want := p.Rows + int64(p.BatchI0) // the reference's l.x inserts a batch
				if v == workload.Corrected {
					want = p.Rows
				}
				for _, ph := range last.Phases {
					if ph.Rows != last.Phases[0].Rows || ph.Rows < want || v == workload.Corrected && ph.Rows != want {
						t.Errorf("scan %s read %d documents, want %d (the reference: at least)", ph.Name, ph.Rows, want)
					}
				}
			})
		}
	})
}

// TestDocEncoding checks that a row encoded as a document decodes to itself, that the
// encoding of a batch allocates nothing once its buffers are warm, and that a document the
// benchmark did not write decodes to a row no generated row is.
func TestDocEncoding(t *testing.T) {
	p, _ := DefaultParams("tiny")
	rows := NewGen(&p, 1, 1).Batch(100, 1_700_000_000)
	s := &docSession{}
	s.buildDocs(rows)
	var got Row
	for i, raw := range s.docs {
		decodeDoc(raw, &got)
		want := rows[i]
		got.Key = want.Key
		if diff(&want, &got) != "as expected" {
			t.Fatalf("row %d: %s", i, diff(&want, &got))
		}
	}
	if n := testing.AllocsPerRun(10, func() { s.buildDocs(rows) }); n != 0 {
		t.Errorf("encoding a batch allocates %.0f times", n)
	}
	ids := []int64{1, 2, 3}
	s.appendIDsIn(nil, ids)
	if n := testing.AllocsPerRun(10, func() {
		s.filter = s.appendIDsIn(s.filter[:0], ids)
		s.filter = appendFieldFrom(s.filter[:0], fieldProd, 7)
		s.filter = appendIDFrom(s.filter[:0], 7)
	}); n != 0 {
		t.Errorf("building the filters allocates %.0f times", n)
	}
	for _, c := range []struct {
		name string
		d    bson.D
		want string
	}{
		{"int64 price", bson.D{{Key: fieldID, Value: int64(1)}, {Key: fieldPrice, Value: int64(3)}, {Key: fieldData, Value: "a"}}, "price -9223372036854775808"},
		{"a second's part", bson.D{{Key: fieldTime, Value: bson.DateTime(1_700_000_000_001)}, {Key: fieldData, Value: "a"}}, "dateandtime -9223372036854775808"},
		{"no data", bson.D{{Key: fieldID, Value: int64(1)}}, "<no string data>"},
		{"data not a string", bson.D{{Key: fieldData, Value: int32(1)}}, "<no string data>"},
		{"an extra field", bson.D{{Key: fieldData, Value: "a"}, {Key: "x", Value: 1}}, "<2 fields, 1 of them not the benchmark's>"},
		{"a field twice", bson.D{{Key: fieldData, Value: "a"}, {Key: fieldData, Value: "b"}}, "<2 fields, 1 of them not the benchmark's>"},
	} {
		raw, err := bson.Marshal(c.d)
		if err != nil {
			t.Fatal(err)
		}
		decodeDoc(raw, &got)
		if d := diff(&rows[0], &got); !strings.Contains(d, c.want) {
			t.Errorf("%s: decoded as %s: %s", c.name, values(&got), d)
		}
	}
}
