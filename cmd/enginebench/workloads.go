package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/iibench"
	"github.com/enginebench/enginebench/internal/workload/insertbench"
	"github.com/enginebench/enginebench/internal/workload/linkbench"
)

// benchmark is a workload that can tell how much space one configuration needs.
type benchmark interface {
	workload.Workload
	EstimateBytes() int64
}

// addWorkloadFlags adds a workload's own flags to fl and records that they belong to it.
func (f *runFlags) addWorkloadFlags(fl *pflag.FlagSet, name string, own *pflag.FlagSet) {
	own.VisitAll(func(fg *pflag.Flag) { f.owner[fg.Name] = append(f.owner[fg.Name], name) })
	fl.AddFlagSet(own)
}

// checkWorkloadFlags refuses a flag given for another workload than the one that runs.
func (f *runFlags) checkWorkloadFlags(fl *pflag.FlagSet, name string) error {
	var wrong []string
	owners := map[string]bool{}
	fl.Visit(func(fg *pflag.Flag) {
		if own, ok := f.owner[fg.Name]; ok && !slices.Contains(own, name) {
			wrong = append(wrong, "--"+fg.Name)
			for _, o := range own {
				owners[o] = true
			}
		}
	})
	if len(wrong) == 0 {
		return nil
	}
	var of []string
	for o := range owners {
		of = append(of, o)
	}
	sort.Strings(of)
	return fmt.Errorf("%s: not a parameter of the %s workload (%s only); see `enginebench run --help`",
		strings.Join(wrong, ", "), name, strings.Join(of, ", "))
}

// workload builds the named workload from its scale preset and the flags that were given.
func (f *runFlags) workload(fl *pflag.FlagSet, name string) (benchmark, error) {
	switch name {
	case "iibench":
		p, err := f.iibenchParams(fl)
		if err != nil {
			return nil, err
		}
		return iibench.New(p)
	case "linkbench":
		p, err := f.linkbenchParams(fl)
		if err != nil {
			return nil, err
		}
		return linkbench.New(p)
	default:
		p, err := f.params(fl)
		if err != nil {
			return nil, err
		}
		return insertbench.New(p)
	}
}

// insertFlags are the Insert Benchmark's own flags.
func insertFlags(p *insertbench.Params) *pflag.FlagSet {
	fl := pflag.NewFlagSet("insert", pflag.ContinueOnError)
	fl.IntVar(&p.Clients, "clients", 0, "insert: clients, one table each (default from --scale)")
	fl.Int64Var(&p.Rows, "rows", 0, "insert: rows per table loaded by l.i0 (default from --scale)")
	fl.Int64Var(&p.RowsI1, "rows-l.i1", 0, "insert: rows inserted and deleted per table by l.i1 (default from --scale)")
	fl.Int64Var(&p.RowsI2, "rows-l.i2", 0, "insert: rows inserted and deleted per table by l.i2 (default from --scale)")
	floatVar(fl, &p.QuerySeconds, "query-seconds", 0, "insert: seconds of each qr/qp step: its writers write rate x seconds rows per client (--variant corrected: it lasts that long) (default from --scale)")
	fl.BoolVar(&p.SharedTable, "shared-table", false, "insert: all clients use one table instead of one table each")
	fl.IntVar(&p.BatchI0, "batch-l.i0", 0, "insert: rows per insert in l.i0 (default 100)")
	fl.IntVar(&p.BatchI1, "batch-l.i1", 0, "insert: rows per insert and delete in l.i1 (default 50)")
	fl.IntVar(&p.BatchI2, "batch-l.i2", 0, "insert: rows per insert and delete in l.i2 (default 5)")
	fl.IntVar(&p.BatchQ, "batch-q", 0, "insert: rows per background insert and delete in the qr/qp steps (default 50)")
	fl.IntVar(&p.QueryRows, "query-rows", 0, "insert: rows read by each range query (default 10)")
	fl.IntVar(&p.PointIDs, "point-ids", 0, "insert: primary-key values fetched by each point query (default 10)")
	fl.IntVar(&p.Resync, "resync", 0, "insert: deletes between SELECT min(transactionid) resyncs (default 1000)")
	fl.IntVar(&p.CashRegs, "cashregisters", 0, "insert, iibench: cashregisterid domain (default 1000)")
	fl.IntVar(&p.Products, "products", 0, "insert, iibench: productid domain (default 10000)")
	fl.IntVar(&p.Customers, "customers", 0, "insert, iibench: customerid domain (default 100000)")
	fl.IntVar(&p.MaxPrice, "max-price", 0, "insert, iibench: price domain (default 500)")
	fl.IntVar(&p.DataMin, "data-min", 0, "insert: minimum length of the data column (default 10)")
	fl.IntVar(&p.DataMax, "data-max", 0, "insert: maximum length of the data column (default 20)")
	fl.IntVar(&p.DataRandPct, "data-random-pct", 0, "insert: the reference's data_random_pct: int(length x 0.75 x pct/100) characters of the data column are random (default 50)")
	floatVar(fl, &p.CleanupWaitSeconds, "cleanup-wait", 0, "insert: the cleanup step ends no earlier than `SECONDS` after its start (default from --scale: 0 for tiny and small, else the reference's 60 + 1 per million rows loaded, at most 1200)")
	return fl
}

