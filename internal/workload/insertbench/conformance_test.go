package insertbench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// The conformance tests run a tiny Insert Benchmark on real servers that log every statement
// (MariaDB's general log, PostgreSQL's log_statement=all) and compare each step's statements,
// by protocol and shape (servertest.Shape) with their counts, against tables derived from
// the reference: bench/ibench/iibench.py as cl.repro.sh (MySQL) and run_ibench.sh / np.sh
// (PostgreSQL) run it. The corrected variant must differ from them exactly where
// docs/fidelity.md says. Besides servertest.Shape, a shape here has no white space next to a
// comma or a parenthesis (the reference writes "a,b" in one query and "a, b" in another).
//
// Not compared: the statements a driver sends on a connection (SET ..., -- ping), and verification
// (BEGIN, SET LOCAL, a SELECT of every row in index order, ROLLBACK), which must come after the
// last step only.

// conformanceParams are the sizes of the conformance runs: 10 rounds in each of l.i0, l.i1
// and l.i2, a resync after every 4 rounds, and query steps of 1 s (100 rows: 2 rounds).
func conformanceParams(v workload.Variant) Params {
	p, _ := DefaultParams("tiny")
	p.Variant = v
	p.Rows, p.RowsI1, p.RowsI2 = 1000, 500, 50
	p.Resync = 4
	p.QuerySeconds = 1
	p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100"}
	return p
}

var (
	shapeCommas = regexp.MustCompile(`\s*,\s*`)
	shapeOpen   = regexp.MustCompile(`\(\s+`)
	shapeClose  = regexp.MustCompile(`\s+\)`)
)

// norm is a shape without white space next to commas and parentheses.
func norm(shape string) string {
	return shapeClose.ReplaceAllString(shapeOpen.ReplaceAllString(shapeCommas.ReplaceAllString(shape, ","), "("), ")")
}

