// Package insertbench implements the Insert Benchmark (docs/insert-benchmark.md): tables,
// row generator, and the steps l.i0, l.x, l.i1, l.i2, cleanup, scan and qr/qp 100..1000. By
// default it does what the reference (mdcallag/mytools bench/ibench/iibench.py and its scripts)
// does, statement for statement; --variant corrected turns on the corrections that
// docs/fidelity.md lists. Each operation is written once for the SQL family (sql.go), once
// for the KV family (kv.go) and once for the document family (doc.go, after the reference's
// MongoDB mode); writer.go is the reference's statement maker, inserter and deleter.
package insertbench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
)

// stepNames lists every step in the order the benchmark runs them.
var stepNames = []string{"l.i0", "l.x", "l.i1", "l.i2", "cleanup", "scan",
	"qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"}

// StepNames returns every step name in the order the benchmark runs them.
func StepNames() []string { return slices.Clone(stepNames) }

// DefaultSteps returns the steps a run runs unless --steps says otherwise: the reference's
// (bench/ibench/cl.repro.sh), every step but scan, which stays available by name.
func DefaultSteps() []string {
	return slices.DeleteFunc(StepNames(), func(s string) bool { return s == "scan" })
}

// Params are every size and option of the Insert Benchmark. Sizes are per table.
type Params struct {
	// Fidelity is the variant and when the run verifies (docs/fidelity.md).
	workload.Fidelity
	Scale        string   `json:"scale"`
	Clients      int      `json:"clients"`
	Rows         int64    `json:"rows"`          // l.i0 rows per table
	RowsI1       int64    `json:"rows_l.i1"`     // rows inserted (and deleted) per table in l.i1
	RowsI2       int64    `json:"rows_l.i2"`     // rows inserted (and deleted) per table in l.i2
	QuerySeconds float64  `json:"query_seconds"` // the reference's nsecs: a query step writes rate x QuerySeconds rows per client
	Steps        []string `json:"steps"`
	SharedTable  bool     `json:"shared_table"`
	Seed         uint64   `json:"seed"`
	BatchI0      int      `json:"batch_l.i0"`
	BatchI1      int      `json:"batch_l.i1"`
	BatchI2      int      `json:"batch_l.i2"`
	BatchQ       int      `json:"batch_q"` // rows per background insert in the query steps
	QueryRows    int      `json:"query_rows"`
	PointIDs     int      `json:"point_ids"`
	Resync       int      `json:"resync_batches"` // the reference's resync_get_min: min(transactionid) again after this many more batches
	CashRegs     int      `json:"cashregisters"`
	Products     int      `json:"products"`
	Customers    int      `json:"customers"`
	MaxPrice     int      `json:"max_price"`
	DataMin      int      `json:"data_min"`
	DataMax      int      `json:"data_max"`
	DataRandPct  int      `json:"data_random_pct"` // the reference's data_random_pct: int(length x 0.75 x pct/100) characters are random
	// CleanupWaitSeconds is how long after its start the cleanup step waits before it ends
	// (cleanup.go): by default the reference's rule scaled by the preset (DefaultCleanupWait).
	CleanupWaitSeconds float64 `json:"cleanup_wait_seconds"`
	// HTAPSeconds is the reference's htap_transaction_seconds (iibench.py:159-161): when > 0,
	// an extra connection per client holds a read transaction with a snapshot open for that
	// many seconds at a time, in a loop, during the steps that insert or query (htap.go).
	HTAPSeconds int `json:"htap_transaction_seconds"`
	// Shard is the part of the clients this process runs (--shard I/N; its tables with one
	// table per client); the zero value is all. Not a parameter of the workload: every shard
	// of a run has the same parameters.
	Shard shard.Shard `json:"-"`
	// MemoryLimit is the preset's memory cap of each configuration in bytes (docs/memory.md);
	// 0: none.
	MemoryLimit int64 `json:"memory_limit_bytes"`
	// Capacity is the capacity search run after the steps (--capacity): levels of range
	// queries beside open-loop writers at a rate per client that ramps (capacity.go).
	Capacity capacity.Params `json:"-"`
}

