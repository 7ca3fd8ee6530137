package linkbench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestServerStatements runs a small LinkBench (3,000 nodes of at most 20 links, one loader, one
// requester, the fb2017 mix) on managed InnoDB, MyRocks and PostgreSQL servers that log every statement, in
// both variants, and checks what each step sent against the reference (mdcallag/linkbench;
// the store's tests compare every operation's statements one by one):
//
//   - load: one INSERT of 1,024 rows per batch and one of the rest, for links, counts and nodes
//     (without ids), after TRUNCATE and the id counter's reset, in autocommit; nothing else but
//     the DDL and, on MySQL, SET autocommit=0 for each client's write connection;
//   - run.1: every statement is one of the reference's; each read and node operation sends
//     one; the link writes send what the reference's control flow sends (see linkWrites), with
//     ROLLBACK after a failed INSERT only where the reference's driver sends it (PostgreSQL) or
//     in the corrected variant; MULTIGET_LINK is text with the drawn number of ids.
func TestServerStatements(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, dir := c.Start(t, ctx, true)
		for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
			t.Run(string(v), func(t *testing.T) {
				db := eng.(sqldb.DB)
				for _, tbl := range []string{"linktable", "counttable", "nodetable"} {
					if _, err := db.SQL().ExecContext(ctx, "DROP TABLE IF EXISTS "+tbl); err != nil {
						t.Fatal(err)
					}
				}
				p := tinyParams(t)
				p.MaxID1, p.Loaders, p.Requesters, p.Profile = 3001, 1, 1, "fb2017"
				smallDegrees(t, &p)
				p.Intervals, p.IntervalSeconds, p.Variant = 2, 2, v
				w := mustNew(t, p)
				log := servertest.NewStatementLog(t, c.Kind, dir)
				logged := map[string][]servertest.Statement{}
				var steps []*result.Step
				env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
				err := w.Run(ctx, env, eng, func(s *result.Step) {
					logged[s.Name] = log.Next(t)
					steps = append(steps, s)
				})
				if err != nil {
					t.Fatal(err)
				}
				x := stmtKinds{mysql: db.Dialect().Name() == "mysql", corrected: v == workload.Corrected}
				x.checkLoad(t, steps[0], logged["load"])
				x.checkRequests(t, w, steps[1], logged["run.1"])
			})
		}
	})
}

// stmtKinds classifies the statements of a run by the reference's statement they are.
type stmtKinds struct{ mysql, corrected bool }

// connSetup reports whether shape is what the drivers send on a new connection or one taken
// from the pool (go-sql-driver's SET time_zone, pgx's ping), not the workload: the reference's
// drivers send their own (docs/fidelity.md).
func connSetup(shape string) bool {
	return shape == servertest.Text+": set time_zone = ?" || shape == servertest.Text+": -- ping"
}

// tuples is a multi-row INSERT's shape: head and n tuples.
func tuples(head, tuple string, n int64) string {
	return servertest.Shape(head + strings.TrimSuffix(strings.Repeat(tuple+",", int(n)), ","))
}

// checkLoad compares the load's statements with the reference's batches.
func (x stmtKinds) checkLoad(t *testing.T, st *result.Step, stmts []servertest.Statement) {
	t.Helper()
	want := map[string]int{}
	batches := func(head, tuple string, rows int64, suffix string) {
		if full := rows / 1024; full > 0 {
			want[servertest.Execute+": "+tuples(head, tuple, 1024)+suffix] = int(full)
		}
		if rest := rows % 1024; rest > 0 {
			want[servertest.Execute+": "+tuples(head, tuple, rest)+suffix]++
		}
	}
	returning, semi := " returning *", ";"
	if x.mysql {
		returning, semi = "", "" // MariaDB logs a query without its final semicolon
	}
	// LinkStoreSql.java:222-261 (links, counts), :192-209 (nodes), LinkBenchLoad.java:371, :398,
	// NodeLoader.java:152 (a batch of bulk_insert_count = 1,024 rows, GraphStore.java:81).
	batches("INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES ", "(?, ?, ?, ?, ?, ?, ?)", st.Ops["link"].Units, "")
	batches("INSERT INTO counttable (id, link_type, time, version, count) VALUES ", "(?, ?, ?, ?, ?)", st.Ops["count"].Units, "")
	batches("INSERT INTO nodetable (type, version, time, data) VALUES ", "(?, ?, ?, ?)", st.Ops["node"].Units, returning)
	// NodeLoader.java:130, LinkStoreMysql.java:128-135, LinkStorePgsql.java:115-122.
	want[servertest.Text+": truncate table nodetable"+semi] = 1
	if x.mysql {
		want[servertest.Text+": alter table `nodetable` auto_increment = ?"] = 1
		want[servertest.Text+": set autocommit=?"] = 2 // the write connections of the link and node loaders
	} else {
		want[servertest.Text+": alter sequence nodetable_id_seq restart ?;"] = 1
	}
	got := map[string]int{}
	for _, s := range stmts {
		shape := servertest.Shape(s.SQL)
		if s.Protocol == servertest.Prepare || strings.HasPrefix(shape, "create ") || connSetup(s.Protocol+": "+shape) {
			continue
		}
		got[s.Protocol+": "+shape]++
	}
	if !maps.Equal(got, want) {
		t.Errorf("load: the server logged\n%swant\n%s", servertest.FormatShapes(got), servertest.FormatShapes(want))
	}
}

