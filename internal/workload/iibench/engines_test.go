package iibench

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// engineCase is an engine every test runs on: the embedded ones always, the servers where
// they are installed, with memory settings small enough for a test.
type engineCase struct {
	name   string // the subtest's name; empty: the driver's
	driver engine.Driver
	small  map[string]string
	srv    *sqldbtest.Server // servers only
}

var engineCases = newEngineCases()

// newEngineCases returns the embedded engines, WiredTiger with LSM indexes (the published
// iiBench setup: a B-tree table with LSM indexes) and the managed servers, with sqldbtest's
// small sizes.
func newEngineCases() []engineCase {
	var cs []engineCase
	for _, d := range embeddedtest.Drivers() {
		cs = append(cs, engineCase{driver: d})
	}
	cs = append(cs, engineCase{name: "wiredtiger-lsm-indexes", driver: wiredtiger.Driver(), small: map[string]string{"index_type": "lsm", "lsm_chunk_mb": "1"}})
	for _, s := range sqldbtest.Servers() {
		cs = append(cs, engineCase{driver: s.Driver, srv: &s})
	}
	return cs
}

// label is the case's subtest name.
func (c engineCase) label() string {
	if c.name != "" {
		return c.name
	}
	return c.driver.Name
}

// open opens a fresh engine of c (skipping the test when its server is not installed).
func (c engineCase) open(t *testing.T, ctx context.Context) engine.Engine {
	t.Helper()
	kvtest.RequireBuilt(t, c.driver)
	if c.srv != nil {
		eng, _ := c.srv.Start(t, ctx, false)
		return eng
	}
	return enginetest.Open(t, ctx, c.driver, "", c.small, t.TempDir())
}

// openNull opens the null engine, closed when the test ends.
func openNull(tb testing.TB) kv.DB {
	tb.Helper()
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng.(kv.DB)
}

// nullSession returns a KV session of p (validated) on the null engine, closed when the test ends.
func nullSession(tb testing.TB, p *Params) session {
	tb.Helper()
	if err := p.Validate(); err != nil {
		tb.Fatal(err)
	}
	be, err := newBackend(openNull(tb), p)
	if err != nil {
		tb.Fatal(err)
	}
	sess, err := be.newSession(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sess.close() })
	return sess
}

// mustNew returns the workload of p, failing the test when p is not valid.
func mustNew(t testing.TB, p Params) *Workload {
	t.Helper()
	w, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runOn runs w on eng and returns its one step and Run's error.
func runOn(t testing.TB, ctx context.Context, w *Workload, eng engine.Engine, rn *runner.Runner) (*result.Step, error) {
	t.Helper()
	steps, err := workloadtest.Run(ctx, w, eng, rn)
	if len(steps) != 1 {
		t.Fatalf("%d steps emitted, want 1 (err %v)", len(steps), err)
	}
	return steps[0], err
}

// TestEngines checks on every engine, in both variants, first, that each query returns the rows
// of its index in index order from its seek point on, as the variant's statements select them
// (against a brute-force sort of the rows inserted, with small domains so that seeks land on
// equal leading columns), then runs iiBench at tiny scale with verification.
func TestEngines(t *testing.T) {
	for _, c := range engineCases {
		t.Run(c.label(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			var eng engine.Engine
			for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
				if _, ok := eng.(sqldb.DB); !ok {
					eng = c.open(t, ctx) // a KV engine cannot drop its ranges: a fresh one
				}
				checkQueryShapes(t, ctx, eng, v)
			}
			if _, ok := eng.(sqldb.DB); !ok {
				eng = c.open(t, ctx)
			}
			checkTinyRun(t, ctx, eng, 0)
		})
	}
}