// Scale is a preset of sizes (docs/insert-benchmark.md).
type Scale struct {
	Name         string
	Clients      int
	Rows         int64
	RowsI1       int64
	RowsI2       int64
	QuerySeconds float64
	// MemoryLimit caps each configuration's memory, in bytes; 0: no cap.
	MemoryLimit int64
}

// ioboundMemoryLimit is the iobound preset's cap: 512 MiB holds an engine's cache (a quarter
// to a half of the cap) and a server's base memory, and the preset's data is over six times it
// (docs/insert-benchmark.md, Sizes).
const ioboundMemoryLimit = 512 << 20

var scales = []Scale{
	{"tiny", 1, 20_000, 20_000, 5_000, 3, 0},
	{"small", 2, 500_000, 200_000, 50_000, 10, 0},
	{"cached", 4, 10_000_000, 16_000_000, 4_000_000, 1800, 0},
	{"iobound", 4, 5_000_000, 1_000_000, 250_000, 120, ioboundMemoryLimit},
}

// Scales returns the size presets.
func Scales() []Scale { return slices.Clone(scales) }

func scaleName(s Scale) string { return s.Name }

// defaultSeed is the seed of a run without --seed.
const defaultSeed = 3221223452

// DefaultParams returns the parameters of a scale preset with every other option at its
// default, or an error for an unknown scale.
func DefaultParams(scale string) (Params, error) {
	s, err := workload.FindScale(scales, scaleName, scale, "scale")
	if err != nil {
		return Params{}, err
	}
	return Params{
		Fidelity: workload.DefaultFidelity(), Scale: s.Name, Clients: s.Clients, Rows: s.Rows, RowsI1: s.RowsI1, RowsI2: s.RowsI2,
		QuerySeconds: s.QuerySeconds, Steps: DefaultSteps(), Seed: defaultSeed,
		BatchI0: 100, BatchI1: 50, BatchI2: 5, BatchQ: 50, QueryRows: 10, PointIDs: 10, Resync: 1000,
		CashRegs: 1000, Products: 10000, Customers: 100000, MaxPrice: 500,
		DataMin: 10, DataMax: 20, DataRandPct: 50,
		CleanupWaitSeconds: cleanupWaitScale(s.Name) * ReferenceCleanupWait(s.Rows*int64(s.Clients)),
		MemoryLimit:        s.MemoryLimit,
	}, nil
}

// Validate checks every parameter and puts Steps into the benchmark's order.
func (p *Params) Validate() error {
	if err := p.Fidelity.Validate(); err != nil {
		return err
	}
	if err := p.validateCounts(); err != nil {
		return err
	}
	if err := p.validateSizes(); err != nil {
		return err
	}
	if err := p.validateShard(); err != nil {
		return err
	}
	if err := p.orderSteps(); err != nil {
		return err
	}
	return p.validateCapacity()
}

// validateShard checks that a shard of more than one has clients of its own and tables of
// its own: a table shared by the clients of several processes is not supported yet (its
// verification needs every writer's ledger).
func (p *Params) validateShard() error {
	s := p.Shard
	switch {
	case !s.Sharded():
		return nil
	case p.SharedTable:
		return fmt.Errorf("--shard %d/%d: the Insert Benchmark's shards need one table per client: --shared-table cannot be sharded yet", s.Index, s.Count)
	case p.Clients < s.Count:
		return fmt.Errorf("--shard %d/%d: --clients %d: each of the %d shards needs a client (client c is shard c %% %d's)", s.Index, s.Count, p.Clients, s.Count, s.Count)
	}
	return nil
}