// kinds of the request statements, by the prefix of their shape (the primary key hint of the
// corrected variant removed).
var requestKinds = []struct{ kind, prefix string }{
	{"insert link", "execute: insert into linktable (id1, id2, link_type, visibility, data, version, time) values (?*7)"},
	{"add count", "execute: insert into counttable"},
	{"for update", "execute: select visibility from linktable where id1 = ? and id2 = ? and link_type = ? for update"},
	{"update link", "execute: update linktable set visibility = ?, data = ?, version = ?, time = ? where"},
	{"hide link", "execute: update linktable set visibility = ? where"},
	{"change count", "execute: update counttable set count = count + ?, version = version + ?, time = ? where"},
	{"GET_LINKS_LIST", "execute: select id1, id2, link_type, visibility, data, version, time from linktable"},
	{"MULTIGET_LINK", "text: select id1, id2, link_type, visibility, data, version, time from linktable where id1 = ? and link_type = ? and id2 in ("},
	{"COUNT_LINK", "execute: select count from counttable where id = ? and link_type = ?"},
	{"ADD_NODE", "execute: insert into nodetable (type, version, time, data) values (?*4)"},
	{"UPDATE_NODE", "execute: update nodetable set version=?, time=?, data=? where id=? and type=?"},
	{"DELETE_NODE", "execute: delete from nodetable where id=? and type =?"},
	{"GET_NODE", "execute: select id, type, version, time, data from nodetable where id=?"},
	{"commit", "text: commit"},
	{"rollback", "text: rollback"},
	{"begin", "text: begin"},
	{"autocommit off", "text: set autocommit=?"}, // MySQL: the requester's write connection
}

