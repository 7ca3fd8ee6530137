package iibench

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// The statements the reference sends, derived from its code (docs/fidelity.md, iiBench, lists
// each with its line): iibench.py in its iiBench form on MariaDB; on PostgreSQL its transactions
// through psycopg2 and the queries of iibench.py's PostgreSQL support. ? stands for a value.
// A batch is 1000 rows.
var (
	refDDLMaria = []string{
		"drop table if exists purchases_index",
		"create table purchases_index ( transactionid int not null auto_increment, dateandtime datetime, " +
			"cashregisterid int not null, customerid int not null, productid int not null, price float not null, " +
			"data varchar(4000), primary key (transactionid) , key marketsegment (price, customerid), " +
			"key registersegment (cashregisterid, price, customerid), key pdc (price, dateandtime, customerid) ) engine=%s",
	}
	refInsert = "insert into purchases_index (dateandtime,cashregisterid,customerid,productid,price,data) values " +
		strings.TrimSuffix(strings.Repeat("('?',?,?,?,?,'?'),\n", 1000), ",\n")
	refQueriesMaria = [numIndexes]string{
		"SELECT * FROM purchases_index WHERE transactionid >= ? ORDER BY transactionid LIMIT ?",
		"SELECT price,customerid FROM purchases_index FORCE INDEX (marketsegment) WHERE (price=? and customerid>=?) OR (price>?) LIMIT ?",
		"SELECT cashregisterid,price,customerid FROM purchases_index FORCE INDEX (registersegment) WHERE " +
			"(cashregisterid=? and price=? and customerid>=?) OR (cashregisterid=? and price>?) OR (cashregisterid>?) LIMIT ?",
		"SELECT price,dateandtime,customerid FROM purchases_index FORCE INDEX (pdc) WHERE " +
			"(price=? and dateandtime='?' and customerid>=?) OR (price=? and dateandtime>'?') OR (price>?) LIMIT ?",
	}
	refDDLPostgres = []string{
		"drop table if exists purchases_index",
		"create table purchases_index ( transactionid serial primary key, dateandtime timestamp without time zone, " +
			"cashregisterid int not null, customerid int not null, productid int not null, price real not null, " +
			"data varchar(4000) )",
		"create index marketsegment on purchases_index (price, customerid)",
		"create index registersegment on purchases_index (cashregisterid, price, customerid)",
		"create index pdc on purchases_index (price, dateandtime, customerid)",
		"alter sequence purchases_index_transactionid_seq cache 1000",
	}
	refPrepares = [numIndexes]string{
		"PREPARE pk_query_ps (int) as SELECT * FROM purchases_index WHERE transactionid >= $1 ORDER BY transactionid LIMIT ?",
		"PREPARE market_query_ps (real) as SELECT price, customerid FROM purchases_index WHERE (price >= $1) ORDER BY price, customerid LIMIT ?",
		"PREPARE register_query_ps (int) as SELECT cashregisterid, price, customerid FROM purchases_index " +
			"WHERE (cashregisterid > $1) ORDER BY cashregisterid, price, customerid LIMIT ?",
		"PREPARE pdc_query_ps (real) as SELECT price, dateandtime, customerid FROM purchases_index WHERE (price >= $1) " +
			"ORDER BY price, dateandtime, customerid LIMIT ?",
	}
	refExecutes = [numIndexes]string{"execute pk_query_ps (?)", "execute market_query_ps (?)",
		"execute register_query_ps (?)", "execute pdc_query_ps (?)"}
)

