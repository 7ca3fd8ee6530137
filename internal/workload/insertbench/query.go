package insertbench

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// opQuery is the query op of a query step (after insert and delete).
const opQuery runner.Op = 2

// maxRefresh is how many queries a point query client runs before it asks for
// max(transactionid) again (iibench.py:1091-1092); doneCheck is how many queries a query
// client runs between two looks at whether its writer is done (iibench.py:1086-1089).
const (
	maxRefresh = 100
	doneCheck  = 16
)

// query is qrN and qpN: one query client per client runs range (qr) or point (qp) queries as
// fast as it can while the client's writer inserts and deletes N rows a second.
//
// As the reference (cl.repro.sh:172, iibench.py:1085-1089), each writer writes N x
// QuerySeconds rows under the reference's rate limit, its query client stops once the writer
// is done, and the step ends when every writer and query client has: when the engine cannot
// keep up, the step runs longer. In the corrected variant the step lasts QuerySeconds and the
// writers are open loop, in the background.
func (r *run) query(ctx context.Context, name string) *result.Step {
	var span time.Duration
	if r.p.Corrected() {
		span = time.Duration(r.p.QuerySeconds * float64(time.Second))
	}
	return r.queryAt(ctx, name, float64(queryRate(name)), strings.HasPrefix(name, "qp"), span)
}

// queryAt runs a query step of name whose writers write rate rows a second per client: range
// (or point) queries as fast as they go beside them. With a span, the step lasts that long
// and its writers are open loop, in the background (the corrected variant's query steps and
// the capacity levels); without one, each writer writes rate x QuerySeconds rows under the
// reference's rate limit.
func (r *run) queryAt(ctx context.Context, name string, rate float64, point bool, span time.Duration) *result.Step {
	batch := r.p.queryBatch(int(math.Ceil(rate)))
	s := runner.Step{Name: name, ProgressOp: opQuery, Duration: span, Requests: true,
		Ops: []runner.OpSpec{{Name: "insert", Background: true}, {Name: "delete", Background: true}, {Name: "query"}}}
	open := span > 0
	r.writers = r.writers[:0]
	segs := r.newSegments(name, batch)
	for _, c := range r.p.ownClients() {
		var n int64 // open loop: until the step ends
		if !open {
			n = rounds(r.p.queryStepRows(int(rate)), batch)
		}
		w := r.newWriter(name, c, r.tableOf(c), segs[r.tableOf(c)], r.stripeOf(c), n, batch, true)
		w.rate, w.span, w.open = rate, span, open
		r.writers = append(r.writers, w)
		s.Workers = append(s.Workers, w.workers(open)...)
		s.Workers = append(s.Workers, runner.Worker{Client: c, Run: func(ctx context.Context, rec *runner.Recorder) error {
			return r.querier(ctx, rec, w, point)
		}})
	}
	r.addHolders(&s)
	st := r.runStep(ctx, s)
	if st.Status != result.StatusOK {
		return st
	}
	target := rate * float64(len(r.p.ownClients())) // a shard's: the merge sums them
	var achieved, deleted float64
	if op := st.Ops["insert"]; op != nil {
		achieved = op.PerSec
	}
	if op := st.Ops["delete"]; op != nil {
		deleted = op.PerSec
	}
	st.Target = runner.SLA(target, achieved)
	st.Target.DeletesPerSec = target
	st.Target.AchievedDeletesPerSec = deleted
	return st
}

// querier is the query client of w's client (iibench.py:965-1107): range queries on a
// secondary index chosen at random from a start uniform in its first column's domain, or
// PointIDs primary-key lookups uniform in [the writer's estimate of the smallest
// transactionid, max(transactionid)), the maximum asked for at the start and after every
// maxRefresh queries.
func (r *run) querier(ctx context.Context, rec *runner.Recorder, w *writer, point bool) error {
	sess, err := r.session(true)
	if err != nil {
		return err
	}
	defer sess.close()
	t := w.t
	var hi int64
	if point {
		if hi, _, err = sess.maxID(r.opCtx, t); err != nil {
			return err
		}
	}
	if err := sess.prepareQueries(r.opCtx, t, point); err != nil {
		return err
	}
	rng := NewGen(r.p, r.p.Seed, streamOf(w.step, w.client, 2)).Rand()
	rt := r.retrier(w.step, w.client, int(opQuery))
	ids := make([]int64, r.p.PointIDs)
	for loops := 1; ctx.Err() == nil; loops++ {
		var found int
		if point {
			drawIDs(rng, ids, w.low.Load(), hi)
			err = rt.do(ctx, rec, opQuery, time.Time{}, func() (int64, error) {
				var err error
				found, err = sess.pointQuery(r.opCtx, t, ids)
				return 1, err
			})
		} else {
			idx, start := r.rangeStart(rng)
			err = rt.do(ctx, rec, opQuery, time.Time{}, func() (int64, error) {
				var err error
				found, err = sess.rangeQuery(r.opCtx, t, idx, start, r.p.QueryRows)
				return 1, err
			})
		}
		if err != nil {
			return err
		}
		rec.Found(opQuery, int64(found))
		if !w.open && loops%doneCheck == 0 && w.finished() {
			return nil
		}
		if point && loops%maxRefresh == 0 {
			if hi, _, err = sess.maxID(r.opCtx, t); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// rangeStart draws a range query as the reference does (iibench.py:1010, :615, :672, :729):
// one of the three secondary indexes, then a start uniform in its first column's domain.
func (r *run) rangeStart(rng *rand.Rand) (idx int, start int64) {
	domains := [numIndexes]int64{0, int64(r.p.Products), int64(r.p.CashRegs), int64(r.p.MaxPrice)}
	idx = idxMarket + rng.IntN(numIndexes-1)
	return idx, rng.Int64N(domains[idx])
}

// drawIDs fills ids with values uniform in [lo, hi), the reference's random.randrange(min_id,
// max_id) (iibench.py:777); where hi <= lo (the reference then fails) they are all lo.
func drawIDs(rng *rand.Rand, ids []int64, lo, hi int64) {
	n := max(hi-lo, 1)
	for i := range ids {
		ids[i] = lo + rng.Int64N(n)
	}
}