// checkRequests classifies run.1's statements and checks them against its operations.
func (x stmtKinds) checkRequests(t *testing.T, w *Workload, st *result.Step, stmts []servertest.Statement) {
	t.Helper()
	n := map[string]int64{}
	var ids, multigets int64
	for _, s := range stmts {
		if s.Protocol == servertest.Prepare {
			if strings.Contains(s.SQL, " IN (") {
				t.Errorf("MULTIGET_LINK prepared: %s", s.SQL)
			}
			continue
		}
		shape := s.Protocol + ": " + servertest.Shape(s.SQL)
		if connSetup(shape) {
			continue
		}
		hinted := strings.Contains(shape, " force index (primary)")
		shape = strings.Replace(shape, " force index (primary)", "", 1)
		kind := ""
		for _, k := range requestKinds {
			if strings.HasPrefix(shape, k.prefix) {
				kind = k.kind
				break
			}
		}
		switch {
		case kind == "":
			t.Errorf("run.1: not a statement of the reference: %s", shape)
		case kind == "GET_LINKS_LIST" && !strings.Contains(shape, " order by time desc limit ? offset ?"):
			t.Errorf("run.1: not the reference's GET_LINKS_LIST: %s", shape)
		case kind == "MULTIGET_LINK":
			multigets++
			list := s.SQL[strings.LastIndex(s.SQL, " IN (")+len(" IN ("):]
			ids += int64(strings.Count(list, ",") + 1)
		}
		// The corrected variant forces the primary key on MySQL for a link's point reads and
		// writes and MULTIGET_LINK; the reference never does.
		pointOp := kind == "for update" || kind == "update link" || kind == "hide link" || kind == "MULTIGET_LINK"
		if hinted != (pointOp && x.corrected && x.mysql) {
			t.Errorf("run.1: primary key hint %v: %s", hinted, shape)
		}
		n[kind]++
	}
	ops := func(name string) int64 {
		o := st.Ops[name]
		if o == nil {
			return 0
		}
		if o.Errors != 0 || st.Retries[name] != 0 {
			t.Errorf("run.1: %s had %d errors and %d retries with one requester", name, o.Errors, st.Retries[name])
		}
		return o.Count
	}
	for _, op := range []string{"GET_LINKS_LIST", "MULTIGET_LINK", "COUNT_LINK", "ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE"} {
		if n[op] != ops(op) {
			t.Errorf("run.1: %d %s statements for %d operations", n[op], op, ops(op))
		}
	}
	if want := map[bool]int64{true: 1}[x.mysql]; n["autocommit off"] != want {
		t.Errorf("run.1: %d SET autocommit=0, want %d", n["autocommit off"], want)
	}
	if err := x.linkWrites(n, ops("ADD_LINK"), ops("UPDATE_LINK"), ops("DELETE_LINK")); err != nil {
		t.Errorf("run.1: %v; statements %v", err, n)
	}
	t.Logf("run.1: ADD_LINK %d, UPDATE_LINK %d, DELETE_LINK %d: %d inserts, %d reads for update, %d updates, %d hides, %d commits, %d rollbacks",
		ops("ADD_LINK"), ops("UPDATE_LINK"), ops("DELETE_LINK"), n["insert link"], n["for update"], n["update link"], n["hide link"], n["commit"], n["rollback"])
	// MULTIGET_LINK sends the number of ids drawn: the mean against the distribution's.
	rng := rand.New(rand.NewPCG(3, 4))
	var drawn int64
	for range 100_000 {
		drawn += int64(w.m.multigetSize(rng))
	}
	mean, want := float64(ids)/float64(multigets), float64(drawn)/100_000
	t.Logf("run.1: %d requests, %d MULTIGET_LINK of %.2f ids on average (drawn: %.2f)", st.Ops["requests"].Count, multigets, mean, want)
	if multigets < 50 || mean < want-0.6 || mean > want+0.6 {
		t.Errorf("run.1: %d MULTIGET_LINK of %.2f ids on average, want at least 50 of %.2f ± 0.6", multigets, mean, want)
	}
}

// linkWrites checks the link writes' statements against the reference's control flow
// (LinkStoreSql.java:521-818) for a ADD_LINK, u UPDATE_LINK and d DELETE_LINK without
// conflicts: ADD_LINK inserts, and on a duplicate (aDup) reads for update and updates;
// UPDATE_LINK reads for update and updates, or (uMiss) rolls back and inserts; DELETE_LINK
// reads for update and hides a visible link (hide), else rolls back; the count changes by
// INSERT ... ON DUPLICATE KEY UPDATE after an insert, by UPDATE after a revealed or hidden
// link. Every write transaction ends with COMMIT but those that roll back.
func (x stmtKinds) linkWrites(n map[string]int64, a, u, d int64) error {
	uMiss := n["insert link"] - a
	aDup := n["for update"] - u - d
	hide := n["hide link"]
	rollbacks := uMiss + d - hide
	if !x.mysql || x.corrected {
		rollbacks += aDup // after the failed INSERT
	}
	var begins int64
	if !x.mysql {
		begins = n["commit"] + n["rollback"]
	}
	checks := []struct {
		what      string
		got, want int64
	}{
		{"updates", n["update link"], aDup + u - uMiss},
		{"count inserts", n["add count"], a - aDup + uMiss},
		{"commits", n["commit"], a + u + hide},
		{"rollbacks", n["rollback"], rollbacks},
		{"begins", n["begin"], begins},
	}
	if uMiss < 0 || aDup < 0 || uMiss > u || aDup > a {
		return fmt.Errorf("%d inserts and %d reads for update for %d ADD_LINK, %d UPDATE_LINK, %d DELETE_LINK", n["insert link"], n["for update"], a, u, d)
	}
	for _, c := range checks {
		if c.got != c.want {
			return fmt.Errorf("%d %s, want %d (ADD_LINK %d with %d duplicates, UPDATE_LINK %d with %d missing, DELETE_LINK %d hiding %d)",
				c.got, c.what, c.want, a, aDup, u, uMiss, d, hide)
		}
	}
	if c := n["change count"]; c < hide || c > hide+aDup+u-uMiss {
		return fmt.Errorf("%d count updates, want %d to %d", c, hide, hide+aDup+u-uMiss)
	}
	return nil
}
