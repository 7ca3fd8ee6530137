package iibench

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
)

// Name is iiBench's name on the command line and in run.json.
const Name = "iibench"

// Describe returns iiBench's descriptor for the workload registry.
func Describe() workload.Descriptor {
	return workload.Descriptor{Name: Name, Title: "iiBench", Seed: defaultSeed,
		StepsHelp: "has one step, run", Scales: workload.ScaleNames(scales, scaleName),
		Flags: func(fl *pflag.FlagSet) { declare(fl, &Params{}) }, New: build, Shardable: true}
}

// build returns iiBench of o's scale preset overridden by every flag given.
func build(o workload.Options) (workload.Benchmark, error) {
	p, _, err := workload.Preset(o, DefaultParams, declare, (*Params).common)
	if err != nil {
		return nil, err
	}
	if o.Steps != "" && o.Steps != "run" {
		return nil, fmt.Errorf("--steps %q: iibench has one step, run", o.Steps)
	}
	return New(*p)
}

// common returns where the run-wide seed, fidelity and shard go in p.
func (p *Params) common() (*uint64, *workload.Fidelity, *shard.Shard) {
	return &p.Seed, &p.Fidelity, &p.Shard
}

// declare declares iiBench's own flags on fl, bound to p's fields (their defaults are p's
// values); the value domains are the Insert Benchmark's flags too.
func declare(fl *pflag.FlagSet, p *Params) {
	fl.Int64Var(&p.MaxRows, "max-rows", p.MaxRows, "iibench: end the run after inserting this many rows, 0 for no row limit (default from --scale)")
	workload.FloatVar(fl, &p.Seconds, "seconds", p.Seconds, "iibench: end the run after this many seconds (default 0: no time limit)")
	fl.IntVar(&p.InsertThreads, "insert-threads", p.InsertThreads, "iibench: insert threads (default 1)")
	fl.IntVar(&p.QueryThreads, "query-threads", p.QueryThreads, "iibench: query threads, each on one index in turn: primary key, then the secondary indexes; 0 for inserts only (default one per index)")
	fl.IntVar(&p.InsertBatch, "insert-batch", p.InsertBatch, "iibench: rows per insert statement and transaction; the reference variant inserts whole batches only (default 1000)")
	workload.FloatVar(fl, &p.MaxInsertRate, "max-insert-rate", p.MaxInsertRate, "iibench: rows inserted a second over all insert threads, evenly spaced and open loop: response time is measured from when each batch was due, and the step is checked against the rate (default 0: no limit, closed loop)")
	fl.IntVar(&p.SecondaryIndexes, "secondary-indexes", p.SecondaryIndexes, "iibench: secondary indexes, 0-3: marketsegment, registersegment, pdc (default 3)")
	fl.IntVar(&p.QueryLimit, "query-limit", p.QueryLimit, "iibench: rows read by each query (default 1000)")
	fl.Int64Var(&p.QueryAfterRows, "query-after-rows", p.QueryAfterRows, "iibench: queries start once this many rows exist (default: at once in the reference variant, from --scale in the corrected one)")
	workload.FloatVar(fl, &p.ReportSeconds, "report-seconds", p.ReportSeconds, "iibench: seconds between over-time reports (default 10)")
	workload.FloatVar(fl, &p.CostPerHour, "cost-per-hour", p.CostPerHour, "iibench: machine price per hour, for the run's cost and the cost per billion inserts (default 0: no cost)")
	fl.IntVar(&p.CharFields, "char-fields", p.CharFields, "iibench: padding columns charfield1..N (default 0)")
	fl.IntVar(&p.CharLength, "char-length", p.CharLength, "iibench: bytes of each padding column (default 1000)")
	fl.IntVar(&p.CompressiblePct, "compressible-pct", p.CompressiblePct, "iibench: percent of each padding column that is one repeated character (default 90)")
	workload.DomainFlags(fl, &p.CashRegs, &p.Products, &p.Customers, &p.MaxPrice)
}