// randomSeek returns a seek point of index idx with each column uniform in its domain (the
// price within the domain of every customer's), dateandtime between from and to.
func randomSeek(rng *rand.Rand, p *Params, idx int, rows, from, to int64) Key {
	var k Key
	for i, c := range indexes[idx].cols {
		switch c {
		case colID:
			k[i] = rng.Int64N(rows + 2)
		case colPrice:
			k[i] = rng.Int64N(int64(p.Customers + p.MaxPrice))
		case colCustomer:
			k[i] = rng.Int64N(int64(p.Customers))
		case colRegister:
			k[i] = rng.Int64N(int64(p.CashRegs))
		case colDate:
			k[i] = from + rng.Int64N(to-from+1)
		}
	}
	return k
}

// selects reports whether the query of index idx with seek point sk returns a row of key k, as
// the statements of b select it. enginebench's statements and the KV engines seek the whole
// key exactly. MariaDB's reference statements compare each column in turn with the seek's
// (a = ? and b >= ?) OR (a > ?), where a price is the decimal the reference writes against the
// single-precision value the FLOAT column holds, which is seldom equal to it. PostgreSQL's
// reference statements seek the first column only: price >= ?, cashregisterid > ?.
func selects(b *sqlBackend, idx int, k, sk Key) bool {
	cols := indexes[idx].cols
	if b == nil || !b.ref {
		return compareKeys(k, sk, len(cols)) >= 0
	}
	if b.d.Name() == "postgres" {
		if idx == idxRegister {
			return k[0] > sk[0]
		}
		return k[0] >= sk[0]
	}
	for i, c := range cols {
		d := cmp.Compare(k[i], sk[i])
		if c == colPrice {
			d = cmp.Compare(priceStored(k[i]), priceDecimal(sk[i]))
		}
		if d != 0 {
			return d > 0
		}
	}
	return true
}

