package insertbench

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
)

// Sizes of BenchmarkClientCPU: the rows of the queried table, and how many different inputs
// (batches, id lists, range starts) each loop cycles through.
const (
	cpuQueryRows = 20_000
	cpuRing      = 64
)

// BenchmarkClientCPU puts side by side the client CPU per statement of enginebench's own path
// and of a bare database/sql loop sending the same statements (issue 18), on a managed
// MariaDB InnoDB and PostgreSQL server, in the reference variant (the default):
//
//   - insert100: l.i0's insert, 100 rows as text with every value in it;
//   - qp: the point query of qpN, PointIDs ids (MySQL: text with the values interpolated by
//     the driver; PostgreSQL: EXECUTE of the PREPAREd pk_query_ps, as text);
//   - qr: the range query of qrN on one of the three secondary indexes, QueryRows entries
//     (MySQL: text with FORCE INDEX; PostgreSQL: EXECUTE of its PREPAREd query).
//
// enginebench is the workload's session method (insert, pointQuery, rangeQuery) with the run's
// context, which can be cancelled, as the workload's statements have; bare is one *sql.Conn
// sending the statement's text with context.Background(), the text built before the loop. Both
// cycle through the same cpuRing inputs from the workload's generator (made before the loop:
// the generator's own cost is BenchmarkHarnessLoad's), and both read every row a query
// returns. Before the loops, a statement log shows that both send byte-identical statements;
// every query's row count is checked against the bare loop's first pass.
//
// client-us/op is this process's CPU time (getrusage, user + system; the server runs in its
// own processes) per statement, client-sys-us/op its system part; insert100 also reports
// client-us/row.
func BenchmarkClientCPU(b *testing.B) {
	sqldbtest.LoggedBench(b, func(b *testing.B, c sqldbtest.Server, ctx context.Context, eng engine.Engine, dir string) {
		f := newCPUFixture(b, ctx, eng)
		log := servertest.NewStatementLog(b, c.Kind, dir)
		cases := []cpuCase{f.insertCase(b, log), f.pointCase(b, log), f.rangeCase(b, log)}
		c.StopStatementLog(b, ctx, eng)
		for _, cs := range cases {
			b.Run(cs.name, func(b *testing.B) {
				b.Run("enginebench", func(b *testing.B) { cpuLoop(b, cs.rows, cs.ours) })
				b.Run("bare", func(b *testing.B) { cpuLoop(b, cs.rows, cs.bare) })
			})
		}
	})
}

// cpuCase is one statement of BenchmarkClientCPU: its i-th execution by enginebench's path
// and by the bare loop.
type cpuCase struct {
	name       string
	rows       int // rows an insert writes (0: a query)
	ours, bare func(i int) error
}

