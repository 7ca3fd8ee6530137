package insertbench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// startRun runs p's steps on eng (every one must end ok) and returns the run, for a test to
// damage the data and verify again.
func startRun(t *testing.T, ctx context.Context, eng engine.Engine, p Params) *run {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	w := &Workload{p: p}
	r, err := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}, eng)
	if err != nil {
		t.Fatal(err)
	}
	var steps []*result.Step
	if err := r.steps(ctx, func(s *result.Step) { steps = append(steps, s) }); err != nil {
		for _, s := range steps {
			t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
		}
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	if last.Verify == nil || !last.Verify.OK {
		t.Fatalf("verification of the undamaged data: %+v", last.Verify)
	}
	return r
}

// damageParams are the sizes of the damage tests: every kind of write step, with deletes, so
// that the rows that remain start inside l.i1's.
func damageParams(v workload.Variant) Params {
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.Rows, p.RowsI1, p.RowsI2 = 3000, 3500, 400
	p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2"}
	return p
}

// damage is a change made to a table through the engine after a run, and what verification
// must then say.
type damage struct {
	name string
	sql  func(t *testing.T, db *sql.DB, first int64) // first: the smallest transactionid of pi1
	kv   func(t *testing.T, d *kvDamage)
	want []string // in the detail
}

// damages are the four damages of the issue: a row deleted and another duplicated, 1000 rows'
// values changed, one row deleted, and one row's secondary index column changed.
var damages = []damage{
	{name: "delete-and-duplicate",
		sql: func(t *testing.T, db *sql.DB, first int64) {
			execSQL(t, db, fmt.Sprintf("DELETE FROM pi1 WHERE transactionid = %d", first+50))
			execSQL(t, db, "INSERT INTO pi1 "+insertColumns+" SELECT dateandtime, cashregisterid, customerid, productid, price, data "+
				fmt.Sprintf("FROM pi1 WHERE transactionid = %d", first+70))
		},
		kv: func(t *testing.T, d *kvDamage) {
			d.del(d.first + 50)
			r := d.row(d.first + 70)
			r.ID = d.last + 1
			d.set(r)
		},
		want: []string{"missing 1", "extra 1", "1 row missing before transactionid"}},
	{name: "alter-1000-rows",
		sql: func(t *testing.T, db *sql.DB, first int64) {
			execSQL(t, db, fmt.Sprintf("UPDATE pi1 SET data = 'x' WHERE transactionid >= %d AND transactionid < %d", first+100, first+1100))
		},
		kv: func(t *testing.T, d *kvDamage) {
			for id := d.first + 100; id < d.first+1100; id++ {
				r := d.row(id)
				d.del(id)
				r.Data = []byte("x")
				d.set(r)
			}
		},
		want: []string{"altered 1000", `data "x", expected`}},
	{name: "delete-one-row",
		sql: func(t *testing.T, db *sql.DB, first int64) {
			execSQL(t, db, fmt.Sprintf("DELETE FROM pi1 WHERE transactionid = %d", first+500))
		},
		kv:   func(t *testing.T, d *kvDamage) { d.del(d.first + 500) },
		want: []string{"missing 1", "1 row missing before transactionid"}},
	{name: "secondary-index-column",
		sql: func(t *testing.T, db *sql.DB, first int64) {
			execSQL(t, db, fmt.Sprintf("UPDATE pi1 SET customerid = customerid + 1 WHERE transactionid = %d", first+7))
		},
		kv: func(t *testing.T, d *kvDamage) {
			r := d.row(d.first + 7)
			d.batch.Delete(appendIndexKey(nil, d.tb, idxMarket, r))
			r.CustomerID++
			d.batch.Set(appendIndexKey(nil, d.tb, idxMarket, r), nil)
			d.commit()
		},
		want: []string{"customerid"}},
}

