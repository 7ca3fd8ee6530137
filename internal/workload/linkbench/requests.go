package linkbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/gen"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// opTotal is the runner's synthetic operation that sums every request: the step's QPS.
const opTotal = runner.Op(profile.NumOps)

// historyLimit bounds the (id1, link type) pairs a requester remembers for history calls.
const historyLimit = 2048

// requestOps are the operations of a request step: the profile's, then their total.
func requestOps() []runner.OpSpec {
	ops := make([]runner.OpSpec, 0, profile.NumOps+1)
	for op := profile.Op(0); op < profile.Op(profile.NumOps); op++ {
		ops = append(ops, runner.OpSpec{Name: op.String()})
	}
	return append(ops, runner.OpSpec{Name: "requests", Total: true})
}

// requester is one request client; it lives for the whole request phase, so its random
// stream, history and schedule carry over from one interval to the next.
type requester struct {
	r   *run
	i   int // its index
	rng *rand.Rand
	rr  *rowRand // the payloads' stream
	cl  store.Client
	rec *runner.Recorder
	cur runner.Op
	// done counts requests after the warmup, for the request limit.
	done int64
	// next is the intended start of the next request under a request rate.
	next time.Time
	// changes made by this requester in the current step
	t tally
	// adds counts the requester's ADD_NODEs: their versions' numbers.
	adds int64
	// reusable arguments
	link store.Link
	node store.Node
	id2s []int64
	data []byte
	// history holds GET_LINKS_LIST calls that filled their limit, to page further back.
	history []histEntry
	histIdx map[[2]int64]int
}

type histEntry struct{ id1, linkType, time int64 }

// requestPhase runs the warmup (if any) and the intervals run.1 ... run.N, emitting each.
func (r *run) requestPhase(ctx context.Context, emit func(*result.Step)) (err error) {
	p := r.p
	reqs := make([]*requester, p.Requesters)
	defer func() {
		for _, q := range reqs {
			if q != nil && q.cl != nil {
				closeClient(q.cl, &err)
			}
		}
	}()
	type plan struct {
		name   string
		secs   float64
		warmup bool
	}
	var plans []plan
	if p.WarmupSeconds > 0 {
		plans = append(plans, plan{"warmup", p.WarmupSeconds, true})
	}
	for i := 1; i <= p.Intervals; i++ {
		plans = append(plans, plan{fmt.Sprintf("run.%d", i), p.IntervalSeconds, false})
	}
	start := time.Now()
	for i := range reqs {
		if p.Shard.Owns(i) { // another shard's requester is nil here
			reqs[i] = &requester{r: r, i: i, rng: requesterRand(p.Seed, i), rr: newRowRand(),
				id2s: make([]int64, 0, r.m.prof.MultigetMax), histIdx: map[[2]int64]int{}}
		}
	}
	if err := r.openClients(ctx, plans[0].name, reqs); err != nil {
		r.env.Leave(plans[0].name)
		return workload.Emit(emit, workload.SetupFailed(ctx, plans[0].name, start, err))
	}
	for i, pl := range plans {
		if err := ctx.Err(); err != nil {
			return err
		}
		begin := time.Now()
		if err := r.env.Meet(ctx, pl.name, 0); err != nil {
			return workload.Emit(emit, workload.SetupFailed(ctx, pl.name, begin, err))
		}
		st := r.interval(ctx, reqs, pl.name, pl.secs, pl.warmup)
		// A sharded run's shards go through every interval together: a shard whose requesters
		// reached their limit idles through the rest.
		last := i == len(plans)-1 || !p.Shard.Sharded() && r.allDone(reqs)
		r.finish(st, p.VerifyAfter(true, last), last, func() measure.Basis { return measure.Basis{PerOp: "requests"} })
		if err := workload.Emit(emit, st); err != nil {
			return err
		}
		if last {
			break
		}
	}
	if p.Capacity.On {
		return r.capacity(ctx, reqs, emit)
	}
	return nil
}