func checkQueryShapes(t *testing.T, ctx context.Context, eng engine.Engine, v workload.Variant) {
	t.Helper()
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.CashRegs, p.Customers, p.MaxPrice = 4, 30, 7
	p.CharFields, p.CharLength = 1, 20
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	be, err := newBackend(eng, &p)
	if err != nil {
		t.Fatal(err)
	}
	if err := be.create(ctx); err != nil {
		t.Fatal(err)
	}
	sess, err := be.newSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.close()
	sb, _ := be.(*sqlBackend)
	gen := NewGen(&p, 1, 2)
	var rows []Row
	const t0 = 1_700_000_000
	for b := 0; b < 12; b++ {
		batch := gen.Batch(250, t0+int64(b%5)) // five distinct times, repeated
		if err := sess.insert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		for _, r := range batch {
			r.Data, r.Pad = slices.Clone(r.Data), slices.Clone(r.Pad)
			r.ID = int64(len(rows) + 1) // SQL engines assign the same ids in insert order
			rows = append(rows, r)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, idx := range p.Indexes() {
		n := len(indexes[idx].cols)
		keys := make([]Key, len(rows))
		for i := range rows {
			keys[i] = rows[i].key(idx)
		}
		slices.SortFunc(keys, func(a, b Key) int { return compareKeys(a, b, n) })
		var out []Key
		for i := 0; i < 60; i++ {
			var sk Key
			switch i % 3 {
			case 0: // an existing key
				sk = keys[rng.IntN(len(keys))]
			case 1:
				sk = randomSeek(rng, &p, idx, int64(len(rows)), t0-1, t0+5)
			default: // around the ends of the domains
				sk = randomSeek(rng, &p, idx, int64(len(rows)), t0-1, t0+5)
				sk[0] = []int64{-1, 0, keys[len(keys)-1][0], keys[len(keys)-1][0] + 1}[rng.IntN(4)]
			}
			limit := 1 + rng.IntN(60)
			out, err = sess.query(ctx, idx, sk, limit, out)
			if err != nil {
				t.Fatalf("%s: %v", indexes[idx].name, err)
			}
			from := slices.IndexFunc(keys, func(k Key) bool { return selects(sb, idx, k, sk) })
			if from < 0 {
				from = len(keys)
			}
			want := keys[from:min(from+limit, len(keys))]
			if !slices.Equal(out, want) {
				t.Fatalf("%s %s: seek %v limit %d returned\n %v\nwant\n %v", v, indexes[idx].name, sk[:n], limit, out, want)
			}
		}
	}
	checkScans(t, ctx, be, &p, rows, form{})
	if db, ok := eng.(sqldb.DB); ok {
		checkPlans(t, ctx, db, sb)
	}
}

// checkScans checks verification's reads against the rows inserted: every row through the
// primary key in order, with its values, and every entry of each secondary index in index order.
func checkScans(t *testing.T, ctx context.Context, be backend, p *Params, rows []Row, f form) {
	t.Helper()
	i := 0
	err := be.scanRows(ctx, func(s *storedRow) {
		if i < len(rows) && (s.ID != rows[i].ID || !f.sameRow(s, &rows[i])) {
			t.Errorf("row %d read through pk: %s, differs from transactionid %d: %v", i, s.idText(), rows[i].ID, f.diffRow(s, &rows[i]))
		}
		i++
	})
	if err != nil || i != len(rows) {
		t.Errorf("read %d rows through pk (%v), want %d", i, err, len(rows))
	}
	for _, idx := range p.Indexes()[1:] {
		n := len(indexes[idx].cols)
		want := make([]Key, len(rows))
		for i := range rows {
			want[i] = f.rawKey(&rows[i], idx)
		}
		slices.SortFunc(want, func(a, b Key) int { return compareKeys(a, b, n) })
		var got []Key
		if err := be.scanIndex(ctx, idx, func(k Key) { got = append(got, k) }); err != nil {
			t.Errorf("%s: %v", indexes[idx].name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the entries read differ from the rows' (%d read, %d rows)", indexes[idx].name, len(got), len(want))
		}
	}
}

// checkPlans checks that every query reads its index in order from the seek point rather than
// sorting: each plan is a range of the query's own index, without a sort.
func checkPlans(t *testing.T, ctx context.Context, db sqldb.DB, b *sqlBackend) {
	t.Helper()
	if b.d.Name() == "postgres" {
		// With statistics, and a limit that is small against the table, as in a real run.
		if _, err := db.SQL().ExecContext(ctx, "ANALYZE "+tableName); err != nil {
			t.Fatal(err)
		}
	}
	seek := Key{3, 1_700_000_002, 5}
	for _, idx := range b.p.Indexes() {
		checkScanPlan(t, ctx, db, b, idx)
		var text string
		if b.ref {
			q := b.refQuery(idx, 10)
			text = explainRef(t, ctx, db, b, idx, q, seek)
		} else {
			q, args := b.queryText(idx, 10)
			vals := make([]any, len(args))
			for i, a := range args {
				vals[i] = b.keyArg(indexes[idx].cols[a], seek[a])
			}
			text = explain(t, ctx, db, false, q, vals...)
		}
		bad := map[string]string{"sqlite": "TEMP B-TREE", "mysql": "filesort", "postgres": "Sort"}[b.d.Name()]
		name := indexes[idx].name
		want := map[string]string{"sqlite": "SEARCH " + tableName + " USING COVERING INDEX " + name,
			"mysql": "range " + name, "postgres": "Index Only Scan using " + name}[b.d.Name()]
		if idx == idxPK {
			want = map[string]string{"sqlite": "SEARCH " + tableName + " USING INTEGER PRIMARY KEY",
				"mysql": "range PRIMARY", "postgres": "Index Only Scan using " + tableName + "_pkey"}[b.d.Name()]
			if b.ref && b.d.Name() == "postgres" { // SELECT *
				want = "Index Scan using " + tableName + "_pkey"
			}
		}
		if strings.Contains(text, bad) || !strings.Contains(text, want) {
			t.Errorf("%s: the plan of the %s query is\n %s", indexes[idx].name, b.p.Variant, text)
		}
	}
}

// explainRef returns the plan of the reference query q of index idx at seek: on PostgreSQL, of
// its EXECUTE on a connection that prepares it as the reference does (and then deallocates it).
func explainRef(t *testing.T, ctx context.Context, db sqldb.DB, b *sqlBackend, idx int, q refQuery, seek Key) string {
	t.Helper()
	vals := make([]any, len(q.args))
	for i, a := range q.args {
		vals[i] = b.keyArg(indexes[idx].cols[a], seek[a])
	}
	if b.d.Name() != "postgres" {
		return explain(t, ctx, db, false, q.text, vals...)
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PREPARE %s (%s) AS %s", q.name, q.types, q.text)); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "DEALLOCATE "+q.name)
	return explainConn(t, ctx, conn, "EXPLAIN EXECUTE "+q.name+" ($1)", vals...)
}

// explain returns the plan of q (with args) as one line, run in a transaction, after the
// dialect's IndexOrderSettings when ordered (as sqldb.Count runs its counts where the dialect
// has no hints; the queries run without them).
func explain(t *testing.T, ctx context.Context, db sqldb.DB, ordered bool, q string, args ...any) string {
	t.Helper()
	d := db.Dialect()
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, st := range d.IndexOrderSettings() {
		if !ordered {
			break
		}
		if _, err := tx.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	prefix := map[string]string{"sqlite": "EXPLAIN QUERY PLAN ", "postgres": "EXPLAIN ", "mysql": "EXPLAIN "}[d.Name()]
	return explainConn(t, ctx, tx, prefix+q, args...)
}

// explainConn returns the rows of the EXPLAIN statement q (with args) on c as one line.
func explainConn(t *testing.T, ctx context.Context, c interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args ...any) string {
	t.Helper()
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		cells := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, c := range cells {
			if b, ok := c.([]byte); ok {
				c = string(b)
			}
			plan = append(plan, fmt.Sprintf("%v", c))
		}
	}
	return strings.Join(plan, " ")
}

// checkScanPlan checks that verification reads index idx itself, in its order, with no sort: the
// table's own B-tree for the primary key, the index alone for a secondary one.
func checkScanPlan(t *testing.T, ctx context.Context, db sqldb.DB, b *sqlBackend, idx int) {
	t.Helper()
	q := b.entriesQuery(idx)
	if idx == idxPK {
		q = b.rowsQuery()
	}
	text := explain(t, ctx, db, true, q)
	name := indexes[idx].name
	want := map[string]string{"sqlite": "SCAN " + tableName + " USING COVERING INDEX " + name, "mysql": " " + name + " ",
		"postgres": "Index Only Scan using " + name + " "}[b.d.Name()]
	if idx == idxPK {
		want = map[string]string{"sqlite": "SCAN " + tableName, "mysql": " PRIMARY ",
			"postgres": "Index Scan using " + tableName + "_pkey "}[b.d.Name()]
	}
	bad := map[string]string{"sqlite": "TEMP B-TREE", "mysql": "filesort", "postgres": "Sort"}[b.d.Name()]
	if !strings.Contains(text, want) || strings.Contains(text, bad) {
		t.Errorf("read through %s: the plan of\n %s\nis\n %s", name, q, text)
	}
}

// checkTinyRun runs iiBench at tiny scale on eng, with maxRows rows when it is not 0, and checks
// the run, its verification and its figures.
func checkTinyRun(t *testing.T, ctx context.Context, eng engine.Engine, maxRows int64) {
	t.Helper()
	p, _ := DefaultParams("tiny")
	if maxRows > 0 {
		p.MaxRows = maxRows
	}
	p.ReportSeconds = 1
	p.CostPerHour = 1.68
	p.QueryLimit = 100
	p.QueryAfterRows = 1000 // so that a query can read its limit (the reference starts at once)
	w := mustNew(t, p)
	var samplers []runner.Sampler
	if s, ok := eng.(engine.Statser); ok {
		samplers = append(samplers, workload.EngineStats{Engine: s})
	}
	st, err := runOn(t, ctx, w, eng, &runner.Runner{Clock: runner.SystemClock(), Samplers: samplers})
	if err != nil || st.Status != result.StatusOK {
		t.Fatalf("run: %v; step %s %s", err, st.Status, st.Error)
	}
	if st.Verify == nil || !st.Verify.OK || !strings.Contains(st.Verify.Detail, fmt.Sprintf("pk=%d marketsegment=%[1]d registersegment=%[1]d pdc=%[1]d; every row as generated", p.MaxRows)) {
		t.Errorf("verify %+v", st.Verify)
	}
	ins, q := st.Ops["insert"], st.Ops["query"]
	if ins.Units != p.MaxRows || ins.Count != p.MaxRows/int64(p.InsertBatch) {
		t.Errorf("inserted %d rows in %d batches, want %d in %d", ins.Units, ins.Count, p.MaxRows, p.MaxRows/int64(p.InsertBatch))
	}
	// Queries start after 1000 rows; each reads the limit unless it seeks near an end.
	if q.Units == 0 || float64(q.Found)/float64(q.Units) < 0.5*float64(p.QueryLimit) {
		t.Errorf("queries %d found %d rows", q.Units, q.Found)
	}
	if len(st.Periods) == 0 {
		t.Fatal("no periods")
	}
	last := st.Periods[len(st.Periods)-1]
	if last.Rows != p.MaxRows || last.Ops["insert"].CumUnits != p.MaxRows {
		t.Errorf("last period: rows %d, cumulative inserts %d", last.Rows, last.Ops["insert"].CumUnits)
	}
	if st.Cost == nil || st.Cost.PerBillionInserts == nil || st.Cost.Run <= 0 {
		t.Errorf("cost %+v", st.Cost)
	}
	if st.Primary != "insert" {
		t.Errorf("primary op %q", st.Primary)
	}
}

// TestNullEngine runs iiBench on the null engine: every query runs (finding nothing) and
// verification is skipped because null stores nothing.
func TestNullEngine(t *testing.T) {
	ctx := context.Background()
	eng := openNull(t)
	p, _ := DefaultParams("tiny")
	w, _ := New(p)
	st, err := runOn(t, ctx, w, eng, nil)
	if err != nil || st.Status != result.StatusOK || st.Verify != nil {
		t.Fatalf("run: %v %s %s, verify %+v", err, st.Status, st.Error, st.Verify)
	}
	if st.Ops["insert"].Units != p.MaxRows {
		t.Errorf("inserted %d", st.Ops["insert"].Units)
	}
}

// lossy is a KV engine that drops every write without saying so (it hides null's Discarder),
// so verification must catch it.
type lossy struct{ kv.DB }

func TestVerificationCatchesLostRows(t *testing.T) {
	ctx := context.Background()
	eng := openNull(t)
	p, _ := DefaultParams("tiny")
	p.MaxRows = 3000
	w, _ := New(p)
	st, err := runOn(t, ctx, w, lossy{eng}, nil)
	if err == nil || st.Status != result.StatusFailed || st.Verify == nil || st.Verify.OK ||
		!strings.Contains(st.Verify.Detail, "expected 3000, pk=0 (3000 missing) marketsegment=0 (entries differ)") {
		t.Errorf("err %v, step %s %q, verify %+v", err, st.Status, st.Error, st.Verify)
	}
}

// TestKeysStayInDeclaredRanges checks that the workload declares one range per index and
// writes no key outside them: an engine that keeps ranges apart (WiredTiger) routes by them.
func TestKeysStayInDeclaredRanges(t *testing.T) {
	db := enginetest.Open(t, context.Background(), pebble.Driver(), "", nil, t.TempDir()).(kv.DB)
	rc := &kvtest.RangeChecked{DB: db}
	p, _ := DefaultParams("tiny")
	p.MaxRows = 3000
	w := mustNew(t, p)
	if st, err := runOn(t, context.Background(), w, rc, nil); err != nil || st.Status != result.StatusOK {
		t.Fatalf("run: %v", err)
	}
	var got []string
	for _, r := range rc.Check(t) {
		got = append(got, fmt.Sprintf("%s %x %v", r.Name, r.Prefix, r.Secondary))
	}
	want := "[pk 00 false marketsegment 01 true registersegment 02 true pdc 03 true]"
	if fmt.Sprint(got) != want {
		t.Errorf("declared %v, want %s", got, want)
	}
}