// The statements of the corrected variant, enginebench's own (docs/iibench.md), each prepared on
// the server; "%s" in an insert stands for its rows.
var (
	corrTableMaria = "create table purchases_index (transactionid bigint not null auto_increment, dateandtime datetime, " +
		"cashregisterid int not null, customerid int not null, productid int not null, price float not null, " +
		"data varchar(4000), primary key (transactionid), key marketsegment (price, customerid), " +
		"key registersegment (cashregisterid, price, customerid), key pdc (price, dateandtime, customerid)) engine=%s"
	corrInsertMaria  = "INSERT INTO purchases_index (dateandtime,cashregisterid,customerid,productid,price,data) VALUES %s"
	corrTupleMaria   = "(FROM_UNIXTIME(?),?,?,?,?,?)"
	corrQueriesMaria = [numIndexes]string{
		"SELECT transactionid FROM purchases_index FORCE INDEX (PRIMARY) WHERE transactionid >= ? ORDER BY transactionid LIMIT ?",
		"SELECT price, customerid FROM purchases_index FORCE INDEX (marketsegment) WHERE (price = ? AND customerid >= ?) OR " +
			"(price > ?) ORDER BY price, customerid LIMIT ?",
		"SELECT cashregisterid, price, customerid FROM purchases_index FORCE INDEX (registersegment) WHERE " +
			"(cashregisterid = ? AND price = ? AND customerid >= ?) OR (cashregisterid = ? AND price > ?) OR (cashregisterid > ?) " +
			"ORDER BY cashregisterid, price, customerid LIMIT ?",
		"SELECT price, UNIX_TIMESTAMP(dateandtime), customerid FROM purchases_index FORCE INDEX (pdc) WHERE " +
			"(price = ? AND dateandtime = FROM_UNIXTIME(?) AND customerid >= ?) OR (price = ? AND dateandtime > FROM_UNIXTIME(?)) OR " +
			"(price > ?) ORDER BY price, dateandtime, customerid LIMIT ?",
	}
	corrDDLPostgres = []string{
		"drop table if exists purchases_index",
		"create table purchases_index (transactionid bigserial primary key, dateandtime timestamp without time zone, " +
			"cashregisterid int not null, customerid int not null, productid int not null, price real not null, data varchar(4000))",
		"create index marketsegment on purchases_index (price, customerid)",
		"create index registersegment on purchases_index (cashregisterid, price, customerid)",
		"create index pdc on purchases_index (price, dateandtime, customerid)",
	}
	corrInsertPostgres  = "INSERT INTO purchases_index (dateandtime,cashregisterid,customerid,productid,price,data) VALUES %s"
	corrTuplePostgres   = "((to_timestamp(CAST($1 AS bigint)) AT TIME ZONE 'UTC'),$2,$3,$4,$5,$6)"
	corrQueriesPostgres = [numIndexes]string{
		"SELECT transactionid FROM purchases_index WHERE transactionid >= $1 ORDER BY transactionid LIMIT 50",
		"SELECT price, customerid FROM purchases_index WHERE (price, customerid) >= ($1, $2) ORDER BY price, customerid LIMIT 50",
		"SELECT cashregisterid, price, customerid FROM purchases_index WHERE (cashregisterid, price, customerid) >= ($1, $2, $3) " +
			"ORDER BY cashregisterid, price, customerid LIMIT 50",
		"SELECT price, CAST(EXTRACT(EPOCH FROM dateandtime) AS bigint), customerid FROM purchases_index WHERE " +
			"(price, dateandtime, customerid) >= ($1, (to_timestamp(CAST($2 AS bigint)) AT TIME ZONE 'UTC'), $3) " +
			"ORDER BY price, dateandtime, customerid LIMIT 50",
	}
)

// conformanceRows is the size of the conformance runs: not a multiple of a batch, so that the
// reference variant inserts whole batches past it (3) and the corrected one ends with 500 rows.
const conformanceRows = 2500

// TestStatementConformance runs iiBench on each server in both variants with every statement
// logged, and compares the statements' protocols, shapes and counts with the reference's,
// derived from its code above. The reference variant must send exactly those; the corrected
// one prepares enginebench's statements on the server instead and differs exactly as
// docs/fidelity.md says. Query counts depend on the run's length: each query must have run, and
// the transaction statements must match them.
func TestStatementConformance(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
			t.Run(string(v), func(t *testing.T) {
				eng, dir := c.Start(t, ctx, true)
				log := servertest.NewStatementLog(t, c.Kind, dir)
				p := conformanceParams(t, v)
				w := mustNew(t, p)
				st, err := runOn(t, ctx, w, eng, &runner.Runner{Clock: runner.SystemClock()})
				if err != nil || st.Status != result.StatusOK {
					t.Fatalf("run: %v; step %s %s", err, st.Status, st.Error)
				}
				got := canonShapes(log.Next(t))
				db := eng.(sqldb.DB)
				want, queries := expectedShapes(t, db.Dialect(), w.p, got)
				for idx, n := range queries {
					if n == 0 {
						t.Errorf("no %s query ran", indexes[idx].name)
					}
				}
				t.Logf("statements:\n%s", servertest.FormatShapes(got))
				if !maps.Equal(got, want) {
					t.Errorf("the statements differ from the expected:\n%s", shapeDiff(got, want))
				}
			})
		}
	})
}