// cpuLoop runs op b.N times and reports the client's CPU per operation (and per row with rows).
func cpuLoop(b *testing.B, rows int, op func(i int) error) {
	b.ResetTimer()
	cpu := runnertest.StartClientCPU(b)
	for i := 0; i < b.N; i++ {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
	us := cpu.Report(b)
	b.StopTimer()
	if rows > 0 {
		b.ReportMetric(us/float64(rows), "client-us/row")
	}
}

// cpuFixture is the server's tables: query (pi1) holds cpuQueryRows rows and the secondary
// indexes, as after l.x; load (pi2) has none, as in l.i0, and takes the inserts.
type cpuFixture struct {
	ctx         context.Context
	p           *Params
	be          backend
	db          *sql.DB
	pg          bool
	query, load *table
}

func newCPUFixture(b *testing.B, ctx context.Context, eng engine.Engine) *cpuFixture {
	b.Helper()
	p, _ := DefaultParams("tiny")
	if err := p.Validate(); err != nil {
		b.Fatal(err)
	}
	be, err := newBackend(eng, &p)
	if err != nil {
		b.Fatal(err)
	}
	db := eng.(sqldb.DB)
	f := &cpuFixture{ctx: ctx, p: &p, be: be, db: db.SQL(), pg: db.Dialect().Name() == "postgres",
		query: &table{name: "pi1", no: 1}, load: &table{name: "pi2", no: 2}}
	for _, t := range []*table{f.query, f.load} {
		if err := be.createTable(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	sess := f.session(b)
	gen := NewGen(&p, p.Seed, streamOf("l.i0", 0, 0))
	for n := 0; n < cpuQueryRows; n += p.BatchI0 {
		if err := sess.insert(ctx, f.query, gen.Batch(p.BatchI0, time.Now().Unix())); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := sess.createIndexes(ctx, f.query); err != nil {
		b.Fatal(err)
	}
	return f
}

// session opens a workload session, as a writer's or query client's, for the benchmark.
func (f *cpuFixture) session(b *testing.B) session {
	b.Helper()
	s, err := f.be.newSession(f.ctx, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.close() })
	return s
}

// bareConn takes one connection for a bare loop; it is closed, not pooled, at the end (it may
// hold PREPAREd statements).
func (f *cpuFixture) bareConn(b *testing.B) *sql.Conn {
	b.Helper()
	conn, err := f.db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Raw(func(any) error { return driver.ErrBadConn }) })
	return conn
}

// insertCase is l.i0's insert of BatchI0 rows into the table without secondary indexes.
func (f *cpuFixture) insertCase(b *testing.B, log *servertest.StatementLog) cpuCase {
	b.Helper()
	gen := NewGen(f.p, f.p.Seed, streamOf("l.i0", 1, 0))
	bufs := make([]rowBuf, cpuRing)
	batches := make([][]Row, cpuRing)
	texts := make([]string, cpuRing)
	for i := range batches {
		batches[i] = gen.fill(&bufs[i], int64(i*f.p.BatchI0), f.p.BatchI0, time.Now().Unix())
		texts[i] = bareInsert(f.load.name, batches[i])
	}
	sess, conn := f.session(b), f.bareConn(b)
	ours := func(i int) error { return sess.insert(f.ctx, f.load, batches[i%cpuRing]) }
	bare := func(i int) error {
		_, err := conn.ExecContext(context.Background(), texts[i%cpuRing])
		return err
	}
	sameStatements(b, log, "insert100", 1, at(ours, 0), at(bare, 0))
	return cpuCase{name: "insert100", rows: f.p.BatchI0, ours: ours, bare: bare}
}

// bareInsert writes the reference's insert of rows (iibench.py:797-807) on its own: every
// value a literal, dateandtime the batch's local time, price with two decimals.
func bareInsert(table string, rows []Row) string {
	var sb strings.Builder
	sb.WriteString("insert into " + table + " (dateandtime,cashregisterid,customerid,productid,price,data) values ")
	when := time.Unix(rows[0].DateAndTime, 0).Local().Format("2006-01-02 15:04:05")
	for i, r := range rows {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, "('%s',%d,%d,%d,%d.00,'%s')", when, r.CashRegisterID, r.CustomerID, r.ProductID, r.Price, r.Data)
	}
	return sb.String()
}

// pointCase is qpN's point query of PointIDs ids drawn as the query client draws them.
func (f *cpuFixture) pointCase(b *testing.B, log *servertest.StatementLog) cpuCase {
	b.Helper()
	sess, conn := f.session(b), f.bareConn(b)
	lo, _, err := sess.minID(f.ctx, f.query)
	if err != nil {
		b.Fatal(err)
	}
	hi, _, err := sess.maxID(f.ctx, f.query)
	if err != nil {
		b.Fatal(err)
	}
	n := f.p.PointIDs
	rng := NewGen(f.p, f.p.Seed, streamOf("qp100", 0, 2)).Rand()
	marks := strings.TrimSuffix(strings.Repeat("?,", n), ",")
	head := "SELECT transactionid, productid, data FROM " + f.query.name + " WHERE transactionid IN ("
	var prepare []string
	if f.pg {
		types := strings.TrimSuffix(strings.Repeat("int,", n), ",")
		prepare = []string{"PREPARE pk_query_ps (" + types + ") AS " + dollars(head+marks+")")}
		head = "EXECUTE pk_query_ps ("
	}
	// The statements as the reference's drivers send them: the ids written in decimal.
	ids := make([][]int64, cpuRing)
	texts := make([]string, cpuRing)
	for i := range ids {
		ids[i] = make([]int64, n)
		drawIDs(rng, ids[i], lo, hi)
		vals := make([]string, n)
		for j, id := range ids[i] {
			vals[j] = strconv.FormatInt(id, 10)
		}
		texts[i] = head + strings.Join(vals, ",") + ")"
	}
	bq := newBareQuery(b, conn, prepare, func(i int) (string, []any) { return texts[i%cpuRing], nil })
	ours := func(i int) error {
		got, err := sess.pointQuery(f.ctx, f.query, ids[i%cpuRing])
		return bq.found(i, got, err)
	}
	check := func(prepare func() error, op func(int) error) func() error {
		return func() error {
			if err := prepare(); err != nil {
				return err
			}
			return op(0)
		}
	}
	sameStatements(b, log, "qp", len(prepare)+1,
		check(func() error { return sess.prepareQueries(f.ctx, f.query, true) }, ours), check(bq.prepare, bq.run))
	bq.learn(b)
	return cpuCase{name: "qp", ours: ours, bare: bq.run}
}