// linkbenchFlags are LinkBench's own flags.
func linkbenchFlags(p *linkbench.Params) *pflag.FlagSet {
	fl := pflag.NewFlagSet("linkbench", pflag.ContinueOnError)
	fl.StringVar(&p.Profile, "profile", "", "linkbench: workload figures, fb2011 or fb2017 (default fb2011)")
	fl.StringVar(&p.DistributionFile, "distribution-file", "", "linkbench: CDF file in the reference's Distribution.dat format, replacing the profile's")
	fl.Int64Var(&p.MaxID1, "maxid1", 0, "linkbench: end of the node id range (exclusive); nodes are 1 .. maxid1-1 (default from --scale)")
	fl.IntVar(&p.LinkTypes, "link-types", 0, "linkbench: link types (default 2)")
	fl.IntVar(&p.Loaders, "loaders", 0, "linkbench: link loaders, plus one node loader (default from --scale)")
	fl.IntVar(&p.Requesters, "requesters", 0, "linkbench: request clients (default from --scale)")
	fl.IntVar(&p.Intervals, "intervals", 0, "linkbench: request intervals run.1 ... run.N (default from --scale)")
	floatVar(fl, &p.IntervalSeconds, "interval-seconds", 0, "linkbench: seconds of each interval (default from --scale)")
	floatVar(fl, &p.WarmupSeconds, "warmup-seconds", 0, "linkbench: seconds of warmup before run.1, not counted (default 0)")
	fl.Int64Var(&p.Requests, "requests", 0, "linkbench: request limit of each requester over the whole run (default 0: none)")
	floatVar(fl, &p.RequestRate, "request-rate", 0, "linkbench: requests a second of each requester, open loop (default 0: as fast as possible)")
	fl.BoolVar(&p.DeferIndex, "defer-index", false, "linkbench: load without the id1_type index, then build it in its own step, index")
	fl.IntVar(&p.LoadChunk, "load-chunk", 0, "linkbench: id1s a loader takes at a time (default 2048)")
	fl.IntVar(&p.LoadBatch, "load-batch", 0, "linkbench: rows per insert during the load (default 1024)")
	fl.IntVar(&p.RangeLimit, "range-limit", 0, "linkbench: rows at most per GET_LINKS_LIST (default 10000)")
	fl.BoolVar(&p.Expunge, "expunge", false, "linkbench: DELETE_LINK deletes the row instead of hiding it (--variant corrected only)")
	fl.IntVar(&p.Partitions, "partitions", 0, "linkbench: hash-partition linktable by id1 into N partitions on innodb, myrocks and postgres (the reference README's DDL has 16) (default 0: none)")
	return fl
}

// engineChecker is a workload that refuses engines its parameters cannot run on.
type engineChecker interface {
	CheckEngine(engine.Driver) error
}

// checkEngines asks the workload about the engine of every configuration before work starts.
func checkEngines(w benchmark, reg *engine.Registry, cps []configPlan) error {
	ch, ok := w.(engineChecker)
	if !ok {
		return nil
	}
	for _, c := range cps {
		d, err := reg.Lookup(c.Engine)
		if err != nil {
			return err
		}
		if err := ch.CheckEngine(d); err != nil {
			return fmt.Errorf("%sconfiguration %s: %w", c.at, c.Name, err)
		}
	}
	return nil
}

// linkbenchParams returns LinkBench's scale preset overridden by every flag that was given.
func (f *runFlags) linkbenchParams(fl *pflag.FlagSet) (linkbench.Params, error) {
	p, err := linkbench.DefaultParams(f.scale)
	if err != nil {
		return p, err
	}
	o := &f.lb
	set := ifChanged(fl)
	set("profile", func() { p.Profile = o.Profile })
	set("distribution-file", func() { p.DistributionFile = o.DistributionFile })
	set("maxid1", func() { p.MaxID1 = o.MaxID1 })
	set("link-types", func() { p.LinkTypes = o.LinkTypes })
	set("loaders", func() { p.Loaders = o.Loaders })
	set("requesters", func() { p.Requesters = o.Requesters })
	set("intervals", func() { p.Intervals = o.Intervals })
	set("interval-seconds", func() { p.IntervalSeconds = o.IntervalSeconds })
	set("warmup-seconds", func() { p.WarmupSeconds = o.WarmupSeconds })
	set("requests", func() { p.Requests = o.Requests })
	set("request-rate", func() { p.RequestRate = o.RequestRate })
	set("defer-index", func() { p.DeferIndex = o.DeferIndex })
	set("load-chunk", func() { p.LoadChunk = o.LoadChunk })
	set("load-batch", func() { p.LoadBatch = o.LoadBatch })
	set("range-limit", func() { p.RangeLimit = o.RangeLimit })
	set("expunge", func() { p.Expunge = o.Expunge })
	set("partitions", func() { p.Partitions = o.Partitions })
	set("seed", func() { p.Seed = f.seed })
	p.Shard = f.sh.parsed
	f.fidelity(fl, &p.Fidelity)
	if f.steps != "" {
		p.Steps = splitList(f.steps)
	}
	if p.Capacity, err = f.capf.params(fl, 100, p.IntervalSeconds); err != nil {
		return p, err
	}
	return p, p.Validate()
}