func execSQL(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// kvDamage changes rows of a KV engine's table directly, keys and all.
type kvDamage struct {
	t           *testing.T
	db          kv.DB
	tb          *table
	batch       kv.Batch
	first, last int64 // the table's smallest and largest transactionid
}

func (d *kvDamage) row(id int64) *Row {
	d.t.Helper()
	v, ok, err := d.db.Get(appendPK(nil, d.tb, id), nil)
	if err != nil || !ok {
		d.t.Fatalf("row %d: %v %v", id, ok, err)
	}
	r := &Row{}
	if err := decodePK(appendPK(nil, d.tb, id), v, r); err != nil {
		d.t.Fatal(err)
	}
	r.Data = append([]byte(nil), r.Data...)
	return r
}

// del deletes row id and its index entries.
func (d *kvDamage) del(id int64) {
	r := d.row(id)
	d.batch.Delete(appendPK(nil, d.tb, id))
	for idx := idxMarket; idx <= idxPDC; idx++ {
		d.batch.Delete(appendIndexKey(nil, d.tb, idx, r))
	}
	d.commit()
}

// set writes r and its index entries.
func (d *kvDamage) set(r *Row) {
	d.batch.Set(appendPK(nil, d.tb, r.ID), appendPKValue(nil, r))
	for idx := idxMarket; idx <= idxPDC; idx++ {
		d.batch.Set(appendIndexKey(nil, d.tb, idx, r), nil)
	}
	d.commit()
}

func (d *kvDamage) commit() {
	d.t.Helper()
	if err := d.batch.Commit(); err != nil {
		d.t.Fatal(err)
	}
}

// applyDamage makes dm on table pi1 of r's engine.
func applyDamage(t *testing.T, ctx context.Context, r *run, dm damage) {
	t.Helper()
	tb := r.tables[0]
	switch db := r.eng.(type) {
	case sqldb.DB:
		var first int64
		if err := db.SQL().QueryRowContext(ctx, "SELECT min(transactionid) FROM pi1").Scan(&first); err != nil {
			t.Fatal(err)
		}
		dm.sql(t, db.SQL(), first)
	case kv.DB:
		s := &kvSession{db: db, p: r.p}
		first, _, err := s.minID(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		last, _, err := s.maxID(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		b := db.NewBatch()
		defer b.Close()
		dm.kv(t, &kvDamage{t: t, db: db, tb: tb, batch: b, first: first, last: last})
	default:
		t.Fatalf("engine family %s", r.eng.Family())
	}
}

// checkDamage runs p on a fresh engine of d, checks that verification passes, damages pi1 and
// checks that verification fails, saying what damage.want says.
func checkDamage(t *testing.T, open func(t *testing.T) engine.Engine, p Params, dm damage) {
	ctx := context.Background()
	r := startRun(t, ctx, open(t), p)
	applyDamage(t, ctx, r, dm)
	v, err := r.verify(ctx, "l.i0")
	if err != nil || v == nil || v.OK {
		t.Fatalf("verification after the damage: %+v, %v, want it failed", v, err)
	}
	for _, w := range dm.want {
		if !strings.Contains(v.Detail, w) {
			t.Errorf("detail %q lacks %q", v.Detail, w)
		}
	}
	if !strings.Contains(v.Detail, "pi1: expected") {
		t.Errorf("detail %q does not name the table", v.Detail)
	}
	if len(v.Detail) > 4000 {
		t.Errorf("detail of %d bytes", len(v.Detail))
	}
	t.Log(v.Detail)
}

// openDriver returns a function that opens d on a temporary directory for the test.
func openDriver(d engine.Driver) func(t *testing.T) engine.Engine {
	return func(t *testing.T) engine.Engine {
		kvtest.RequireBuilt(t, d)
		return enginetest.Open(t, context.Background(), d, "", nil, t.TempDir())
	}
}

// TestVerificationCatchesDamage damages the data after a run on SQLite and Pebble, in each
// variant, and checks that verification, which passed before, fails and says what it found.
func TestVerificationCatchesDamage(t *testing.T) {
	for _, d := range []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver()} {
		for _, v := range variants {
			for _, dm := range damages {
				t.Run(d.Name+"/"+string(v)+"/"+dm.name, func(t *testing.T) {
					checkDamage(t, openDriver(d), damageParams(v), dm)
				})
			}
		}
	}
}

// TestVerificationSharedTableDamage checks a shared table, whose writers' rows interleave:
// undamaged it passes, and a deleted row fails it.
func TestVerificationSharedTableDamage(t *testing.T) {
	for _, d := range []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver()} {
		t.Run(d.Name, func(t *testing.T) {
			p := damageParams(workload.Reference)
			p.Clients, p.SharedTable = 3, true
			p.BatchI1 = 7
			checkDamage(t, openDriver(d), p, damages[2])
		})
	}
}

// TestScanStepCountsAgainstLive deletes a row between the cleanup and the scan steps: the scan,
// which counts every index, must fail the step with the counts.
func TestScanStepCountsAgainstLive(t *testing.T) {
	ctx := context.Background()
	eng := openDriver(sqldb.SQLiteDriver())(t)
	p, _ := DefaultParams("tiny")
	p.Rows = 2000
	p.Steps = []string{"l.i0", "l.x", "cleanup", "scan"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var scan *result.Step
	err := (&Workload{p: p}).Run(ctx, env, eng, func(s *result.Step) {
		switch s.Name {
		case "cleanup":
			execSQL(t, eng.(sqldb.DB).SQL(), "DELETE FROM pi1 WHERE transactionid = 1000")
		case "scan":
			scan = s
		}
	})
	if err == nil || scan == nil || scan.Status != result.StatusFailed {
		t.Fatalf("run: %v, scan %+v: want the scan failed", err, scan)
	}
	if want := "pi1: 2099 rows read through pk, 2100 must be there"; !strings.Contains(scan.Error, want) {
		t.Errorf("scan error %q lacks %q", scan.Error, want)
	}
}

// TestVerificationAfterShortDeletes checks the check that holds when a delete deleted fewer rows
// than it asked for (the rows deleted need not be the oldest): the rows must be those inserted,
// in order with gaps as many as the rows deleted. It passes on undamaged data and fails on a
// row deleted or a row added.
func TestVerificationAfterShortDeletes(t *testing.T) {
	ctx := context.Background()
	for _, dm := range []damage{damages[0], damages[2]} {
		t.Run(dm.name, func(t *testing.T) {
			r := startRun(t, ctx, openDriver(sqldb.SQLiteDriver())(t), damageParams(workload.Reference))
			r.tables[0].short.Store(1)
			if v, err := r.verify(ctx, "l.i0"); err != nil || v == nil || !v.OK {
				t.Fatalf("verification with short deletes, undamaged: %+v, %v", v, err)
			}
			applyDamage(t, ctx, r, dm)
			v, err := r.verify(ctx, "l.i0")
			if err != nil || v == nil || v.OK {
				t.Fatalf("verification after the damage: %+v, %v, want it failed", v, err)
			}
			t.Log(v.Detail)
		})
	}
}