// rangeCase is qrN's range query on a secondary index and from a start drawn as the query
// client draws them.
func (f *cpuFixture) rangeCase(b *testing.B, log *servertest.StatementLog) cpuCase {
	b.Helper()
	sess, conn := f.session(b), f.bareConn(b)
	type draw struct {
		idx   int
		start int64
	}
	rng := NewGen(f.p, f.p.Seed, streamOf("qr100", 0, 2)).Rand()
	r := &run{p: f.p}
	draws := make([]draw, cpuRing)
	first := map[int]int{} // index -> its first draw
	for i := range draws {
		idx, start := r.rangeStart(rng)
		draws[i] = draw{idx, start}
		if _, ok := first[idx]; !ok {
			first[idx] = i
		}
	}
	if len(first) != numIndexes-1 {
		b.Fatalf("%d range queries draw %d of the %d indexes", cpuRing, len(first), numIndexes-1)
	}
	texts, prepare := f.bareRanges()
	// The statements as the reference's drivers send them: the start written in decimal.
	stmts := make([]string, cpuRing)
	for i, d := range draws {
		place := "?"
		if f.pg {
			place = "$1"
		}
		stmts[i] = strings.Replace(texts[d.idx], place, strconv.FormatInt(d.start, 10), 1)
	}
	bq := newBareQuery(b, conn, prepare, func(i int) (string, []any) { return stmts[i%cpuRing], nil })
	ours := func(i int) error {
		d := draws[i%cpuRing]
		got, err := sess.rangeQuery(f.ctx, f.query, d.idx, d.start, f.p.QueryRows)
		return bq.found(i, got, err)
	}
	// One query on each index, after the PREPAREs.
	check := func(prepare func() error, op func(int) error) func() error {
		return func() error {
			if err := prepare(); err != nil {
				return err
			}
			for idx := idxMarket; idx <= idxPDC; idx++ {
				if err := op(first[idx]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	sameStatements(b, log, "qr", len(prepare)+3,
		check(func() error { return sess.prepareQueries(f.ctx, f.query, false) }, ours), check(bq.prepare, bq.run))
	bq.learn(b)
	return cpuCase{name: "qr", ours: ours, bare: bq.run}
}

// bareRanges returns, written on their own, the reference's range queries by index
// (iibench.py:588-598, :645-655, :702-712): on MySQL text with FORCE INDEX and registersegment
// after its start (>); on PostgreSQL the EXECUTE of each, and the PREPAREs (iibench.py:600-612,
// :657-669, :714-726).
func (f *cpuFixture) bareRanges() (texts [numIndexes]string, prepare []string) {
	cols := [numIndexes]string{"", "productid, customerid, price", "cashregisterid, customerid, price", "price, dateandtime, customerid"}
	names := [numIndexes]string{"", "market_query_ps", "register_query_ps", "pdc_query_ps"}
	suffix := [numIndexes]string{"", "marketsegment", "registersegment", "pdc"}
	for idx := idxMarket; idx <= idxPDC; idx++ {
		first, _, _ := strings.Cut(cols[idx], ",")
		op, hint := ">=", " FORCE INDEX ("+f.query.name+"_"+suffix[idx]+")"
		if idx == idxRegister {
			op = ">"
		}
		if f.pg {
			hint = ""
		}
		q := fmt.Sprintf("SELECT %s FROM %s%s WHERE (%s %s ?) ORDER BY %s LIMIT %d", cols[idx], f.query.name, hint, first, op, cols[idx], f.p.QueryRows)
		texts[idx] = q
		if f.pg {
			prepare = append(prepare, "PREPARE "+names[idx]+" (int) AS "+dollars(q))
			texts[idx] = "EXECUTE " + names[idx] + " ($1)"
		}
	}
	return texts, prepare
}

// dollars numbers the ?s of q as PostgreSQL's $1, $2, ...
func dollars(q string) string {
	var sb strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&sb, "$%d", n)
			continue
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// bareQuery is a bare loop's query on conn: its text and arguments for execution i, the
// PREPAREs it needs first (PostgreSQL), and the rows each of the cpuRing inputs returns.
type bareQuery struct {
	conn     *sql.Conn
	prepares []string
	stmt     func(i int) (string, []any)
	want     []int // by input, once learnt
	cols     [3]sql.RawBytes
	dest     []any
}

func newBareQuery(b *testing.B, conn *sql.Conn, prepares []string, stmt func(i int) (string, []any)) *bareQuery {
	b.Helper()
	q := &bareQuery{conn: conn, prepares: prepares, stmt: stmt}
	q.dest = []any{&q.cols[0], &q.cols[1], &q.cols[2]}
	return q
}

// learn runs each input once (after prepare) and keeps its row count, which every later
// execution of either path must read.
func (q *bareQuery) learn(b *testing.B) {
	b.Helper()
	total := 0
	for i := 0; i < cpuRing; i++ {
		n, err := q.rows(i)
		if err != nil {
			b.Fatal(err)
		}
		q.want = append(q.want, n)
		total += n
	}
	// A range query from near the end of its index's domain may read nothing, as the
	// reference's; most read their limit.
	if total < cpuRing {
		b.Fatalf("%d queries read %d rows", cpuRing, total)
	}
}

// prepare sends the PREPAREs.
func (q *bareQuery) prepare() error {
	for _, s := range q.prepares {
		if _, err := q.conn.ExecContext(context.Background(), s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// run is execution i of the bare loop.
func (q *bareQuery) run(i int) error {
	n, err := q.rows(i)
	return q.found(i, n, err)
}

// rows runs execution i and reads every row.
func (q *bareQuery) rows(i int) (int, error) {
	text, args := q.stmt(i)
	rows, err := q.conn.QueryContext(context.Background(), text, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(q.dest...); err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}

// found checks that execution i read as many rows as its input's first pass did.
func (q *bareQuery) found(i, n int, err error) error {
	if err == nil && q.want != nil && n != q.want[i%cpuRing] {
		return fmt.Errorf("query %d read %d rows, want %d", i, n, q.want[i%cpuRing])
	}
	return err
}

// at returns op's execution i.
func at(op func(int) error, i int) func() error { return func() error { return op(i) } }

// sameStatements runs ours, then bare, and fails unless the server logged the same n
// statements for each, byte for byte and by the same protocol (the drivers' connection set-up
// left out).
func sameStatements(b *testing.B, log *servertest.StatementLog, name string, n int, ours, bare func() error) {
	b.Helper()
	log.Next(b)
	if err := ours(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	got := workStatements(log.Next(b))
	if err := bare(); err != nil {
		b.Fatalf("%s, bare: %v", name, err)
	}
	want := workStatements(log.Next(b))
	if len(got) != n || len(want) != n {
		b.Fatalf("%s: enginebench sent %d statements and the bare loop %d, want %d each:\n%v\n%v", name, len(got), len(want), n, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			at, ours, bare := difference(got[i].Protocol+": "+got[i].SQL, want[i].Protocol+": "+want[i].SQL)
			b.Fatalf("%s: statement %d differs at byte %d:\nenginebench: %q\nbare:        %q", name, i, at, ours, bare)
		}
	}
}

// difference returns where a and b first differ and both around that place.
func difference(a, b string) (at int, aPart, bPart string) {
	for at < len(a) && at < len(b) && a[at] == b[at] {
		at++
	}
	around := func(s string) string { return s[max(at-40, 0):min(at+40, len(s))] }
	return at, around(a), around(b)
}

// workStatements leaves out what a driver sends when it connects (go-sql-driver's SET
// time_zone) or takes a pooled connection (pgx's -- ping).
func workStatements(stmts []servertest.Statement) []servertest.Statement {
	var out []servertest.Statement
	for _, s := range stmts {
		shape := servertest.Shape(s.SQL)
		if s.Protocol == servertest.Text && (strings.HasPrefix(shape, "set time_zone") || shape == "-- ping") {
			continue
		}
		out = append(out, s)
	}
	return out
}