// conformanceParams are a short run of v with a batch a second, so that every query thread runs.
func conformanceParams(t *testing.T, v workload.Variant) Params {
	t.Helper()
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.MaxRows, p.MaxInsertRate, p.QueryLimit = conformanceRows, 1000, 50
	return p
}

// driverNoise are shapes that the drivers send on their own: go-sql-driver's session time zone
// on each new connection, pgx's ping of a connection taken from the pool after a pause.
var driverNoise = map[string]bool{canon("text: set time_zone = ?"): true, canon("text: -- ping"): true}

var (
	canonSpace = regexp.MustCompile(`\s*([(),=<>])\s*`)
	canonQuote = regexp.MustCompile(`'\?'`)
)

// canon writes a shape without the spaces that drivers and the reference put differently
// around parentheses, commas and comparisons, without a literal's quotes, and with each run of
// n equal rows of a VALUES list as "(...)*n" (servertest.Shape collapses only rows without
// parentheses in them).
func canon(shape string) string {
	s := canonQuote.ReplaceAllString(canonSpace.ReplaceAllString(shape, "$1"), "?")
	i := strings.Index(s, "values(")
	if i < 0 {
		return s
	}
	var rows []string
	depth, start := 0, i+len("values")
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				rows, start = append(rows, s[start:j]), j+1
			}
		}
	}
	rows = append(rows, s[start:])
	var out []string
	for j := 0; j < len(rows); {
		n := 1
		for j+n < len(rows) && rows[j+n] == rows[j] {
			n++
		}
		out = append(out, times(rows[j], n))
		j += n
	}
	return s[:i+len("values")] + strings.Join(out, ",")
}

// times writes n equal rows.
func times(row string, n int) string {
	if n == 1 {
		return row
	}
	return fmt.Sprintf("%s*%d", row, n)
}

// canonShapes counts stmts by protocol and canonical shape, without the drivers' own.
func canonShapes(stmts []servertest.Statement) map[string]int {
	out := map[string]int{}
	for k, n := range servertest.Shapes(stmts) {
		if k = canon(k); !driverNoise[k] {
			out[k] += n
		}
	}
	return out
}

// shapeDiff lists the shapes whose counts differ between got and want.
func shapeDiff(got, want map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(mapUnion(got, want))) {
		if got[k] != want[k] {
			fmt.Fprintf(&b, "  got %6d, want %6d: %s\n", got[k], want[k], k)
		}
	}
	return b.String()
}

// mapUnion returns the keys of a and b.
func mapUnion(a, b map[string]int) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// shapeOf returns the canonical shape of sql sent by protocol.
func shapeOf(protocol, sql string) string { return canon(protocol + ": " + servertest.Shape(sql)) }

// expectedShapes returns the shapes a run of p on dialect d must send, given the queries the
// run made (read from got), and those query counts by index.
func expectedShapes(t *testing.T, d sqldb.Dialect, p Params, got map[string]int) (map[string]int, [numIndexes]int) {
	t.Helper()
	want := map[string]int{}
	add := func(proto, sql string, n int) { want[shapeOf(proto, sql)] += n }
	var queries [numIndexes]int
	postgres := d.Name() == "postgres"
	b := &sqlBackend{d: d, p: &p, ref: !p.Corrected()}
	if p.Corrected() {
		queries = expectCorrected(d, p, got, add)
	} else {
		batches := (p.MaxRows + int64(p.InsertBatch) - 1) / int64(p.InsertBatch)
		ddl := refDDLPostgres
		if !postgres {
			ddl = []string{refDDLMaria[0], fmt.Sprintf(refDDLMaria[1], engineOption(d))}
		}
		for _, q := range ddl {
			add(servertest.Text, q, 1)
		}
		add(servertest.Text, refInsert, int(batches))
		commits, begins := int(batches), int(batches)
		for idx := range queries {
			q := refQueriesMaria[idx]
			if postgres {
				q = refExecutes[idx]
				add(servertest.Text, refPrepares[idx], 1)
			}
			queries[idx] = got[shapeOf(servertest.Text, q)]
			add(servertest.Text, q, queries[idx])
			commits += queries[idx] / queriesPerTx
			begins += (queries[idx] + queriesPerTx - 1) / queriesPerTx
		}
		add(servertest.Text, "commit", commits)
		if postgres {
			add(servertest.Text, "BEGIN", begins)
		} else {
			add(servertest.Text, "set autocommit=0", 1+p.QueryThreads)
			add(servertest.Text, "set unique_checks=1", 1)
		}
	}
	expectVerification(b, add)
	return want, queries
}