// openClients opens a client for each requester, watched for stalls (env.Watch: each client
// opened is progress); the clients live on after it, so that their connections cannot end with
// the watchdog's context. When the watchdog fires first (a frozen server holds an opening), the
// error is its *runner.StallError, and the opening is left to end when the engine is closed,
// closing what it opened.
func (r *run) openClients(ctx context.Context, step string, reqs []*requester) error {
	ph := r.env.Watch(ctx, r.eng, step+" opening the requesters' connections", false)
	defer ph.Stop()
	type opened struct {
		cls []store.Client
		err error
	}
	done := make(chan opened, 1)
	go func() {
		var o opened
		for _, q := range own(reqs) {
			cl, err := r.client(ctx, &q.rec, &q.cur)
			if err != nil {
				o.err = err
				break
			}
			o.cls = append(o.cls, cl)
			ph.Beat()
		}
		done <- o
	}()
	var o opened
	select {
	case o = <-done:
	case <-ph.Ctx.Done():
		if se := workload.Stall(ph.Ctx); se != nil {
			go func() {
				for _, cl := range (<-done).cls {
					cl.Close()
				}
			}()
			return se
		}
		o = <-done // interrupted: the opening ends with the run's context
	}
	for i, cl := range o.cls {
		own(reqs)[i].cl = cl
	}
	return o.err
}

// own returns the requesters of reqs this shard runs (all but in a sharded run).
func own(reqs []*requester) []*requester {
	out := make([]*requester, 0, len(reqs))
	for _, q := range reqs {
		if q != nil {
			out = append(out, q)
		}
	}
	return out
}

// allDone reports whether every requester has reached its request limit.
func (r *run) allDone(reqs []*requester) bool {
	if r.p.Requests <= 0 {
		return false
	}
	for _, q := range own(reqs) {
		if q.done < r.p.Requests {
			return false
		}
	}
	return true
}

// interval runs one request step of secs seconds.
func (r *run) interval(ctx context.Context, reqs []*requester, name string, secs float64, warmup bool) *result.Step {
	s := runner.Step{Name: name, Primary: "requests", Ops: requestOps(), Duration: time.Duration(secs * float64(time.Second)),
		ProgressOp: opTotal, Requests: true}
	for _, q := range own(reqs) {
		s.Workers = append(s.Workers, runner.Worker{Client: q.i, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return q.loop(ctx, rec, warmup)
		}})
	}
	st := r.env.Runner.Run(ctx, s)
	for _, q := range own(reqs) {
		r.tally.add(&q.t)
		q.t = tally{}
	}
	return st
}

// loop runs requests until ctx ends or the requester reaches its limit.
func (q *requester) loop(ctx context.Context, rec *runner.Recorder, warmup bool) error {
	p := q.r.p
	q.rec = rec
	q.cl.SetRetryStop(ctx)
	rate := q.r.rate
	var until time.Time // a capacity level's end: no request is due at or after it
	if rate > 0 {
		// The schedule restarts with each step: the pause between steps is not a backlog.
		q.next = rec.Now()
		if q.r.span > 0 {
			until = q.next.Add(q.r.span)
		}
	}
	clock := q.r.env.Runner.Clock
	for ctx.Err() == nil {
		if !warmup && p.Requests > 0 && q.done >= p.Requests {
			return nil
		}
		var intended time.Time
		if rate > 0 {
			q.next = q.next.Add(time.Duration(q.rng.ExpFloat64() / rate * float64(time.Second)))
			if !until.IsZero() && !q.next.Before(until) {
				return nil
			}
			if err := clock.SleepUntil(ctx, q.next); err != nil {
				return err
			}
			intended = q.next
		}
		if err := q.one(ctx, rec, intended); err != nil {
			return err
		}
		if !warmup {
			q.done++
		}
	}
	return ctx.Err()
}

