package linkbench

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"regexp"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/runner/runnertest"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// mixCheck is how many requests the statement logs compare before the timed loops.
const mixCheck = 1000

// BenchmarkClientCPU puts side by side the client CPU per LinkBench request of enginebench's
// store and of a bare database/sql client sending the same statements (issue 18), on a
// managed MariaDB InnoDB and PostgreSQL server, in the reference variant, with the fb2011 mix
// (the default profile) on the tiny graph (10,000 nodes, about a million links: the profile's
// out-degree gives its top node most of them), one requester.
//
// The requests are drawn and recorded once for each b.N: the workload's requester runs them
// in a request step through the store, from the graph as loaded, and each call to the store's
// Client is kept with its arguments and what it returned. Each timed loop starts from the
// same graph (what the requests before it wrote is put back from a copy of the tables) and
// replays these calls: enginebench
// through the store's Client with the run's context, which can be cancelled, as the
// workload's; bare through a client of plain *sql.Conn and *sql.Stmt with
// context.Background(), its statements prepared before the loop, whose control flow is the
// reference's as the store sends it (a write's transaction, the update after a duplicate
// insert, the insert after a missing link). Every call must return what it returned when
// recorded, and after each loop verification must find the graph the recorded requests left.
// Before the loops, the servers' statement logs show that both send the same statements, by
// the same protocol, for mixCheck requests.
//
// client-us/op is this process's CPU time (getrusage, user + system; the server runs in its
// own processes) per request, client-sys-us/op its system part. The drawing of the requests
// and their recording by the runner (the harness, BenchmarkHarnessRequests) are in neither.
func BenchmarkClientCPU(b *testing.B) {
	sqldbtest.LoggedBench(b, func(b *testing.B, c sqldbtest.Server, ctx context.Context, eng engine.Engine, dir string) {
		f := newMixFixture(b, ctx, eng)
		f.sameStatements(b, servertest.NewStatementLog(b, c.Kind, dir))
		c.StopStatementLog(b, ctx, eng)
		b.Run("requests", func(b *testing.B) {
			b.Run("enginebench", func(b *testing.B) { f.timed(b, f.ours) })
			b.Run("bare", func(b *testing.B) { f.timed(b, f.bare) })
		})
	})
}

// mixFixture is the loaded graph, its copy, and the recorded requests by count.
type mixFixture struct {
	ctx    context.Context
	r      *run
	st     store.Store
	db     *sql.DB
	d      sqldb.Dialect
	loaded tally
	traces map[int]*mixTrace
	// applied are the calls run since the graph was last restored.
	applied [][]mixCall
}

// mixTrace is a recording of n requests from the loaded graph and the tally they left.
type mixTrace struct {
	calls []mixCall
	tally tally
}

// The tables of the graph.
var mixTables = []string{"linktable", "counttable", "nodetable"}

func newMixFixture(b *testing.B, ctx context.Context, eng engine.Engine) *mixFixture {
	b.Helper()
	p, _ := DefaultParams("tiny")
	p.Requesters, p.Intervals, p.IntervalSeconds = 1, 1, 3600 // a step ends at its request limit
	w, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{DeferIndex: w.p.DeferIndex, Corrected: w.p.Corrected(), Partitions: w.p.Partitions})
	if err != nil {
		b.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	r := w.newRun(ctx, env, eng, st)
	if s := r.load(ctx); s.Status != result.StatusOK {
		b.Fatalf("load: %s %s", s.Status, s.Error)
	}
	db := eng.(sqldb.DB)
	f := &mixFixture{ctx: ctx, r: r, st: st, db: db.SQL(), d: db.Dialect(), loaded: r.tally, traces: map[int]*mixTrace{}}
	keys := map[string]string{"linktable": "link_type, id1, id2", "counttable": "id, link_type", "nodetable": "id"}
	for _, t := range mixTables {
		f.exec(b, "CREATE TABLE copy_"+t+" AS SELECT * FROM "+t)
		f.exec(b, "ALTER TABLE copy_"+t+" ADD PRIMARY KEY ("+keys[t]+")")
	}
	b.Logf("loaded %d nodes and %d links", r.tally.nodes, r.tally.links)
	return f
}

