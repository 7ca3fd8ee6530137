package runner

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// workerDone is what a worker's goroutine reports when its Run returns.
type workerDone struct {
	i   int
	err error
	at  time.Time
}

// stepRun is the state of a running step: its contexts, its workers' recorders and how they
// ended. Only Run's goroutine uses it; the workers report through done.
type stepRun struct {
	s     *Step
	clock Clock
	ctx   context.Context // the caller's: cancelled on interrupt
	// runCtx is cancelled when the step fails or stalls (with that error as its cause), on
	// interrupt, and at its end; fgCtx and bgCtx, the workers' contexts, derive from it and
	// are also cancelled at the step's normal end.
	runCtx             context.Context
	cancelRun          context.CancelCauseFunc
	fgCtx, bgCtx       context.Context
	cancelFg, cancelBg context.CancelFunc

	recs     []*Recorder
	done     chan workerDone
	returned []bool // by worker
	left     int    // workers that have not returned
	fgLeft   int    // foreground workers that have not returned
	clients  int    // foreground clients

	failErr       error
	fgEnd, allEnd time.Time
	clientEnd     map[int]time.Time
	notes         []string
}

func newStepRun(ctx context.Context, s *Step, clock Clock) *stepRun {
	n := len(s.Workers)
	sr := &stepRun{s: s, clock: clock, ctx: ctx, recs: make([]*Recorder, n),
		done: make(chan workerDone, n), returned: make([]bool, n), left: n, clientEnd: map[int]time.Time{}}
	sr.runCtx, sr.cancelRun = context.WithCancelCause(ctx)
	sr.fgCtx, sr.cancelFg = context.WithCancel(sr.runCtx)
	sr.bgCtx, sr.cancelBg = context.WithCancel(sr.runCtx)
	fgClients := map[int]bool{}
	for i, w := range s.Workers {
		sr.recs[i] = newRecorder(clock, w.Client, len(s.Ops))
		sr.recs[i].opCtx = sr.runCtx
		if !w.Background {
			sr.fgLeft++
			fgClients[w.Client] = true
		}
	}
	sr.clients = len(fgClients)
	return sr
}

// stop cancels every worker's context, with cause (nil: context.Canceled).
func (sr *stepRun) stop(cause error) {
	sr.cancelRun(cause)
	sr.cancelFg()
	sr.cancelBg()
}

// workerCtx returns the context of worker w.
func (sr *stepRun) workerCtx(w Worker) context.Context {
	if w.Background {
		return sr.bgCtx
	}
	return sr.fgCtx
}

// startDeadline ends the workers after s.Duration, from a goroutine that is done (the channel
// it returns is closed) by then or once runCtx ends. Without a Duration, background workers
// end at once when there are no foreground workers.
func (sr *stepRun) startDeadline(start time.Time) <-chan struct{} {
	done := make(chan struct{})
	if sr.s.Duration <= 0 {
		close(done)
		if sr.fgLeft == 0 {
			sr.cancelBg()
		}
		return done
	}
	go func() {
		defer close(done)
		if sr.clock.WaitUntil(sr.runCtx, start.Add(sr.s.Duration)) == nil {
			sr.cancelFg()
			sr.cancelBg()
		}
	}()
	return done
}

// startWorkers starts a goroutine per worker. A worker's return counts as progress for the
// stall watchdog.
func (sr *stepRun) startWorkers() {
	for i, w := range sr.s.Workers {
		wctx, rec, clock, done := sr.workerCtx(w), sr.recs[i], sr.clock, sr.done
		go func() {
			var err error
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic in worker of client %d: %v\n%s", w.Client, p, debug.Stack())
				}
				at := clock.Now()
				rec.last.Store(at.UnixNano())
				done <- workerDone{i: i, err: err, at: at}
			}()
			err = w.Run(wctx, rec)
		}()
	}
}

// wait takes the workers' ends as they come and ticks st every tick, until every worker has
// returned or a stall after they were cancelled leaves the rest behind. what names the engine
// configuration in a stall's error.
func (sr *stepRun) wait(st *stepStats, tick time.Duration, stalls <-chan time.Duration, what string) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for sr.left > 0 {
		select {
		case d := <-sr.done:
			sr.workerReturned(d)
		case <-ticker.C:
			st.tick(sr.ctx, sr.recs, true)
		case idle := <-stalls:
			if sr.runCtx.Err() != nil {
				sr.abandon(idle)
				return
			}
			sr.failErr = &StallError{What: what, For: idle}
			sr.stop(sr.failErr)
		}
	}
}

// workerReturned records the end of a worker. The first error that is not a normal end, unless
// the step was interrupted before, fails the step and cancels every other worker.
func (sr *stepRun) workerReturned(d workerDone) {
	sr.left--
	sr.returned[d.i] = true
	w := sr.s.Workers[d.i]
	sr.allEnd = later(sr.allEnd, d.at)
	if !normalEnd(d.err, sr.workerCtx(w)) && sr.failErr == nil && sr.ctx.Err() == nil {
		sr.failErr = d.err
		sr.stop(d.err)
	}
	if !w.Background {
		sr.fgEnd = later(sr.fgEnd, d.at)
		sr.clientEnd[w.Client] = later(sr.clientEnd[w.Client], d.at)
		if sr.fgLeft--; sr.fgLeft == 0 {
			sr.cancelBg()
		}
	}
}

// abandon gives up on the cancelled workers that have not returned, nothing having progressed
// for idle: for the step's figures they end now, and a note names their clients.
func (sr *stepRun) abandon(idle time.Duration) {
	for drained := false; !drained; { // the workers that returned meanwhile are not left behind
		select {
		case d := <-sr.done:
			sr.workerReturned(d)
		default:
			drained = true
		}
	}
	if sr.left == 0 {
		return
	}
	now := sr.clock.Now()
	var clients []int
	for i, w := range sr.s.Workers {
		if sr.returned[i] {
			continue
		}
		clients = append(clients, w.Client)
		sr.allEnd = later(sr.allEnd, now)
		if !w.Background {
			sr.fgEnd = later(sr.fgEnd, now)
			sr.clientEnd[w.Client] = later(sr.clientEnd[w.Client], now)
		}
	}
	slices.Sort(clients)
	names := make([]string, 0, len(clients))
	for _, c := range slices.Compact(clients) {
		names = append(names, strconv.Itoa(c))
	}
	sr.notes = append(sr.notes, fmt.Sprintf("%d of the step's %d workers (clients %s) did not return once cancelled, "+
		"and nothing progressed for %v: the step ended without them", sr.left, len(sr.s.Workers), strings.Join(names, ", "), roundIdle(idle)))
}

// watch starts the step's stall watchdog with limit, counting from start, and returns the
// channel on which it reports each stall and the function that stops it. A limit of 0 starts
// none (a nil channel).
func (sr *stepRun) watch(limit time.Duration, start time.Time) (<-chan time.Duration, func()) {
	if limit <= 0 {
		return nil, func() {}
	}
	w := &stepWatch{clock: sr.clock, limit: limit, recs: sr.recs, stalls: make(chan time.Duration)}
	w.base.Store(start.UnixNano())
	// The watchdog outlives an interrupt: it bounds the wait for the cancelled workers.
	ctx, stop := context.WithCancel(context.WithoutCancel(sr.ctx))
	go w.run(ctx)
	return w.stalls, stop
}
