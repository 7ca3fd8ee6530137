package linkbench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// Operations of the load step.
const (
	opLoadLink runner.Op = iota
	opLoadCount
	opLoadNode
)

// Fixed sizes of a row's columns other than data, for the logical bytes written.
const (
	linkFixedBytes  = 8 + 8 + 8 + 1 + 8 + 4 // id1, id2, link_type, visibility, time, version
	countFixedBytes = 8 + 8 + 4 + 8 + 8
	nodeFixedBytes  = 8 + 4 + 8 + 4
)

// tally is what the load wrote and the requests changed: the rows verification expects.
type tally struct {
	links, nodes int64 // loaded
	bytes        int64 // logical bytes loaded
	// changed by requests
	linksInserted, linksExpunged, nodesAdded, nodesDeleted int64
	// addedSum is the sum of workload.Mix64 of the versions of the nodes added: a digest of which
	// they are.
	addedSum uint64
}

func (t *tally) add(o *tally) {
	t.links += o.links
	t.nodes += o.nodes
	t.bytes += o.bytes
	t.linksInserted += o.linksInserted
	t.linksExpunged += o.linksExpunged
	t.nodesAdded += o.nodesAdded
	t.nodesDeleted += o.nodesDeleted
	t.addedSum += o.addedSum
}

// arena holds the payloads of one batch: a batch's rows point into it until it is written.
type arena struct{ buf, scratch []byte }

// put appends d to the arena and returns the copy; earlier copies stay valid.
func (a *arena) put(d []byte) []byte {
	if cap(a.buf)-len(a.buf) < len(d) {
		a.buf = make([]byte, 0, max(2*cap(a.buf), len(d), 64<<10))
	}
	n := len(a.buf)
	a.buf = append(a.buf, d...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// reset empties the arena once its batch is written.
func (a *arena) reset() { a.buf = a.buf[:0] }

// load creates the tables and loads nodes, links and counts: Loaders goroutines take chunks of
// id1s from a shared counter, and one more loads the nodes.
func (r *run) load(ctx context.Context) *result.Step {
	start := time.Now()
	if r.p.Shard.Leader() { // in a sharded run, shard 0 creates the tables before the barrier
		if err := r.watched(ctx, "load creating the tables", r.st.Create); err != nil {
			r.env.Leave("load")
			return workload.SetupFailed(r.opCtx, "load", start, fmt.Errorf("create tables: %w", err))
		}
	}
	if err := r.startLoad(ctx); err != nil {
		return workload.SetupFailed(r.opCtx, "load", start, err)
	}
	p := r.p
	var next atomic.Int64 // the shard's next chunk (chunkOf)
	tallies := make([]tally, p.Loaders+1)
	s := runner.Step{Name: "load",
		Ops:         []runner.OpSpec{{Name: "link"}, {Name: "count"}, {Name: "node"}},
		ExpectUnits: int64(float64(r.m.deg.EstimateLoaded()) * r.loadShare()),
		ProgressOp:  opLoadLink}
	for i := 0; i < p.Loaders; i++ {
		if !p.Shard.Owns(i) {
			continue
		}
		s.Workers = append(s.Workers, runner.Worker{Client: i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.linkLoader(ctx, rec, &next, &tallies[i])
		}})
	}
	if p.Shard.Owns(p.Loaders) { // the one node loader: the engine numbers the nodes in its order
		s.Workers = append(s.Workers, runner.Worker{Client: p.Loaders, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.nodeLoader(ctx, rec, &tallies[p.Loaders])
		}})
	}
	s.Primary = "link"
	st := r.env.Runner.Run(ctx, s)
	for i := range tallies {
		r.tally.add(&tallies[i])
	}
	if st.Status == result.StatusOK {
		finish := func(ctx context.Context) error { return r.st.FinishLoad(ctx, p.MaxID1) }
		if err := r.watched(ctx, "load finishing", finish); err != nil {
			e := workload.SetupFailed(r.opCtx, "load", start, fmt.Errorf("finish load: %w", err))
			st.Status, st.Error = e.Status, e.Error
		}
	}
	return r.finish(st, p.VerifyAfter(true, r.lastStep("load")), r.lastStep("load"), r.loadBasis)
}