// verification reports whether a shape belongs to verification (verify.go): a SELECT of every
// row in an index's order (ORDER BY without LIMIT: the benchmark's queries have a LIMIT or no
// ORDER BY), or the transaction around it.
func verification(shape string) bool {
	_, s, _ := strings.Cut(shape, ": ")
	for _, p := range []string{"begin", "start transaction", "set local ", "rollback", "commit"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.HasPrefix(s, "select ") && strings.Contains(s, " order by ") && !strings.Contains(s, " limit ")
}

// connection reports whether a shape is a statement a driver sends when it connects (SET
// ...), or when it checks a pooled connection before it reuses it (pgx: "-- ping").
func connection(shape string) bool {
	_, s, _ := strings.Cut(shape, ": ")
	return strings.HasPrefix(s, "set ") && !strings.HasPrefix(s, "set local ") || s == "-- ping"
}

// expectation is what one step must send.
type expectation struct {
	exact map[string]int // shapes and their counts
	// queries are the shapes of the step's queries: their counts add up to the step's
	// queries, and each is sent at least once. prepared are shapes sent once each, before.
	queries  []string
	prepared []string
	// corrected query steps run for a time: these shapes are sent at least once.
	some []string
}

// conformanceEngine is the engine a case runs: its dialect's statements differ.
type conformanceEngine struct {
	pg, rocks bool
}

// Shapes of the reference's statements (normalised).
const (
	refInsert   = "text: insert into pi1 (dateandtime,cashregisterid,customerid,productid,price,data) values (?*6)*%d"                                       // iibench.py:554-558, :797-807
	refMin      = "text: select min(transactionid) from pi1"                                                                                                 // iibench.py:838-839
	refMax      = "text: select max(transactionid) from pi1"                                                                                                 // iibench.py:840-841
	refPID      = "text: select pg_backend_pid()"                                                                                                            // iibench.py:814-822
	refMyDelete = "text: delete from pi1 where transactionid >= ? order by transactionid asc limit ?"                                                        // iibench.py:1178-1180
	refPgDelete = "text: delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= ? order by transactionid asc limit ?)" // iibench.py:1181-1183
)

// Range queries of the reference by index (iibench.py:588-598, :645-655, :702-712 on MySQL,
// with FORCE INDEX; :600-612, :657-669, :714-726 on PostgreSQL, PREPAREd); {op} is > for
// registersegment in the reference, >= in the corrected variant.
var rangeShapes = [numIndexes]string{"",
	"select productid,customerid,price from pi1%s where (productid >= ?) order by productid,customerid,price limit ?",
	"select cashregisterid,customerid,price from pi1%s where (cashregisterid {op} ?) order by cashregisterid,customerid,price limit ?",
	"select price,dateandtime,customerid from pi1%s where (price >= ?) order by price,dateandtime,customerid limit ?",
}

// pointShape is the point query (iibench.py:745-748, :750-768).
const pointShape = "select transactionid,productid,data from pi1 where transactionid in (?*10)"

// createTable is the table's DDL as the dialect spells the reference's (iibench.py:400-423,
// :467-478): the same columns, types and keys.
func (e conformanceEngine) createTable() []string {
	if e.pg {
		return []string{"text: drop table if exists pi1",
			"text: create table pi1 (transactionid bigserial primary key,dateandtime timestamp,cashregisterid integer not null,customerid integer not null,productid integer not null,price integer not null,data varchar(?))",
			"text: alter sequence pi1_transactionid_seq cache ?"} // iibench.py:509
	}
	engine := "innodb"
	if e.rocks {
		engine = "rocksdb"
	}
	return []string{"text: drop table if exists pi1",
		"text: create table pi1 (transactionid bigint not null auto_increment primary key,dateandtime datetime,cashregisterid int not null,customerid int not null,productid int not null,price int not null,data varchar(?)) engine=" + engine}
}

// indexDDL is l.x's DDL: the reference's per engine (iibench.py:347-393, :430-455), a CREATE
// INDEX each in the corrected variant.
func (e conformanceEngine) indexDDL(v workload.Variant) []string {
	cols := []string{"marketsegment (productid,customerid,price)", "registersegment (cashregisterid,customerid,price)", "pdc (price,dateandtime,customerid)"}
	var out []string
	switch {
	case e.pg || v == workload.Corrected:
		for _, c := range cols {
			name, list, _ := strings.Cut(c, " ")
			out = append(out, "text: create index pi1_"+name+" on pi1 "+list)
		}
	case e.rocks:
		for _, c := range cols {
			out = append(out, "text: alter table pi1 add index pi1_"+c)
		}
	default:
		out = append(out, "text: alter table pi1 add index pi1_"+strings.Join(cols, ",add index pi1_"))
	}
	return out
}

// reference returns what step st of a reference run must send.
func (e conformanceEngine) reference(p Params, st *result.Step) expectation {
	x := expectation{exact: map[string]int{}}
	add := func(n int, shapes ...string) {
		for _, s := range shapes {
			x.exact[s] += n
		}
	}
	pid := func(n int) { // the statement executors and query threads of PostgreSQL
		if e.pg {
			add(n, refPID)
		}
	}
	del := refMyDelete
	if e.pg {
		del = refPgDelete
	}
	// writes: rounds of batch rows, a delete each, min(transactionid) at round 0 and after
	// every Resync more rounds (iibench.py:1156-1170).
	writes := func(rounds, batch int) {
		add(rounds, fmt.Sprintf(refInsert, batch))
		add(rounds, del)
		add(1+(rounds-1)/(p.Resync+1), refMin)
		pid(2)
	}
	switch st.Name {
	case "l.i0":
		add(1, e.createTable()...)
		add(10, fmt.Sprintf(refInsert, 100))
		pid(1)
	case "l.x": // iibench.py --secondary_at_end --max_rows=100 (cl.repro.sh:75): one insert, then the indexes
		add(1, fmt.Sprintf(refInsert, 100))
		add(1, e.indexDDL(workload.Reference)...)
		pid(1)
	case "l.i1":
		writes(10, 50)
	case "l.i2":
		writes(10, 5)
	case "qr100", "qp100":
		writes(2, 50) // 100 rows a second for 1 s
		pid(1)
		e.referenceQueries(&x, st.Name == "qp100", int(st.Ops["query"].Count))
	}
	return x
}

// referenceQueries adds the query thread's statements (iibench.py:965-1107): on PostgreSQL
// its queries PREPAREd by name first and EXECUTEd; with point queries, max(transactionid) at
// the start and after every 100 queries but the last, after which the thread stops before it
// asks (iibench.py:1085-1093).
func (e conformanceEngine) referenceQueries(x *expectation, point bool, queries int) {
	if point {
		x.exact[refMax] += 1 + (queries-1)/maxRefresh
		if e.pg {
			x.exact["text: prepare pk_query_ps (int,int,int,int,int,int,int,int,int,int) as "+pointShape]++
			x.queries = []string{"text: execute pk_query_ps (?*10)"}
		} else {
			x.queries = []string{"text: " + pointShape}
		}
		return
	}
	names := [numIndexes]string{"", "market_query_ps", "register_query_ps", "pdc_query_ps"}
	for idx := idxMarket; idx <= idxPDC; idx++ {
		q := strings.Replace(rangeShapes[idx], "{op}", ">", 1)
		if e.pg {
			x.exact["text: prepare "+names[idx]+" (int) as "+fmt.Sprintf(q, "")]++
			x.queries = append(x.queries, "text: execute "+names[idx]+" (?)")
		} else {
			x.queries = append(x.queries, "text: "+fmt.Sprintf(q, " force index (pi1_"+indexSuffix[idx]+")"))
		}
	}
}

// correctedInsert is the corrected variant's insert of n rows, prepared: dateandtime bound as
// unix seconds.
func (e conformanceEngine) correctedInsert(n int) string {
	tuple := "(from_unixtime(?),?*5)"
	if e.pg {
		tuple = "((to_timestamp(cast(? as bigint)) at time zone ?),?*5)"
	}
	return fmt.Sprintf("insert into pi1 (dateandtime,cashregisterid,customerid,productid,price,data) values %s*%d", tuple, n)
}

// prepared adds a statement prepared once and executed n times: MariaDB logs both, PostgreSQL
// the executions.
func (e conformanceEngine) prepared(m map[string]int, shape string, n int) {
	if !e.pg {
		m["prepare: "+shape]++
	}
	m["execute: "+shape] += n
}

// corrected returns what step st of a corrected run must send: the reference's statements
// but prepared on the server, the ctid delete on PostgreSQL, no insert in l.x and a CREATE
// INDEX each, registersegment from its start (>=), no pg_backend_pid(), no PREPARE by name, and
// query steps that run for their time with open-loop writers.
func (e conformanceEngine) corrected(p Params, st *result.Step) expectation {
	x := expectation{exact: map[string]int{}}
	del := "delete from pi1 where transactionid >= ? order by transactionid limit ?"
	if e.pg {
		del = "delete from pi1 where ctid = any (array(select ctid from pi1 where transactionid >= ? order by transactionid limit ?))"
	}
	writes := func(rounds, batch int) {
		e.prepared(x.exact, e.correctedInsert(batch), rounds)
		e.prepared(x.exact, del, rounds)
		x.exact[refMin] += 1 + (rounds-1)/(p.Resync+1)
	}
	switch st.Name {
	case "l.i0":
		for _, s := range e.createTable() {
			x.exact[s]++
		}
		e.prepared(x.exact, e.correctedInsert(100), 10)
	case "l.x":
		for _, s := range e.indexDDL(workload.Corrected) {
			x.exact[s]++
		}
	case "l.i1":
		writes(10, 50)
	case "l.i2":
		writes(10, 5)
	case "qr100", "qp100":
		x.exact[refMin] = 1
		x.some = []string{"execute: " + e.correctedInsert(50), "execute: " + del}
		if !e.pg {
			x.exact["prepare: "+e.correctedInsert(50)] = 1
			x.exact["prepare: "+del] = 1
		}
		queries := int(st.Ops["query"].Count)
		if st.Name == "qp100" {
			x.exact[refMax] = 1 + queries/maxRefresh
			x.queries = []string{"execute: " + pointShape}
			if !e.pg {
				x.prepared = []string{"prepare: " + pointShape}
			}
			break
		}
		for idx := idxMarket; idx <= idxPDC; idx++ {
			hint := ""
			if !e.pg {
				hint = " force index (pi1_" + indexSuffix[idx] + ")"
			}
			q := fmt.Sprintf(strings.Replace(rangeShapes[idx], "{op}", ">=", 1), hint)
			x.queries = append(x.queries, "execute: "+q)
			if !e.pg {
				x.prepared = append(x.prepared, "prepare: "+q)
			}
		}
	}
	return x
}

// check compares what step st sent (shapes, normalised) with x.
func (x expectation) check(t *testing.T, st *result.Step, got map[string]int) {
	t.Helper()
	left := maps.Clone(got)
	var diffs []string
	for s, n := range x.exact {
		if left[s] != n {
			diffs = append(diffs, fmt.Sprintf("%d x %s: sent %d times", n, s, left[s]))
		}
		delete(left, s)
	}
	for _, s := range x.prepared {
		if left[s] != 1 {
			diffs = append(diffs, fmt.Sprintf("1 x %s: sent %d times", s, left[s]))
		}
		delete(left, s)
	}
	sum := 0
	for _, s := range append(x.queries, x.some...) {
		if left[s] == 0 {
			diffs = append(diffs, fmt.Sprintf("%s: never sent", s))
		}
		if !strings.Contains(strings.Join(x.some, "\n"), s) {
			sum += left[s]
		}
		delete(left, s)
	}
	if q := st.Ops["query"]; q != nil && int64(sum) != q.Count {
		diffs = append(diffs, fmt.Sprintf("%d queries sent, %d recorded", sum, q.Count))
	}
	for s, n := range left {
		diffs = append(diffs, fmt.Sprintf("%d x %s: not expected", n, s))
	}
	if len(diffs) > 0 {
		t.Errorf("%s differs from the table:\n  %s\nsent:\n%s", st.Name, strings.Join(diffs, "\n  "), servertest.FormatShapes(got))
	}
}

// TestConformance runs the conformance runs, the reference variant then the corrected one, on
// one managed server of each engine.
func TestConformance(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, dir := c.Start(t, ctx, true)
		e := conformanceEngine{pg: c.Kind == server.Postgres, rocks: c.Plugin != ""}
		log := servertest.NewStatementLog(t, c.Kind, dir)
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) { conform(ctx, t, eng, log, e, v) })
		}
	})
}

