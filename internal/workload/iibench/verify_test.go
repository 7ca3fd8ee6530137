package iibench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// damageEngines are the engines the damage tests run on: an embedded SQL engine, an embedded
// KV engine and the two server families.
var damageEngines = []string{"sqlite", "pebble", "postgres", "innodb"}

// damageCases returns the engine cases of damageEngines.
func damageCases() []engineCase {
	var out []engineCase
	for _, c := range engineCases {
		if slices.Contains(damageEngines, c.label()) {
			out = append(out, c)
		}
	}
	return out
}

// damageParams are a short run with two insert threads, whose transactionids interleave (in
// blocks of 1000 on PostgreSQL, whose reference variant caches its sequence), with a padding
// column, and without queries.
func damageParams() Params {
	p, _ := DefaultParams("tiny")
	p.MaxRows, p.InsertBatch, p.InsertThreads, p.QueryThreads = 1500, 100, 2, 0
	p.CharFields, p.CharLength = 1, 20
	return p
}

// runFor runs p on eng through a run the test keeps, so that it can verify again, and checks
// that the run and its verification passed.
func runFor(t *testing.T, ctx context.Context, p Params, eng engine.Engine, clock runner.Clock, wrap func(backend) backend) (*run, *result.Step) {
	t.Helper()
	w := mustNew(t, p)
	if clock == nil {
		clock = runner.SystemClock()
	}
	r, err := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: clock}}, eng)
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		r.be = wrap(r.be)
	}
	st := r.step(ctx)
	if st.Status != result.StatusOK || st.Verify == nil || !st.Verify.OK {
		t.Fatalf("the run before any damage: %s %s, verify %+v", st.Status, st.Error, st.Verify)
	}
	return r, st
}

// readRows returns every row of the table, read through the primary key.
func readRows(t *testing.T, ctx context.Context, be backend) []Row {
	t.Helper()
	var rows []Row
	err := be.scanRows(ctx, func(s *storedRow) {
		rows = append(rows, Row{ID: s.ID, DateAndTime: s.Date, CashRegisterID: s.CashReg, CustomerID: s.Customer,
			ProductID: s.Product, Price: centsOf(float64(math.Float32frombits(uint32(s.Price)))),
			Data: slices.Clone(s.Data), Pad: slices.Clone(s.Pad)})
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// kvWrite applies fn's writes to db in one batch.
func kvWrite(t *testing.T, db kv.DB, fn func(b kv.Batch)) {
	t.Helper()
	b := db.NewBatch()
	defer b.Close()
	fn(b)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// kvDelete deletes row r and its index entries; kvPut writes them.
func kvDelete(b kv.Batch, p *Params, r *Row) {
	for _, idx := range p.Indexes() {
		b.Delete(appendEntry(nil, idx, r))
	}
}

func kvPut(b kv.Batch, p *Params, r *Row) {
	for _, idx := range p.Indexes() {
		var v []byte
		if idx == idxPK {
			v = appendPKValue(nil, r)
		}
		b.Set(appendEntry(nil, idx, r), v)
	}
}

// damage is damage done to the table through the engine after a run, and what verification
// must then say. sql gets the table's transactionids in order; kv gets its rows.
type damage struct {
	name string
	sql  func(ids []int64) []string
	kv   func(b kv.Batch, p *Params, rows []Row)
	want func(n int64) []string // the detail must contain each
}

const cols = "dateandtime, cashregisterid, customerid, productid, price, data, charfield1"

var damages = []damage{
	{
		name: "a deleted row balanced by a duplicate of another",
		sql: func(ids []int64) []string {
			return []string{fmt.Sprintf("DELETE FROM purchases_index WHERE transactionid = %d", ids[10]),
				fmt.Sprintf("INSERT INTO purchases_index (%s) SELECT %[1]s FROM purchases_index WHERE transactionid = %d", cols, ids[20])}
		},
		kv: func(b kv.Batch, p *Params, rows []Row) {
			kvDelete(b, p, &rows[10])
			dup := rows[20]
			dup.ID = rows[len(rows)-1].ID + 1
			kvPut(b, p, &dup)
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (1 missing, 1 extra)", n, n), "is missing", "is an extra row"}
		},
	},
	{
		name: "1000 rows with another productid",
		sql: func(ids []int64) []string {
			return []string{fmt.Sprintf("UPDATE purchases_index SET productid = productid + 1 WHERE transactionid <= %d", ids[999])}
		},
		kv: func(b kv.Batch, p *Params, rows []Row) {
			for i := range rows[:1000] {
				r := rows[i]
				r.ProductID++
				kvPut(b, p, &r)
			}
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (1000 changed)", n, n), "differs: productid"}
		},
	},
	{
		name: "a deleted row",
		sql: func(ids []int64) []string {
			return []string{fmt.Sprintf("DELETE FROM purchases_index WHERE transactionid = %d", ids[500])}
		},
		kv: func(b kv.Batch, p *Params, rows []Row) { kvDelete(b, p, &rows[500]) },
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (1 missing) marketsegment=%[2]d (entries differ)", n, n-1), "is missing"}
		},
	},
	{
		name: "a batch of 100 rows deleted",
		sql: func(ids []int64) []string {
			return []string{fmt.Sprintf("DELETE FROM purchases_index WHERE transactionid BETWEEN %d AND %d", ids[300], ids[399])}
		},
		kv: func(b kv.Batch, p *Params, rows []Row) {
			for i := range rows[300:400] {
				kvDelete(b, p, &rows[300+i])
			}
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("expected %d, pk=%d (100 missing) marketsegment=%[2]d (entries differ)", n, n-100), "rows ", "are missing"}
		},
	},
	{
		name: "a row with another customerid, a column of the secondary indexes",
		sql: func(ids []int64) []string {
			return []string{fmt.Sprintf("UPDATE purchases_index SET customerid = customerid + 1 WHERE transactionid = %d", ids[7])}
		},
		kv: func(b kv.Batch, p *Params, rows []Row) {
			r := rows[7]
			kvDelete(b, p, &r)
			r.CustomerID++
			kvPut(b, p, &r)
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d (1 changed) marketsegment=%[1]d (as many entries, but they differ) "+
				"registersegment=%[1]d (as many entries, but they differ) pdc=%[1]d (as many entries, but they differ)", n), "differs: customerid"}
		},
	},
	{
		name: "an index entry changed under its row", // a KV engine's indexes are the workload's own writes
		kv: func(b kv.Batch, p *Params, rows []Row) {
			r := rows[3]
			b.Delete(appendEntry(nil, idxMarket, &r))
			r.Price++
			b.Set(appendEntry(nil, idxMarket, &r), nil)
		},
		want: func(n int64) []string {
			return []string{fmt.Sprintf("pk=%d marketsegment=%[1]d (as many entries, but they differ) registersegment=%[1]d pdc=%[1]d", n)}
		},
	},
}

