package linkbench

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
)

// CapacityUnits is what LinkBench's capacity rates count.
const CapacityUnits = "requests/s per requester"

// validateCapacity checks the capacity search's options: its levels need the request phase,
// requesters that run until a level ends, and one process.
func (p *Params) validateCapacity() error {
	switch {
	case !p.Capacity.On:
		return nil
	case !slices.Contains(p.Steps, "run"):
		return errors.New("--capacity: its levels are request steps: include run in --steps")
	case p.Requests > 0:
		return errors.New("--capacity with --requests: a level's requesters run until it ends; leave --requests out")
	case p.Shard.Sharded():
		return errors.New("--capacity with --shard: the shards would each search alone; run the search on one machine")
	}
	return p.Capacity.Validate()
}

// capacity runs the capacity search after the intervals: levels cap.1, cap.2, ... of the
// request mix, each requester open loop at the search's rate (exponential gaps, as
// --request-rate), each emitted with its verdict.
func (r *run) capacity(ctx context.Context, reqs []*requester, emit func(*result.Step)) error {
	c := r.p.Capacity
	j := capacity.Judge{Op: "requests", Clients: len(own(reqs)), Units: CapacityUnits}
	level := func(ctx context.Context, name string, rate float64) *result.Step {
		r.rate, r.span = rate, time.Duration(c.LevelSeconds*float64(time.Second))
		st := r.interval(ctx, reqs, name, c.LevelSeconds, false)
		return r.finish(st, r.p.VerifyAfter(true, false), false, func() measure.Basis { return measure.Basis{PerOp: "requests"} })
	}
	clock := r.env.Runner.Clock
	if clock == nil {
		clock = runner.SystemClock()
	}
	return capacity.Run(ctx, c, clock, j, level, func(st *result.Step) error { return workload.Emit(emit, st) })
}