// conform runs the variant v and checks every step's statements.
func conform(ctx context.Context, t *testing.T, eng engine.Engine, log *servertest.StatementLog, e conformanceEngine, v workload.Variant) {
	p := conformanceParams(v)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	log.Next(t) // what the previous run sent after its last step
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var steps []*result.Step
	var sent []map[string]int
	err := (&Workload{p: p}).Run(ctx, env, eng, func(s *result.Step) {
		steps = append(steps, s)
		sent = append(sent, servertest.Shapes(log.Next(t)))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps {
		got, verified := map[string]int{}, 0
		for s, n := range sent[i] {
			s = norm(s)
			switch {
			case verification(s):
				verified += n
			case !connection(s):
				got[s] += n
			}
		}
		if last := i == len(steps)-1; (verified > 0) != last {
			t.Errorf("%s: %d verification statements, want them after the last step only", st.Name, verified)
		}
		x := e.reference(p, st)
		if v == workload.Corrected {
			x = e.corrected(p, st)
		}
		if !e.pg { // np.sh:65 and :523: the binary log is reset before every step and after the last
			x.exact["text: reset master"] = 1
			if i == len(steps)-1 {
				x.exact["text: reset master"] = 2
			}
		}
		if !e.pg && v == workload.Reference && i == 0 { // the text inserts against the server's limit (limits.go)
			x.exact["text: select @@max_allowed_packet"] = 1
		}
		x.check(t, st, got)
	}
}