// TestVerificationCatchesDamage runs iiBench on real engines, damages the table through the
// engine after each run, and checks that verification, which passed before the damage, fails
// and says what it found: rows missing, extra and changed, even where the row counts still
// match, and index entries that differ from their rows'.
func TestVerificationCatchesDamage(t *testing.T) {
	for _, c := range damageCases() {
		t.Run(c.label(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			isSQL := c.driver.Family == engine.FamilySQL
			var eng engine.Engine
			for _, d := range damages {
				if isSQL && d.sql == nil {
					continue
				}
				if eng == nil || !isSQL {
					eng = c.open(t, ctx) // a KV engine cannot drop its ranges: a fresh one
				}
				r, _ := runFor(t, ctx, damageParams(), eng, nil, nil)
				n := r.inserted.Load()
				if isSQL {
					var ids []int64
					for _, row := range readRows(t, ctx, r.be) {
						ids = append(ids, row.ID)
					}
					for _, q := range d.sql(ids) {
						if _, err := eng.(sqldb.DB).SQL().ExecContext(ctx, q); err != nil {
							t.Fatalf("%s: %v", q, err)
						}
					}
				} else {
					rows := readRows(t, ctx, r.be)
					kvWrite(t, eng.(kv.DB), func(b kv.Batch) { d.kv(b, r.p, rows) })
				}
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
}

// errTransient is an injected transient conflict.
var errTransient = errors.New("injected transient conflict")

// faultBackend makes every every-th insert attempt fail with errTransient, after burn has
// consumed the transactionids that the engine gives a failed attempt, as a deadlock after the
// ids were taken leaves them unused.
type faultBackend struct {
	backend
	every  int64
	burn   func(context.Context) error
	n      atomic.Int64
	failed atomic.Int64
}

func (f *faultBackend) retryable(err error) bool {
	return errors.Is(err, errTransient) || f.backend.retryable(err)
}

func (f *faultBackend) newSession(ctx context.Context) (session, error) {
	s, err := f.backend.newSession(ctx)
	if err != nil {
		return nil, err
	}
	return &faultSession{session: s, f: f}, nil
}

type faultSession struct {
	session
	f *faultBackend
}

func (s *faultSession) insert(ctx context.Context, rows []Row) error {
	if s.f.n.Add(1)%s.f.every != 0 {
		return s.session.insert(ctx, rows)
	}
	if s.f.burn != nil {
		if err := s.f.burn(ctx); err != nil {
			return err
		}
	}
	s.f.failed.Add(1)
	return errTransient
}

// burnIDs returns what consumes transactionids of eng unused: nextval of the sequence on
// PostgreSQL, an insert rolled back on MariaDB (InnoDB does not give its auto-increment values
// back), the shared counter of a KV engine. SQLite gives a rolled-back rowid back: nil.
func burnIDs(eng engine.Engine, be backend) func(context.Context) error {
	if kb, ok := be.(*kvBackend); ok {
		return func(context.Context) error { kb.ids.Add(7); return nil }
	}
	db := eng.(sqldb.DB)
	switch db.Dialect().Name() {
	case "postgres":
		return func(ctx context.Context) error {
			_, err := db.SQL().ExecContext(ctx, "SELECT nextval('purchases_index_transactionid_seq')")
			return err
		}
	case "mysql":
		return func(ctx context.Context) error {
			tx, err := db.SQL().BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			_, err = tx.ExecContext(ctx, "INSERT INTO purchases_index (dateandtime, cashregisterid, customerid, productid, price, data, charfield1) "+
				"VALUES (NOW(), 0, 0, 0, 0, 'x', 'y')")
			return err
		}
	}
	return nil
}

// TestVerificationAfterRetriesAndGaps injects a transient conflict into every seventh insert,
// after consuming transactionids as a failed attempt does, on real engines: every conflict is
// retried and counted, the ids have gaps, and verification passes (the rows are the same rows,
// sent again). The runner's manual clock makes the backoff instant.
func TestVerificationAfterRetriesAndGaps(t *testing.T) {
	for _, c := range damageCases() {
		t.Run(c.label(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			eng := c.open(t, ctx)
			var fb *faultBackend
			clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			r, st := runFor(t, ctx, damageParams(), eng, clock, func(be backend) backend {
				fb = &faultBackend{backend: be, every: 7, burn: burnIDs(eng, be)}
				return fb
			})
			if n := fb.failed.Load(); n < 2 || st.Retries["insert"] != n {
				t.Errorf("%d conflicts injected, %v retries counted", n, st.Retries)
			}
			rows := readRows(t, ctx, r.be)
			last := rows[len(rows)-1].ID
			if fb.burn != nil && last <= int64(len(rows)) {
				t.Errorf("%d rows up to transactionid %d: no gap", len(rows), last)
			}
			t.Logf("%d rows up to transactionid %d; %s", len(rows), last, st.Verify.Detail)
		})
	}
}

// TestRowsArePureFunctionsOfTheirPlace checks that a row depends on the seed, its insert thread
// and its place in that thread's sequence alone: the same row made alone, after other rows, in
// another batch or at another time is the same but for dateandtime, and the neighbouring rows,
// threads and seeds differ.
func TestRowsArePureFunctionsOfTheirPlace(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.CharFields, p.CharLength = 2, 30
	g := NewGen(&p, 5, 1)
	g.Batch(7, 100)
	batch := g.Batch(10, 200) // rows 7..16
	alone := NewGen(&p, 5, 1).Row(12, 300)
	want := batch[5]
	want.DateAndTime = 300
	s := storedRow{Date: 300, CashReg: alone.CashRegisterID, Customer: alone.CustomerID, Product: alone.ProductID,
		Price: uint64(priceBits(alone.Price)), Data: alone.Data, Pad: alone.Pad}
	if !(form{}).sameRow(&s, &want) {
		t.Errorf("row 12 made alone differs from the same row of a batch: %v", form{}.diffRow(&s, &want))
	}
	for name, r := range map[string]*Row{
		"row 13":            NewGen(&p, 5, 1).Row(13, 300),
		"thread 2's row 12": NewGen(&p, 5, 2).Row(12, 300),
		"seed 6's row 12":   NewGen(&p, 6, 1).Row(12, 300),
	} {
		if len(form{}.diffRow(&s, r)) < 4 {
			t.Errorf("%s is much like thread 1's row 12 of seed 5: %v", name, form{}.diffRow(&s, r))
		}
	}
}