func (f *mixFixture) exec(b *testing.B, q string) {
	b.Helper()
	if _, err := f.db.ExecContext(f.ctx, q); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

// restore puts the graph back as loaded, the next node id included, and the tally with it:
// the links, counts and nodes the calls applied since the last restore wrote are copied back
// from the copy of the graph, in one transaction, and the nodes they added are deleted.
func (f *mixFixture) restore(b *testing.B) {
	b.Helper()
	links, nodes := map[[3]int64]bool{}, map[int64]bool{}
	for _, calls := range f.applied {
		for i := range calls {
			c := &calls[i]
			switch c.op {
			case profile.AddLink, profile.UpdateLink:
				links[[3]int64{c.link.ID1, c.link.LinkType, c.link.ID2}] = true
			case profile.DeleteLink:
				links[[3]int64{c.id1, c.linkType, c.id2}] = true
			case profile.UpdateNode:
				nodes[c.node.ID] = true
			case profile.DeleteNode:
				nodes[c.id1] = true
			}
		}
	}
	counts := map[[2]int64]bool{}
	for k := range links {
		counts[[2]int64{k[0], k[1]}] = true
	}
	var stmts []restoreStmt
	for k := range links {
		stmts = append(stmts, f.copyBack("linktable", "id1 = ? AND link_type = ? AND id2 = ?", k[0], k[1], k[2])...)
	}
	for k := range counts {
		stmts = append(stmts, f.copyBack("counttable", "id = ? AND link_type = ?", k[0], k[1])...)
	}
	for id := range nodes {
		stmts = append(stmts, f.copyBack("nodetable", "id = ?", id)...)
	}
	stmts = append(stmts, restoreStmt{"DELETE FROM nodetable WHERE id >= ?", []any{f.r.p.MaxID1}})
	f.inTx(b, stmts)
	// The next node id: the copy's largest id + 1.
	if f.d.Name() == "postgres" {
		f.exec(b, "SELECT setval('nodetable_id_seq', (SELECT max(id) FROM nodetable))")
	} else {
		f.exec(b, fmt.Sprintf("ALTER TABLE nodetable AUTO_INCREMENT = %d", f.r.p.MaxID1))
	}
	f.applied = nil
	f.r.tally = f.loaded
}

// restoreStmt is a statement of restore, with ? for its arguments.
type restoreStmt struct {
	q    string
	args []any
}

// copyBack returns the statements that put table's rows where back from its copy.
func (f *mixFixture) copyBack(table, where string, args ...any) []restoreStmt {
	return []restoreStmt{
		{"DELETE FROM " + table + " WHERE " + where, args},
		{"INSERT INTO " + table + " SELECT * FROM copy_" + table + " WHERE " + where, args},
	}
}

// inTx runs stmts in one transaction.
func (f *mixFixture) inTx(b *testing.B, stmts []restoreStmt) {
	b.Helper()
	tx, err := f.db.BeginTx(f.ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(f.ctx, sqldb.Bind(f.d, s.q), s.args...); err != nil {
			tx.Rollback()
			b.Fatalf("%s %v: %v", s.q, s.args, err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// trace returns n requests recorded from the loaded graph: the workload's requester runs them
// in a request step, through a store whose clients record every call.
func (f *mixFixture) trace(b *testing.B, n int) *mixTrace {
	b.Helper()
	if t := f.traces[n]; t != nil {
		return t
	}
	f.restore(b)
	rec := &recStore{Store: f.st}
	f.r.st, f.r.p.Requests = rec, int64(n)
	defer func() { f.r.st = f.st }()
	var steps []*result.Step
	if err := f.r.requestPhase(f.ctx, func(s *result.Step) { steps = append(steps, s) }); err != nil {
		b.Fatalf("record %d requests: %v", n, err)
	}
	s := steps[len(steps)-1]
	if s.Status != result.StatusOK || s.Verify == nil || !s.Verify.OK || s.Ops["requests"].Count != int64(n) {
		b.Fatalf("record %d requests: %s %s, %d requests, verify %+v", n, s.Status, s.Error, s.Ops["requests"].Count, s.Verify)
	}
	f.applied = append(f.applied, rec.calls)
	if len(rec.calls) != n {
		b.Fatalf("recorded %d calls for %d requests", len(rec.calls), n)
	}
	t := &mixTrace{calls: rec.calls, tally: f.r.tally}
	f.traces[n] = t
	return t
}

// mixPath opens a client of one path and returns it with the context its calls get.
type mixPath func(b *testing.B) (mixClient, io.Closer, context.Context)

// ours is the store's Client with the run's context; a retry would send other statements than
// the bare client's, so it fails the benchmark.
func (f *mixFixture) ours(b *testing.B) (mixClient, io.Closer, context.Context) {
	b.Helper()
	cl, err := f.st.Client(f.ctx)
	if err != nil {
		b.Fatal(err)
	}
	cl.SetRetryHook(func() { b.Error("the store retried a request") })
	return cl, cl, f.ctx
}

// bare is the bare client, which uses context.Background() whatever it is given.
func (f *mixFixture) bare(b *testing.B) (mixClient, io.Closer, context.Context) {
	b.Helper()
	cl := newBareClient(b, f.db, f.d)
	return cl, cl, context.Background()
}

// replay restores the graph and runs calls through a client of path; the client's
// connections are taken and its statements prepared (bare) before timed is called with true,
// and timed is called with false at the end of the loop.
func (f *mixFixture) replay(b *testing.B, path mixPath, calls []mixCall, timed func(start bool)) {
	b.Helper()
	f.restore(b)
	f.applied = append(f.applied, calls)
	cl, closer, ctx := path(b)
	timed(true)
	for i := range calls {
		c := &calls[i]
		got, err := c.run(ctx, cl)
		if err != nil {
			b.Fatalf("request %d (%s): %v", i, c.op, err)
		}
		if got != c.out {
			b.Fatalf("request %d (%s) returned %+v, recorded %+v", i, c.op, got, c.out)
		}
	}
	timed(false)
	if err := closer.Close(); err != nil {
		b.Fatal(err)
	}
}

// timed replays b.N recorded requests through path, reports the client's CPU per request, and
// verifies the graph they leave.
func (f *mixFixture) timed(b *testing.B, path mixPath) {
	t := f.trace(b, b.N)
	var cpu runnertest.ClientCPU
	f.replay(b, path, t.calls, func(start bool) {
		if start {
			b.ResetTimer()
			cpu = runnertest.StartClientCPU(b)
			return
		}
		cpu.Report(b)
		b.StopTimer()
	})
	f.r.tally = t.tally
	if v, _ := f.r.verify(f.ctx, func() {}); v == nil || !v.OK {
		b.Fatalf("verify after %d requests: %+v", b.N, v)
	}
}

// sameStatements replays mixCheck requests through both paths and fails unless the server
// logged the same statements for both, in the same order and by the same protocol: the
// prepares left out (the store prepares each statement on first use, the bare client before
// its loop), and the times of the count's changes, which each client takes when it sends them.
func (f *mixFixture) sameStatements(b *testing.B, log *servertest.StatementLog) {
	b.Helper()
	calls := f.trace(b, mixCheck).calls
	var per [profile.NumOps]int
	for _, c := range calls {
		per[c.op]++
	}
	if slices.Contains(per[:], 0) {
		b.Fatalf("%d requests do not run every operation: %v", mixCheck, per)
	}
	logged := func(path mixPath) []string {
		var out []string
		f.replay(b, path, calls, func(start bool) {
			if start {
				log.Next(b)
				return
			}
			for _, s := range log.Next(b) {
				shape := servertest.Shape(s.SQL)
				if s.Protocol == servertest.Prepare || shape == "set time_zone = ?" || shape == "-- ping" {
					continue
				}
				out = append(out, s.Protocol+": "+millis.ReplaceAllString(s.SQL, "<ms>"))
			}
		})
		return out
	}
	ours, bare := logged(f.ours), logged(f.bare)
	for i := range max(len(ours), len(bare)) {
		if i >= len(ours) || i >= len(bare) || ours[i] != bare[i] {
			b.Fatalf("statement %d of %d requests differs (enginebench sent %d, bare %d):\nenginebench: %.300q\nbare:        %.300q",
				i, mixCheck, len(ours), len(bare), nth(ours, i), nth(bare, i))
		}
	}
	b.Logf("%d requests (%v by operation): the same %d statements", mixCheck, per, len(ours))
}

// millis matches a time in milliseconds since the epoch.
var millis = regexp.MustCompile(`\b\d{13}\b`)

// nth is s[i], or "" past its end.
func nth(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// mixClient is what a request of the mix calls: store.Client's request methods.
type mixClient interface {
	AddLink(ctx context.Context, l *store.Link) (store.WriteResult, error)
	UpdateLink(ctx context.Context, l *store.Link) (store.WriteResult, error)
	DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error)
	GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error)
	MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (int, error)
	CountLinks(ctx context.Context, id1, linkType int64) (int64, error)
	AddNode(ctx context.Context, n *store.Node) (int64, error)
	UpdateNode(ctx context.Context, n *store.Node) (bool, error)
	DeleteNode(ctx context.Context, id int64) (bool, error)
	GetNode(ctx context.Context, id int64) (bool, error)
}

// mixCall is one recorded call: the operation, its arguments and what it returned.
type mixCall struct {
	op                          profile.Op
	link                        store.Link // ADD_LINK, UPDATE_LINK
	node                        store.Node // ADD_NODE, UPDATE_NODE
	id1, linkType, id2, maxTime int64      // id1 is the node of DELETE_NODE and GET_NODE
	offset, limit               int
	expunge                     bool
	id2s                        []int64
	out                         mixOutcome
}

// mixOutcome is what a call returned: the write's result, found, a count (rows read, a
// link count, a new node's id) and GET_LINKS_LIST's last time.
type mixOutcome struct {
	res   store.WriteResult
	found bool
	n     int64
	last  int64
}

// run makes the call on cl.
func (c *mixCall) run(ctx context.Context, cl mixClient) (o mixOutcome, err error) {
	var n int
	switch c.op {
	case profile.AddLink:
		o.res, err = cl.AddLink(ctx, &c.link)
	case profile.UpdateLink:
		o.res, err = cl.UpdateLink(ctx, &c.link)
	case profile.DeleteLink:
		o.found, err = cl.DeleteLink(ctx, c.id1, c.linkType, c.id2, c.expunge)
	case profile.GetLinksList:
		n, o.last, err = cl.GetLinkList(ctx, c.id1, c.linkType, c.maxTime, c.offset, c.limit)
		o.n = int64(n)
	case profile.MultigetLink:
		n, err = cl.MultigetLinks(ctx, c.id1, c.linkType, c.id2s)
		o.n = int64(n)
	case profile.CountLink:
		o.n, err = cl.CountLinks(ctx, c.id1, c.linkType)
	case profile.AddNode:
		o.n, err = cl.AddNode(ctx, &c.node)
	case profile.UpdateNode:
		o.found, err = cl.UpdateNode(ctx, &c.node)
	case profile.DeleteNode:
		o.found, err = cl.DeleteNode(ctx, c.id1)
	case profile.GetNode:
		o.found, err = cl.GetNode(ctx, c.id1)
	default:
		err = fmt.Errorf("operation %s is not a request", c.op)
	}
	return o, err
}

// recStore is a Store whose clients record their calls.
type recStore struct {
	store.Store
	calls []mixCall
}

func (s *recStore) Client(ctx context.Context) (store.Client, error) {
	cl, err := s.Store.Client(ctx)
	if err != nil {
		return nil, err
	}
	return &recClient{Client: cl, s: s}, nil
}

// recClient makes each request's call through the store's client and records it.
type recClient struct {
	store.Client
	s *recStore
}

// record makes c and keeps it with its outcome when it succeeds.
func (r *recClient) record(ctx context.Context, c mixCall) (mixOutcome, error) {
	o, err := c.run(ctx, r.Client)
	if err == nil {
		c.out = o
		r.s.calls = append(r.s.calls, c)
	}
	return o, err
}

// copyLink and copyNode copy the caller's argument, whose buffers it reuses.
func copyLink(l *store.Link) store.Link { c := *l; c.Data = bytes.Clone(l.Data); return c }
func copyNode(n *store.Node) store.Node { c := *n; c.Data = bytes.Clone(n.Data); return c }

func (r *recClient) AddLink(ctx context.Context, l *store.Link) (store.WriteResult, error) {
	o, err := r.record(ctx, mixCall{op: profile.AddLink, link: copyLink(l)})
	return o.res, err
}

func (r *recClient) UpdateLink(ctx context.Context, l *store.Link) (store.WriteResult, error) {
	o, err := r.record(ctx, mixCall{op: profile.UpdateLink, link: copyLink(l)})
	return o.res, err
}

func (r *recClient) DeleteLink(ctx context.Context, id1, linkType, id2 int64, expunge bool) (bool, error) {
	o, err := r.record(ctx, mixCall{op: profile.DeleteLink, id1: id1, linkType: linkType, id2: id2, expunge: expunge})
	return o.found, err
}

func (r *recClient) GetLinkList(ctx context.Context, id1, linkType, maxTime int64, offset, limit int) (int, int64, error) {
	o, err := r.record(ctx, mixCall{op: profile.GetLinksList, id1: id1, linkType: linkType, maxTime: maxTime, offset: offset, limit: limit})
	return int(o.n), o.last, err
}

func (r *recClient) MultigetLinks(ctx context.Context, id1, linkType int64, id2s []int64) (int, error) {
	o, err := r.record(ctx, mixCall{op: profile.MultigetLink, id1: id1, linkType: linkType, id2s: slices.Clone(id2s)})
	return int(o.n), err
}

func (r *recClient) CountLinks(ctx context.Context, id1, linkType int64) (int64, error) {
	o, err := r.record(ctx, mixCall{op: profile.CountLink, id1: id1, linkType: linkType})
	return o.n, err
}

func (r *recClient) AddNode(ctx context.Context, n *store.Node) (int64, error) {
	o, err := r.record(ctx, mixCall{op: profile.AddNode, node: copyNode(n)})
	return o.n, err
}

func (r *recClient) UpdateNode(ctx context.Context, n *store.Node) (bool, error) {
	o, err := r.record(ctx, mixCall{op: profile.UpdateNode, node: copyNode(n)})
	return o.found, err
}

func (r *recClient) DeleteNode(ctx context.Context, id int64) (bool, error) {
	o, err := r.record(ctx, mixCall{op: profile.DeleteNode, id1: id})
	return o.found, err
}

func (r *recClient) GetNode(ctx context.Context, id int64) (bool, error) {
	o, err := r.record(ctx, mixCall{op: profile.GetNode, id1: id})
	return o.found, err
}