// iibenchSharedFlags are the Insert Benchmark's flags that iiBench takes too: the value
// domains, which are the same in both.
var iibenchSharedFlags = []string{"cashregisters", "products", "customers", "max-price"}

// iibenchFlags are iiBench's own flags.
func iibenchFlags(p *iibench.Params) *pflag.FlagSet {
	fl := pflag.NewFlagSet("iibench", pflag.ContinueOnError)
	fl.Int64Var(&p.MaxRows, "max-rows", 0, "iibench: end the run after inserting this many rows, 0 for no row limit (default from --scale)")
	floatVar(fl, &p.Seconds, "seconds", 0, "iibench: end the run after this many seconds (default 0: no time limit)")
	fl.IntVar(&p.InsertThreads, "insert-threads", 0, "iibench: insert threads (default 1)")
	fl.IntVar(&p.QueryThreads, "query-threads", 0, "iibench: query threads, each on one index in turn: primary key, then the secondary indexes; 0 for inserts only (default one per index)")
	fl.IntVar(&p.InsertBatch, "insert-batch", 0, "iibench: rows per insert statement and transaction; the reference variant inserts whole batches only (default 1000)")
	floatVar(fl, &p.MaxInsertRate, "max-insert-rate", 0, "iibench: rows inserted a second over all insert threads, evenly spaced and open loop: response time is measured from when each batch was due, and the step is checked against the rate (default 0: no limit, closed loop)")
	fl.IntVar(&p.SecondaryIndexes, "secondary-indexes", 0, "iibench: secondary indexes, 0-3: marketsegment, registersegment, pdc (default 3)")
	fl.IntVar(&p.QueryLimit, "query-limit", 0, "iibench: rows read by each query (default 1000)")
	fl.Int64Var(&p.QueryAfterRows, "query-after-rows", 0, "iibench: queries start once this many rows exist (default: at once in the reference variant, from --scale in the corrected one)")
	floatVar(fl, &p.ReportSeconds, "report-seconds", 0, "iibench: seconds between over-time reports (default 10)")
	floatVar(fl, &p.CostPerHour, "cost-per-hour", 0, "iibench: machine price per hour, for the run's cost and the cost per billion inserts (default 0: no cost)")
	fl.IntVar(&p.CharFields, "char-fields", 0, "iibench: padding columns charfield1..N (default 0)")
	fl.IntVar(&p.CharLength, "char-length", 0, "iibench: bytes of each padding column (default 1000)")
	fl.IntVar(&p.CompressiblePct, "compressible-pct", 0, "iibench: percent of each padding column that is one repeated character (default 90)")
	return fl
}

// iibenchParams returns iiBench's scale preset overridden by every flag that was given.
func (f *runFlags) iibenchParams(fl *pflag.FlagSet) (iibench.Params, error) {
	p, err := iibench.DefaultParams(f.scale)
	if err != nil {
		return p, err
	}
	o := &f.ii
	set := ifChanged(fl)
	set("max-rows", func() { p.MaxRows = o.MaxRows })
	set("seconds", func() { p.Seconds = o.Seconds })
	set("insert-threads", func() { p.InsertThreads = o.InsertThreads })
	set("query-threads", func() { p.QueryThreads = o.QueryThreads })
	set("insert-batch", func() { p.InsertBatch = o.InsertBatch })
	set("max-insert-rate", func() { p.MaxInsertRate = o.MaxInsertRate })
	set("secondary-indexes", func() { p.SecondaryIndexes = o.SecondaryIndexes })
	set("query-limit", func() { p.QueryLimit = o.QueryLimit })
	set("query-after-rows", func() { p.QueryAfterRows = o.QueryAfterRows })
	set("report-seconds", func() { p.ReportSeconds = o.ReportSeconds })
	set("cost-per-hour", func() { p.CostPerHour = o.CostPerHour })
	set("char-fields", func() { p.CharFields = o.CharFields })
	set("char-length", func() { p.CharLength = o.CharLength })
	set("compressible-pct", func() { p.CompressiblePct = o.CompressiblePct })
	// The value domains are the Insert Benchmark's flags.
	set("cashregisters", func() { p.CashRegs = f.p.CashRegs })
	set("products", func() { p.Products = f.p.Products })
	set("customers", func() { p.Customers = f.p.Customers })
	set("max-price", func() { p.MaxPrice = f.p.MaxPrice })
	set("seed", func() { p.Seed = f.seed })
	p.Shard = f.sh.parsed
	f.fidelity(fl, &p.Fidelity)
	if f.steps != "" && f.steps != "run" {
		return p, fmt.Errorf("--steps %q: iibench has one step, run", f.steps)
	}
	return p, p.Validate()
}
