package linkbench

import (
	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
)

// Name is LinkBench's name on the command line and in run.json.
const Name = "linkbench"

// Describe returns LinkBench's descriptor for the workload registry.
func Describe() workload.Descriptor {
	return workload.Descriptor{Name: Name, Title: "LinkBench", Seed: defaultSeed,
		StepsHelp: "load,run, must include load", Scales: workload.ScaleNames(scales, scaleName),
		Flags: func(fl *pflag.FlagSet) { declare(fl, &Params{}, &capacity.Flags{}) }, New: build, Shardable: true}
}

// build returns LinkBench of o's scale preset overridden by every flag given.
func build(o workload.Options) (workload.Benchmark, error) {
	var capf capacity.Flags
	p, fl, err := workload.Preset(o, DefaultParams, func(fl *pflag.FlagSet, p *Params) { declare(fl, p, &capf) }, (*Params).common)
	if err != nil {
		return nil, err
	}
	p.Steps = o.StepsOr(p.Steps)
	if p.Capacity, err = capf.Params(fl, 100, p.IntervalSeconds); err != nil {
		return nil, err
	}
	return New(*p)
}

// common returns where the run-wide seed, fidelity and shard go in p.
func (p *Params) common() (*uint64, *workload.Fidelity, *shard.Shard) {
	return &p.Seed, &p.Fidelity, &p.Shard
}

// declare declares LinkBench's own flags on fl, bound to p's fields (their defaults are p's
// values) and to c, the capacity search's.
func declare(fl *pflag.FlagSet, p *Params, c *capacity.Flags) {
	fl.StringVar(&p.Profile, "profile", p.Profile, "linkbench: workload figures, fb2011 or fb2017 (default fb2011)")
	fl.StringVar(&p.DistributionFile, "distribution-file", p.DistributionFile, "linkbench: CDF file in the reference's Distribution.dat format, replacing the profile's")
	fl.Int64Var(&p.MaxID1, "maxid1", p.MaxID1, "linkbench: end of the node id range (exclusive); nodes are 1 .. maxid1-1 (default from --scale)")
	fl.IntVar(&p.LinkTypes, "link-types", p.LinkTypes, "linkbench: link types (default 2)")
	fl.IntVar(&p.Loaders, "loaders", p.Loaders, "linkbench: link loaders, plus one node loader (default from --scale)")
	fl.IntVar(&p.Requesters, "requesters", p.Requesters, "linkbench: request clients (default from --scale)")
	fl.IntVar(&p.Intervals, "intervals", p.Intervals, "linkbench: request intervals run.1 ... run.N (default from --scale)")
	workload.FloatVar(fl, &p.IntervalSeconds, "interval-seconds", p.IntervalSeconds, "linkbench: seconds of each interval (default from --scale)")
	workload.FloatVar(fl, &p.WarmupSeconds, "warmup-seconds", p.WarmupSeconds, "linkbench: seconds of warmup before run.1, not counted (default 0)")
	fl.Int64Var(&p.Requests, "requests", p.Requests, "linkbench: request limit of each requester over the whole run (default 0: none)")
	workload.FloatVar(fl, &p.RequestRate, "request-rate", p.RequestRate, "linkbench: requests a second of each requester, open loop (default 0: as fast as possible)")
	fl.BoolVar(&p.DeferIndex, "defer-index", p.DeferIndex, "linkbench: load without the id1_type index, then build it in its own step, index")
	fl.IntVar(&p.LoadChunk, "load-chunk", p.LoadChunk, "linkbench: id1s a loader takes at a time (default 2048)")
	fl.IntVar(&p.LoadBatch, "load-batch", p.LoadBatch, "linkbench: rows per insert during the load (default 1024)")
	fl.IntVar(&p.RangeLimit, "range-limit", p.RangeLimit, "linkbench: rows at most per GET_LINKS_LIST (default 10000)")
	fl.BoolVar(&p.Expunge, "expunge", p.Expunge, "linkbench: DELETE_LINK deletes the row instead of hiding it (--variant corrected only)")
	fl.IntVar(&p.Partitions, "partitions", p.Partitions, "linkbench: hash-partition linktable by id1 into N partitions on innodb, myrocks and postgres (the reference README's DDL has 16) (default 0: none)")
	c.Declare(fl)
}