// loadBasis is what the load's resource use is divided by: links, and everything the load wrote
// per link (links, counts and nodes); the live bytes are every shard's (the engine's size is
// theirs).
func (r *run) loadBasis() measure.Basis {
	b := measure.Basis{PerOp: "link", LiveBytes: float64(r.want().bytes)}
	if r.tally.links > 0 {
		b.BytesPerWrite = float64(r.tally.bytes) / float64(r.tally.links)
	}
	return b
}

// client opens a store client whose retries are counted as retries of *op through *rec and
// end with stop (the step's context; the caller sets it anew for each step).
func (r *run) client(stop context.Context, rec **runner.Recorder, op *runner.Op) (store.Client, error) {
	cl, err := r.st.Client(r.opCtx)
	if err != nil {
		return nil, fmt.Errorf("open client: %w", err)
	}
	cl.SetRetryHook(func() { (*rec).Retried(*op) })
	cl.SetRetryStop(stop)
	return cl, nil
}

// closeClient closes cl, keeping the first error in *err.
func closeClient(cl store.Client, err *error) {
	if cerr := cl.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("close client: %w", cerr)
	}
}

// linkLoader loads the links and counts of chunks of id1s until none is left. Each link's
// payload and time derive from its key (content.loadLink).
func (r *run) linkLoader(ctx context.Context, rec *runner.Recorder, next *atomic.Int64, t *tally) (err error) {
	p := r.p
	l := &linkLoad{r: r, rec: rec, t: t, op: opLoadLink, rr: newRowRand(),
		links: make([]store.Link, 0, p.LoadBatch), counts: make([]store.Count, 0, p.LoadBatch)}
	if l.cl, err = r.client(ctx, &l.rec, &l.op); err != nil {
		return err
	}
	defer closeClient(l.cl, &err)
	chunk := int64(p.LoadChunk)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo := r.chunkOf(next.Add(1) - 1)
		if lo >= p.MaxID1 {
			break
		}
		for id1 := lo; id1 < min(lo+chunk, p.MaxID1); id1++ {
			if err := l.node(id1); err != nil {
				return err
			}
		}
	}
	if err := l.flushLinks(); err != nil {
		return err
	}
	return l.flushCounts()
}

// linkLoad is one link loader's client and the batches of links and counts it fills.
type linkLoad struct {
	r      *run
	cl     store.Client
	rec    *runner.Recorder
	t      *tally
	op     runner.Op // the operation running, to which the client's retries count
	rr     *rowRand
	a      arena // the links' payloads
	links  []store.Link
	counts []store.Count
}