// expectCorrected adds the statements of the corrected variant: the DDL as text, then every
// insert and query prepared on the server (MariaDB logs each prepare; PostgreSQL only the
// executions) and executed, without a transaction statement; it returns the query counts.
func expectCorrected(d sqldb.Dialect, p Params, got map[string]int, add func(proto, sql string, n int)) [numIndexes]int {
	ddl, insert, tuple, queries := corrDDLPostgres, corrInsertPostgres, corrTuplePostgres, corrQueriesPostgres
	prepares := d.Name() == "mysql"
	if prepares {
		ddl = []string{refDDLMaria[0], fmt.Sprintf(corrTableMaria, engineOption(d))}
		insert, tuple, queries = corrInsertMaria, corrTupleMaria, corrQueriesMaria
	}
	for _, q := range ddl {
		add(servertest.Text, q, 1)
	}
	full, last := int(p.MaxRows)/p.InsertBatch, int(p.MaxRows)%p.InsertBatch
	for _, ins := range []struct{ rows, n int }{{p.InsertBatch, full}, {last, 1}} {
		q := fmt.Sprintf(insert, strings.TrimSuffix(strings.Repeat(tuple+",", ins.rows), ","))
		if prepares {
			add(servertest.Prepare, q, 1)
		}
		add(servertest.Execute, q, ins.n)
	}
	var n [numIndexes]int
	for idx, q := range queries {
		n[idx] = got[shapeOf(servertest.Execute, q)]
		if prepares {
			add(servertest.Prepare, q, 1)
		}
		add(servertest.Execute, q, n[idx])
	}
	return n
}

// engineOption is the storage engine that the dialect's tables are created with, in lower case.
func engineOption(d sqldb.Dialect) string {
	return strings.ToLower(strings.TrimPrefix(d.TableOptions(), " ENGINE="))
}

// verifyReads are verification's reads by dialect (docs/iibench.md, Verification), one per index:
// every row through the primary key, the columns of each secondary index through it, each in
// its index's order.
var verifyReads = map[string][numIndexes]string{
	"mysql": {
		"SELECT transactionid, UNIX_TIMESTAMP(dateandtime), cashregisterid, customerid, productid, price, data " +
			"FROM purchases_index FORCE INDEX (PRIMARY) ORDER BY transactionid",
		"SELECT price, customerid FROM purchases_index FORCE INDEX (marketsegment) ORDER BY price, customerid",
		"SELECT cashregisterid, price, customerid FROM purchases_index FORCE INDEX (registersegment) ORDER BY cashregisterid, price, customerid",
		"SELECT price, UNIX_TIMESTAMP(dateandtime), customerid FROM purchases_index FORCE INDEX (pdc) ORDER BY price, dateandtime, customerid",
	},
	"postgres": {
		"SELECT transactionid, CAST(EXTRACT(EPOCH FROM dateandtime) AS bigint), cashregisterid, customerid, productid, price, data " +
			"FROM purchases_index ORDER BY transactionid",
		"SELECT price, customerid FROM purchases_index ORDER BY price, customerid",
		"SELECT cashregisterid, price, customerid FROM purchases_index ORDER BY cashregisterid, price, customerid",
		"SELECT price, CAST(EXTRACT(EPOCH FROM dateandtime) AS bigint), customerid FROM purchases_index ORDER BY price, dateandtime, customerid",
	},
}

// expectVerification adds the statements of the verification after the run, in both variants:
// each read of verifyReads prepared in a transaction of its own, after the settings that force
// the index where the dialect has no hints (PostgreSQL).
func expectVerification(b *sqlBackend, add func(proto, sql string, n int)) {
	begin, end := "START TRANSACTION", "ROLLBACK"
	if b.d.Name() == "postgres" {
		begin, end = "begin", "rollback"
	}
	for _, idx := range b.p.Indexes() {
		add(servertest.Text, begin, 1)
		if b.d.Name() == "postgres" {
			for _, s := range []string{"SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off", "SET LOCAL enable_sort = off"} {
				add(servertest.Text, s, 1)
			}
		}
		q := verifyReads[b.d.Name()][idx]
		if b.d.Name() == "mysql" {
			add(servertest.Prepare, q, 1)
		}
		add(servertest.Execute, q, 1)
		add(servertest.Text, end, 1)
	}
}
