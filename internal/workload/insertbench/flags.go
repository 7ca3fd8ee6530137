package insertbench

import (
	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
)

// Name is the Insert Benchmark's name on the command line and in run.json.
const Name = "insert"

// Describe returns the Insert Benchmark's descriptor for the workload registry.
func Describe() workload.Descriptor {
	return workload.Descriptor{Name: Name, Title: "the Insert Benchmark", Seed: defaultSeed,
		StepsHelp: "must include l.i0", Scales: workload.ScaleNames(scales, scaleName),
		Flags: func(fl *pflag.FlagSet) { declare(fl, &Params{}, &capacity.Flags{}) }, New: build, Shardable: true}
}

// build returns the Insert Benchmark of o's scale preset overridden by every flag given.
func build(o workload.Options) (workload.Benchmark, error) {
	var capf capacity.Flags
	p, fl, err := workload.Preset(o, DefaultParams, func(fl *pflag.FlagSet, p *Params) { declare(fl, p, &capf) }, (*Params).common)
	if err != nil {
		return nil, err
	}
	if !fl.Changed("cleanup-wait") {
		p.CleanupWaitSeconds = p.DefaultCleanupWait() // the preset's rule for the sizes given
	}
	p.Steps = o.StepsOr(p.Steps)
	if p.Capacity, err = capf.Params(fl, 100, p.QuerySeconds); err != nil {
		return nil, err
	}
	return New(*p)
}

// common returns where the run-wide seed, fidelity and shard go in p.
func (p *Params) common() (*uint64, *workload.Fidelity, *shard.Shard) {
	return &p.Seed, &p.Fidelity, &p.Shard
}

// declare declares the Insert Benchmark's own flags on fl, bound to p's fields (their
// defaults are p's values) and to c, the capacity search's.
func declare(fl *pflag.FlagSet, p *Params, c *capacity.Flags) {
	fl.IntVar(&p.Clients, "clients", p.Clients, "insert: clients, one table each (default from --scale)")
	fl.Int64Var(&p.Rows, "rows", p.Rows, "insert: rows per table loaded by l.i0 (default from --scale)")
	fl.Int64Var(&p.RowsI1, "rows-l.i1", p.RowsI1, "insert: rows inserted and deleted per table by l.i1 (default from --scale)")
	fl.Int64Var(&p.RowsI2, "rows-l.i2", p.RowsI2, "insert: rows inserted and deleted per table by l.i2 (default from --scale)")
	workload.FloatVar(fl, &p.QuerySeconds, "query-seconds", p.QuerySeconds, "insert: seconds of each qr/qp step: its writers write rate x seconds rows per client (--variant corrected: it lasts that long) (default from --scale)")
	fl.BoolVar(&p.SharedTable, "shared-table", p.SharedTable, "insert: all clients use one table instead of one table each")
	fl.IntVar(&p.BatchI0, "batch-l.i0", p.BatchI0, "insert: rows per insert in l.i0 (default 100)")
	fl.IntVar(&p.BatchI1, "batch-l.i1", p.BatchI1, "insert: rows per insert and delete in l.i1 (default 50)")
	fl.IntVar(&p.BatchI2, "batch-l.i2", p.BatchI2, "insert: rows per insert and delete in l.i2 (default 5)")
	fl.IntVar(&p.BatchQ, "batch-q", p.BatchQ, "insert: rows per background insert and delete in the qr/qp steps (default 50)")
	fl.IntVar(&p.QueryRows, "query-rows", p.QueryRows, "insert: rows read by each range query (default 10)")
	fl.IntVar(&p.PointIDs, "point-ids", p.PointIDs, "insert: primary-key values fetched by each point query (default 10)")
	fl.IntVar(&p.Resync, "resync", p.Resync, "insert: deletes between SELECT min(transactionid) resyncs (default 1000)")
	workload.DomainFlags(fl, &p.CashRegs, &p.Products, &p.Customers, &p.MaxPrice)
	fl.IntVar(&p.DataMin, "data-min", p.DataMin, "insert: minimum length of the data column (default 10)")
	fl.IntVar(&p.DataMax, "data-max", p.DataMax, "insert: maximum length of the data column (default 20)")
	fl.IntVar(&p.DataRandPct, "data-random-pct", p.DataRandPct, "insert: the reference's data_random_pct: int(length x 0.75 x pct/100) characters of the data column are random (default 50)")
	workload.FloatVar(fl, &p.CleanupWaitSeconds, "cleanup-wait", p.CleanupWaitSeconds, "insert: the cleanup step ends no earlier than `SECONDS` after its start (default from --scale: 0 for tiny and small, else the reference's 60 + 1 per million rows loaded, at most 1200)")
	fl.IntVar(&p.HTAPSeconds, "htap-transaction-seconds", p.HTAPSeconds, "insert: the reference's htap_transaction_seconds: an extra connection per client keeps a read transaction with a snapshot open for `SECONDS` at a time, in a loop, during l.i0, l.i1, l.i2 and the qr/qp steps, holding back purge and vacuum; 0: off")
	c.Declare(fl)
}