// ownClients returns the clients (0-based) of this process's shard, in order.
func (p *Params) ownClients() []int {
	var out []int
	for c := 0; c < p.Clients; c++ {
		if p.Shard.Owns(c) {
			out = append(out, c)
		}
	}
	return out
}

// validateCounts checks the clients, batches and the sizes of the generated columns' domains.
func (p *Params) validateCounts() error {
	if err := workload.CheckPositive(
		workload.Int("--clients", p.Clients), workload.Int("--rows", p.Rows),
		workload.Int("--batch-l.i0", p.BatchI0), workload.Int("--batch-l.i1", p.BatchI1),
		workload.Int("--batch-l.i2", p.BatchI2), workload.Int("--batch-q", p.BatchQ),
		workload.Int("--query-rows", p.QueryRows), workload.Int("--point-ids", p.PointIDs),
		workload.Int("--cashregisters", p.CashRegs), workload.Int("--products", p.Products),
		workload.Int("--customers", p.Customers), workload.Int("--max-price", p.MaxPrice),
		workload.Int("--resync", p.Resync),
	); err != nil {
		return err
	}
	for _, b := range p.batchFlags() {
		if b.batch > maxBatch {
			return fmt.Errorf("%s must be at most %d, got %d", b.flag, maxBatch, b.batch)
		}
	}
	if p.Clients > 1024 {
		return fmt.Errorf("--clients must be at most 1024, got %d", p.Clients)
	}
	return nil
}

// validateSizes checks the row counts, the data they make, the rows' data and the step times.
func (p *Params) validateSizes() error {
	if p.RowsI1 < 0 || p.RowsI2 < 0 {
		return fmt.Errorf("--rows-l.i1 and --rows-l.i2 must be >= 0")
	}
	if est := p.EstimateBytes(); est > maxDataBytes {
		return fmt.Errorf("--rows %d, --rows-l.i1 %d and --rows-l.i2 %d on %s need more than %d PiB of data: too large for any machine",
			p.Rows, p.RowsI1, p.RowsI2, plural(int64(p.Tables()), "table"), maxDataBytes>>50)
	}
	if p.QuerySeconds <= 0 {
		return fmt.Errorf("--query-seconds must be > 0, got %g", p.QuerySeconds)
	}
	if p.DataMin < 0 || p.DataMax < p.DataMin || p.DataMax > 4000 {
		return fmt.Errorf("need 0 <= --data-min <= --data-max <= 4000, got %d and %d", p.DataMin, p.DataMax)
	}
	if p.DataRandPct < 0 || p.DataRandPct > 100 {
		return fmt.Errorf("--data-random-pct must be within 0..100, got %d", p.DataRandPct)
	}
	if p.HTAPSeconds < 0 || p.HTAPSeconds > maxHTAPSeconds {
		return fmt.Errorf("--htap-transaction-seconds must be within 0..%d (0: off), got %d", maxHTAPSeconds, p.HTAPSeconds)
	}
	return validCleanupWait(p.CleanupWaitSeconds)
}

// orderSteps checks Steps (known, each once, l.i0 among them, l.x before a qr step) and puts
// them into the benchmark's order.
func (p *Params) orderSteps() error {
	steps, err := workload.OrderSteps(p.Steps, stepNames, "l.i0", "steps")
	if err != nil {
		return err
	}
	for _, s := range p.Steps {
		if strings.HasPrefix(s, "qr") && !slices.Contains(steps, "l.x") {
			return fmt.Errorf("step %s queries the secondary indexes: include l.x in --steps", s)
		}
	}
	p.Steps = steps
	return nil
}

// Tables returns the number of tables: one per client, or one shared by all.
func (p *Params) Tables() int {
	if p.SharedTable {
		return 1
	}
	return p.Clients
}

// queryRate returns N of a qrN/qpN step, or 0 for other steps.
func queryRate(step string) int {
	switch step {
	case "qr100", "qp100":
		return 100
	case "qr500", "qp500":
		return 500
	case "qr1000", "qp1000":
		return 1000
	}
	return 0
}