// one draws an operation from the mix and runs it. A transient conflict that outlasted its
// retries, or whose retries the step's end (ctx) stopped, is counted as an error of the
// operation; any other error ends the step.
func (q *requester) one(ctx context.Context, rec *runner.Recorder, intended time.Time) error {
	op := q.r.m.mix.Choose(q.rng)
	q.cur = runner.Op(op)
	var err error
	switch op {
	case profile.AddLink, profile.UpdateLink:
		err = q.writeLink(rec, intended, op)
	case profile.DeleteLink, profile.CountLink, profile.MultigetLink:
		err = q.linkOp(rec, intended, op)
	case profile.GetLinksList:
		err = q.getLinksList(rec, intended)
	default:
		err = q.nodeOp(rec, intended, op)
	}
	switch {
	case err == nil, errors.Is(err, runner.ErrRetriesExhausted):
		return nil
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return ctx.Err() // the step ended during the operation's retries (or the run did)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// writeLink runs ADD_LINK or UPDATE_LINK: ADD_LINK tries the insert first, UPDATE_LINK the
// update (the reference's addLink and updateLink). The link's version names the requester and
// the operation, and its payload derives from its key and version (content.requestLink).
func (q *requester) writeLink(rec *runner.Recorder, intended time.Time, op profile.Op) error {
	m, ctx, rng := q.r.m, q.r.opCtx, q.rng
	pExist, update := gen.PAdd, op == profile.UpdateLink
	if update {
		pExist = gen.PUpdate
	}
	ti := rng.IntN(q.r.p.LinkTypes)
	l := &q.link
	l.ID1 = m.linkWrite.Choose(rng)
	l.LinkType = linkType(ti)
	l.ID2 = m.id2.ForOp(rng, l.ID1, ti, pExist)
	l.Visibility, l.Time = store.Visible, time.Now().UnixMilli()
	l.Version = m.content.linkVersion(rng, q.i, update)
	q.data, _ = m.content.requestLink(q.rr, q.data, l.ID1, l.LinkType, l.ID2, l.Version)
	l.Data = q.data
	q.r.linksTouched.add(l.ID1)
	var res store.WriteResult
	err := rec.Do(q.cur, intended, func() (int64, error) {
		var err error
		if op == profile.UpdateLink {
			res, err = q.cl.UpdateLink(ctx, l)
		} else {
			res, err = q.cl.AddLink(ctx, l)
		}
		return 1, err
	})
	if err == nil && res == store.Inserted {
		q.t.linksInserted++
	}
	return err
}

// linkOp runs DELETE_LINK, COUNT_LINK or MULTIGET_LINK.
func (q *requester) linkOp(rec *runner.Recorder, intended time.Time, op profile.Op) error {
	m, ctx, rng := q.r.m, q.r.opCtx, q.rng
	var err error
	switch op {
	case profile.DeleteLink:
		ti := rng.IntN(q.r.p.LinkTypes)
		id1 := m.linkWrite.Choose(rng)
		id2 := m.id2.ForOp(rng, id1, ti, gen.PDelete)
		q.r.linksTouched.add(id1)
		var found bool
		err = rec.Do(q.cur, intended, func() (int64, error) {
			var err error
			found, err = q.cl.DeleteLink(ctx, id1, linkType(ti), id2, q.r.p.Expunge)
			return 1, err
		})
		if err == nil && found && q.r.p.Expunge {
			q.t.linksExpunged++
		}
	case profile.CountLink:
		ti := rng.IntN(q.r.p.LinkTypes)
		id1 := m.linkRead.Choose(rng)
		err = rec.Do(q.cur, intended, func() (int64, error) {
			_, err := q.cl.CountLinks(ctx, id1, linkType(ti))
			return 1, err
		})
	case profile.MultigetLink:
		ti := rng.IntN(q.r.p.LinkTypes)
		id1 := m.linkRead.Choose(rng)
		n := m.multigetSize(rng)
		q.id2s = m.id2.Multiple(rng, id1, ti, n, gen.PGet, q.id2s[:0])
		var found int
		err = rec.Do(q.cur, intended, func() (int64, error) {
			var err error
			found, err = q.cl.MultigetLinks(ctx, id1, linkType(ti), q.id2s)
			return 1, err
		})
		if err == nil {
			rec.Found(q.cur, int64(found))
		}
	}
	return err
}

// nodeOp runs ADD_NODE, UPDATE_NODE, DELETE_NODE or GET_NODE.
func (q *requester) nodeOp(rec *runner.Recorder, intended time.Time, op profile.Op) error {
	m, ctx, rng := q.r.m, q.r.opCtx, q.rng
	var err error
	switch op {
	case profile.AddNode:
		n := &q.node
		n.ID, n.Type, n.Version, n.Time = 0, store.NodeType, nodeAddVersion(q.i, q.adds), int32(time.Now().Unix())
		q.adds++
		q.data, _ = m.content.addedNode(q.rr, q.data, n.Version)
		n.Data = q.data
		err = rec.Do(q.cur, intended, func() (int64, error) {
			_, err := q.cl.AddNode(ctx, n)
			return 1, err
		})
		if err == nil {
			q.t.nodesAdded++
			q.t.addedSum += workload.Mix64(uint64(n.Version))
		}
	case profile.UpdateNode:
		n := &q.node
		n.ID, n.Type, n.Time = m.nodeUpdate.Choose(rng), store.NodeType, int32(time.Now().Unix())
		n.Version = m.content.nodeUpdateVersion(rng, q.i)
		q.data, _ = m.content.updatedNode(q.rr, q.data, n.ID, n.Version)
		n.Data = q.data
		q.r.nodesTouched.add(n.ID)
		err = rec.Do(q.cur, intended, func() (int64, error) {
			_, err := q.cl.UpdateNode(ctx, n)
			return 1, err
		})
	case profile.DeleteNode:
		id := m.nodeDelete.Choose(rng)
		q.r.nodesTouched.add(id)
		var found bool
		err = rec.Do(q.cur, intended, func() (int64, error) {
			var err error
			found, err = q.cl.DeleteNode(ctx, id)
			return 1, err
		})
		if err == nil && found {
			q.t.nodesDeleted++
		}
	case profile.GetNode:
		id := m.nodeRead.Choose(rng)
		err = rec.Do(q.cur, intended, func() (int64, error) {
			_, err := q.cl.GetNode(ctx, id)
			return 1, err
		})
	}
	return err
}

// getLinksList lists the newest links of an (id1, link type), or with the profile's history
// share pages further back from a list that filled its limit.
func (q *requester) getLinksList(rec *runner.Recorder, intended time.Time) error {
	m, ctx, limit := q.r.m, q.r.opCtx, q.r.p.RangeLimit
	rng := q.rng
	var (
		e      histEntry
		offset int
		hist   = len(q.history) > 0 && rng.Float64()*100 < m.prof.HistoryPct
	)
	if hist {
		e = q.history[rng.IntN(len(q.history))]
		offset = 1 // the oldest link the earlier call returned
	} else {
		ti := rng.IntN(q.r.p.LinkTypes)
		e = histEntry{id1: m.linkRead.Choose(rng), linkType: linkType(ti), time: math.MaxInt64}
	}
	var n int
	var last int64
	err := rec.Do(q.cur, intended, func() (int64, error) {
		var err error
		n, last, err = q.cl.GetLinkList(ctx, e.id1, e.linkType, e.time, offset, limit)
		return 1, err
	})
	if err != nil {
		return err
	}
	rec.Found(q.cur, int64(n))
	key := [2]int64{e.id1, e.linkType}
	switch {
	case n >= limit:
		q.remember(key, histEntry{id1: e.id1, linkType: e.linkType, time: last})
	case hist:
		q.forget(key)
	}
	return nil
}

// remember keeps e for a later history call, replacing a random entry when full.
func (q *requester) remember(key [2]int64, e histEntry) {
	if i, ok := q.histIdx[key]; ok {
		q.history[i] = e
		return
	}
	if len(q.history) < historyLimit {
		q.histIdx[key] = len(q.history)
		q.history = append(q.history, e)
		return
	}
	i := q.rng.IntN(len(q.history))
	old := q.history[i]
	delete(q.histIdx, [2]int64{old.id1, old.linkType})
	q.history[i] = e
	q.histIdx[key] = i
}

// forget drops the entry of key: its history is exhausted.
func (q *requester) forget(key [2]int64) {
	i, ok := q.histIdx[key]
	if !ok {
		return
	}
	delete(q.histIdx, key)
	last := len(q.history) - 1
	if i != last {
		moved := q.history[last]
		q.history[i] = moved
		q.histIdx[[2]int64{moved.id1, moved.linkType}] = i
	}
	q.history = q.history[:last]
}

// multigetSize draws the number of id2s of a MULTIGET_LINK.
func (m *model) multigetSize(rng *rand.Rand) int { return int(m.multiget.Choose(rng)) }
