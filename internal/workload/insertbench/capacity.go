package insertbench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
)

// CapacityUnits is what the Insert Benchmark's capacity rates count.
const CapacityUnits = "rows/s per client"

// capacityStep reports whether step is a level of the capacity search (cap.N).
func capacityStep(step string) bool { return strings.HasPrefix(step, "cap.") }

// validateCapacity checks the capacity search's options: its levels query the secondary
// indexes (l.x must run), and the shards of a sharded run would each search alone.
func (p *Params) validateCapacity() error {
	if !p.Capacity.On {
		return nil
	}
	if err := p.Capacity.Validate(); err != nil {
		return err
	}
	if !slices.Contains(p.Steps, "l.x") {
		return fmt.Errorf("--capacity: its levels query the secondary indexes: include l.x in --steps")
	}
	if p.Shard.Sharded() {
		return fmt.Errorf("--capacity with --shard: the shards would each search alone; run the search on one machine")
	}
	return nil
}

// capacity runs the capacity search after the steps: level after level (cap.1, cap.2, ...)
// of range queries beside open-loop writers at the search's rate per client, each emitted
// with its verdict.
func (r *run) capacity(ctx context.Context, emit func(*result.Step)) error {
	j := capacity.Judge{Op: "insert", Clients: len(r.p.ownClients()), Units: CapacityUnits}
	level := func(ctx context.Context, name string, rate float64) *result.Step {
		r.capRate = rate
		return r.stepBetweenResets(ctx, name, false)
	}
	return capacity.Run(ctx, r.p.Capacity, r.clock(), j, level, func(st *result.Step) error {
		return workload.Emit(emit, st)
	})
}

// capacityLevel is one level of the capacity search: a range-query step of
// Capacity.LevelSeconds whose open-loop writers write capRate rows a second per client.
func (r *run) capacityLevel(ctx context.Context, name string) *result.Step {
	span := time.Duration(r.p.Capacity.LevelSeconds * float64(time.Second))
	return r.queryAt(ctx, name, r.capRate, false, span)
}

// queryOrLevel runs a query step (qrN, qpN) or a level of the capacity search (cap.N).
func (r *run) queryOrLevel(ctx context.Context, name string) *result.Step {
	if capacityStep(name) {
		return r.capacityLevel(ctx, name)
	}
	return r.query(ctx, name)
}