// ParamMap returns the parameters as a map for run.json.
func (p *Params) ParamMap() map[string]any {
	m := map[string]any{
		"variant": string(p.Variant), "verify": string(p.Verify),
		"scale": p.Scale, "clients": p.Clients, "tables": p.Tables(), "rows": p.Rows,
		"rows_l.i1": p.RowsI1, "rows_l.i2": p.RowsI2, "query_seconds": p.QuerySeconds,
		"steps": p.Steps, "shared_table": p.SharedTable, "seed": p.Seed,
		"batch_l.i0": p.BatchI0, "batch_l.i1": p.BatchI1, "batch_l.i2": p.BatchI2,
		"batch_q": p.BatchQ, "query_rows": p.QueryRows, "point_ids": p.PointIDs,
		"resync_batches": p.Resync, "cashregisters": p.CashRegs, "products": p.Products,
		"customers": p.Customers, "max_price": p.MaxPrice, "data_min": p.DataMin,
		"data_max": p.DataMax, "data_random_pct": p.DataRandPct,
		"cleanup_wait_seconds": p.CleanupWaitSeconds, "memory_limit_bytes": p.MemoryLimit,
		"htap_transaction_seconds": p.HTAPSeconds,
	}
	if p.Capacity.On {
		m["capacity"] = p.Capacity
	}
	return m
}

// maxHTAPSeconds bounds --htap-transaction-seconds: a year, far beyond any step, and far
// below what a time.Duration holds.
const maxHTAPSeconds = 366 * 24 * 3600

// maxBatch bounds every batch size: a batch's rows are generated in memory at once.
const maxBatch = 1_000_000

// maxDataBytes bounds the data a configuration may need (EstimateBytes): 64 PiB, more than any
// machine holds, and far enough below 2^63 that sums of it over configurations do not overflow.
const maxDataBytes = 1 << 56

// EstimateBytes is a rough upper bound of the data directory size one configuration needs:
// every row inserted, as deleted rows take space until compaction, at 120 bytes plus the
// longest data of each. It saturates at the largest int64 instead of overflowing.
func (p *Params) EstimateBytes() int64 {
	rows := addCap(addCap(max(p.Rows, 0), max(p.RowsI1, 0)), max(p.RowsI2, 0))
	return mulCap(mulCap(rows, int64(p.Tables())), int64(120+max(p.DataMax, 0)))
}

// addCap returns a+b for a, b >= 0, or the largest int64 when the sum is larger.
func addCap(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulCap returns a*b for a, b >= 0, or the largest int64 when the product is larger.
func mulCap(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// RowBytes is the logical size of one row: the six fixed-size columns (transactionid and
// dateandtime 8 bytes each; cashregisterid, customerid, productid and price 4 each) and the
// mean length of data. It is the denominator of write and space amplification.
func (p *Params) RowBytes() float64 {
	return 32 + float64(p.DataMin+p.DataMax)/2
}

// rounds returns how many batches of batch rows write rows rows: the reference's
// ceil(max_rows / rows_per_commit) (iibench.py:1425), each a full batch, so the last one may
// write up to batch-1 rows more than rows (iibench.py:796).
func rounds(rows int64, batch int) int64 {
	if rows <= 0 {
		return 0
	}
	return (rows-1)/int64(batch) + 1
}

// queryBatch returns the rows per background write of a query step of rate rows a second: the
// reference lowers rows_per_commit to the rate when the rate is smaller (iibench.py:257-258).
func (p *Params) queryBatch(rate int) int { return min(p.BatchQ, rate) }

// queryStepRows returns the rows each client's background writer writes in a query step of
// rate rows a second: the reference's max_rows = rate x nsecs (cl.repro.sh:172), at least one.
func (p *Params) queryStepRows(rate int) int64 {
	return max(int64(math.Round(float64(rate)*p.QuerySeconds)), 1)
}