// node adds the links of id1 of every link type, and their counts, to the batches, inserting
// each batch when it is full.
func (l *linkLoad) node(id1 int64) error {
	p, m := l.r.p, l.r.m
	for ti := 0; ti < p.LinkTypes; ti++ {
		n := m.deg.PerType(id1, ti)
		if n == 0 {
			continue
		}
		lt := linkType(ti)
		var newest, tm int64
		for j := int64(0); j < n; j++ {
			l.a.scratch, tm = m.content.loadLink(l.rr, l.a.scratch, l.r.loadMs, id1, lt, id1+j)
			newest = max(newest, tm)
			l.links = append(l.links, store.Link{ID1: id1, LinkType: lt, ID2: id1 + j,
				Visibility: store.Visible, Data: l.a.put(l.a.scratch), Time: tm, Version: loadLinkVersion})
			l.t.links++
			l.t.bytes += linkFixedBytes + int64(len(l.a.scratch))
			if len(l.links) == p.LoadBatch {
				if err := l.flushLinks(); err != nil {
					return err
				}
			}
		}
		l.counts = append(l.counts, store.Count{ID1: id1, LinkType: lt, Count: n, Time: newest})
		l.t.bytes += countFixedBytes
		if len(l.counts) == p.LoadBatch {
			if err := l.flushCounts(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushLinks inserts the batch of links, if any, and empties it.
func (l *linkLoad) flushLinks() error {
	if len(l.links) == 0 {
		return nil
	}
	l.op = opLoadLink
	err := l.rec.Do(l.op, time.Time{}, func() (int64, error) {
		return int64(len(l.links)), l.cl.InsertLinks(l.rec.OpContext(), l.links)
	})
	l.links = l.links[:0]
	l.a.reset()
	return err
}

// flushCounts inserts the batch of counts, if any, and empties it.
func (l *linkLoad) flushCounts() error {
	if len(l.counts) == 0 {
		return nil
	}
	l.op = opLoadCount
	err := l.rec.Do(l.op, time.Time{}, func() (int64, error) {
		return int64(len(l.counts)), l.cl.InsertCounts(l.rec.OpContext(), l.counts)
	})
	l.counts = l.counts[:0]
	return err
}

// nodeLoader loads the nodes startid1 .. maxid1-1 in batches; each node's payload derives
// from its id (content.loadNode).
func (r *run) nodeLoader(ctx context.Context, rec *runner.Recorder, t *tally) (err error) {
	p, m := r.p, r.m
	op := opLoadNode
	cl, err := r.client(ctx, &rec, &op)
	if err != nil {
		return err
	}
	defer closeClient(cl, &err)
	// As the reference's node loader: the engine assigns ids from startid1 on.
	if err := cl.ResetNodes(r.opCtx, p.StartID1); err != nil {
		return err
	}
	rr := newRowRand()
	nodes := make([]store.Node, 0, p.LoadBatch)
	var a arena
	for id := p.StartID1; id < p.MaxID1; {
		if err := ctx.Err(); err != nil {
			return err
		}
		for ; id < p.MaxID1 && len(nodes) < p.LoadBatch; id++ {
			a.scratch = m.content.loadNode(rr, a.scratch, id)
			nodes = append(nodes, store.Node{ID: id, Type: store.NodeType, Version: loadNodeVersion, Time: r.loadSec,
				Data: a.put(a.scratch)})
			t.bytes += nodeFixedBytes + int64(len(a.scratch))
		}
		if err := rec.Do(opLoadNode, time.Time{}, func() (int64, error) {
			return int64(len(nodes)), cl.InsertNodes(rec.OpContext(), nodes)
		}); err != nil {
			return err
		}
		t.nodes += int64(len(nodes))
		nodes = nodes[:0]
		a.reset()
	}
	return nil
}

// index builds id1_type after a load without it (and verifies through it when it is the last
// step or --verify each-step).
func (r *run) index(ctx context.Context) *result.Step {
	// One statement that may run for hours at large scale, with nothing completing in between:
	// the stall watchdog is fed while the engine answers pings (on an engine in this process,
	// which has nothing to ping, there is none), and a stall cuts the statement.
	s := runner.Step{Name: "index", Ops: []runner.OpSpec{{Name: "index"}},
		Workers: []runner.Worker{{Run: func(ctx context.Context, rec *runner.Recorder) error {
			return rec.Do(0, time.Time{}, func() (int64, error) {
				return r.tally.links, r.st.CreateIndex(rec.OpContext())
			})
		}}}}
	r.env.LongOps(&s, r.eng)
	s.Primary = "index"
	st := r.env.Runner.Run(ctx, s)
	if st.Status == result.StatusOK {
		r.indexed = true
	}
	return r.finish(st, r.p.VerifyAfter(true, r.lastStep("index")), r.lastStep("index"), func() measure.Basis {
		return measure.Basis{PerOp: "index", LiveBytes: float64(r.want().bytes)}
	})
}
