// Package iibench implements iiBench, the indexed insertion benchmark (docs/iibench.md): insert
// threads append rows to purchases_index and its secondary indexes while one query thread per
// index seeks to a random point of it and reads the next rows in index order. One step, run,
// ends at a row count or a duration and reports every few seconds how the rates change as the
// table grows. By default it reproduces its reference, iibench.py in its iiBench form
// (docs/fidelity.md); Params.Variant corrected turns on enginebench's corrections. Rows and seek
// points are made in gen.go; each operation is written for the SQL family, as the reference's
// text statements (refsql.go) and as enginebench's prepared ones (sql.go), and for the KV family
// (kv.go).
package iibench

import (
	"fmt"
	"math"
	"slices"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
)

// Params are every size and option of iiBench.
type Params struct {
	// Fidelity is the variant and when the run verifies (docs/fidelity.md).
	workload.Fidelity
	Scale string `json:"scale"`
	// MaxRows ends the run when that many rows are inserted; 0: no row limit (Seconds must be set).
	MaxRows int64 `json:"max_rows"`
	// Seconds ends the run after that long; 0: no time limit.
	Seconds       float64 `json:"seconds"`
	InsertThreads int     `json:"insert_threads"`
	// QueryThreads run queries; thread i queries index i modulo the primary key and the
	// secondary indexes. -1 means one per index (Validate sets it); 0: inserts only.
	QueryThreads int `json:"query_threads"`
	// InsertBatch is the rows of one insert statement and transaction. The reference variant
	// inserts whole batches only, so the last may go past MaxRows, as the reference's.
	InsertBatch int `json:"insert_batch"`
	// MaxInsertRate caps the rows inserted a second over all insert threads, spread evenly
	// (batch by batch); 0: as fast as possible.
	MaxInsertRate    float64 `json:"max_insert_rate"`
	SecondaryIndexes int     `json:"secondary_indexes"` // 0-3: marketsegment, registersegment, pdc
	QueryLimit       int     `json:"query_limit"`       // rows read by each query
	// QueryAfterRows: queries start once this many rows exist. -1 (the default) means the
	// variant's: 0 in the reference variant, whose queries start with the inserts, the scale's
	// preset in the corrected one (Validate sets it).
	QueryAfterRows  int64   `json:"query_after_rows"`
	ReportSeconds   float64 `json:"report_seconds"`
	CostPerHour     float64 `json:"cost_per_hour"` // machine price per hour; 0: no cost figure
	CharFields      int     `json:"char_fields"`   // padding columns charfield1..N
	CharLength      int     `json:"char_length"`   // bytes of each padding column
	CompressiblePct int     `json:"compressible_pct"`
	CashRegs        int     `json:"cashregisters"`
	Products        int     `json:"products"`
	Customers       int     `json:"customers"`
	// MaxPrice is the width of a price's random part: (rand x MaxPrice + customerid) / 100.
	MaxPrice int    `json:"max_price"`
	Seed     uint64 `json:"seed"`
	// Shard is the part of the threads this process runs (--shard I/N): insert thread c is
	// shard c % N's, query thread q shard (InsertThreads + q) % N's; the zero value is all. Not a
	// parameter of the workload: every shard of a run has the same parameters.
	Shard shard.Shard `json:"-"`
	// MemoryLimit is the preset's memory cap of each configuration in bytes (docs/memory.md);
	// 0: none.
	MemoryLimit int64 `json:"memory_limit_bytes"`
}

// Scale is a size preset (docs/iibench.md). QueryAfterRows applies in the corrected variant.
type Scale struct {
	Name           string
	MaxRows        int64
	QueryAfterRows int64
	// MemoryLimit caps each configuration's memory, in bytes; 0: no cap.
	MemoryLimit int64
}

// ioboundMemoryLimit is the iobound preset's cap: 512 MiB holds an engine's cache (a quarter
// to a half of the cap) and a server's base memory; the secondary indexes outgrow that cache
// within the first 20-40% of the preset's rows, whose data is over five times the cap by
// EstimateBytes (docs/iibench.md).
const ioboundMemoryLimit = 512 << 20

// scales are the presets: cached and iobound insert the same rows, without and with a cap.
var scales = []Scale{
	{"tiny", 50_000, 1_000, 0},
	{"small", 2_000_000, 10_000, 0},
	{"cached", 7_000_000, 100_000, 0},
	{"iobound", 7_000_000, 100_000, ioboundMemoryLimit},
	{"large", 500_000_000, 1_000_000, 0},
}

// Scales returns the size presets.
func Scales() []Scale { return slices.Clone(scales) }

// DefaultParams returns the parameters of a scale preset with every other option at its
// default, or an error for an unknown scale.
func DefaultParams(scale string) (Params, error) {
	s, err := workload.FindScale(scales, scaleName, scale, "iibench scale")
	if err != nil {
		return Params{}, err
	}
	return Params{
		Fidelity: workload.DefaultFidelity(), Scale: s.Name, MaxRows: s.MaxRows, InsertThreads: 1, QueryThreads: -1, InsertBatch: 1000,
		SecondaryIndexes: 3, QueryLimit: 1000, QueryAfterRows: -1, ReportSeconds: 10,
		CharLength: 1000, CompressiblePct: 90,
		CashRegs: 1000, Products: 10000, Customers: 100000, MaxPrice: 500, Seed: defaultSeed,
		MemoryLimit: s.MemoryLimit,
	}, nil
}

func scaleName(s Scale) string { return s.Name }

// defaultSeed is the seed of a run without --seed.
const defaultSeed = 1017

// maxPadBytes bounds the padding columns of a row: MariaDB refuses a table whose VARCHAR
// columns may hold more than 65,535 bytes, 4 bytes a character in utf8mb4, and the data column,
// VARCHAR(4000), takes 16,000 of them.
const maxPadBytes = 12_000

// maxRows bounds --max-rows, so that no count of rows, size or time derived from it overflows.
const maxRows = 1e15

// maxFloat bounds the float parameters (seconds, rates, cost), as the command line does: a
// billion seconds is 31 years, and time.Duration holds 292.
const maxFloat = 1e9

// minInsertRate is the smallest rate limit: a batch of 1000 rows every 11.6 days.
const minInsertRate = 0.001

// validateFloats refuses a float parameter that is NaN, infinite or above maxFloat: a step
// would never end, and run.json could not be written.
func (p *Params) validateFloats() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--seconds", p.Seconds}, {"--max-insert-rate", p.MaxInsertRate}, {"--report-seconds", p.ReportSeconds}, {"--cost-per-hour", p.CostPerHour}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v > maxFloat {
			return fmt.Errorf("%s must be a number of at most %g, got %g", f.name, maxFloat, f.v)
		}
	}
	return nil
}

// Validate checks every parameter, sets QueryThreads to one per index when it is -1 and
// QueryAfterRows to the variant's when it is -1.
func (p *Params) Validate() error {
	if err := p.Fidelity.Validate(); err != nil {
		return err
	}
	if err := workload.CheckPositive(
		workload.Int("--insert-threads", p.InsertThreads), workload.Int("--insert-batch", p.InsertBatch),
		workload.Int("--query-limit", p.QueryLimit),
		workload.Int("--cashregisters", p.CashRegs), workload.Int("--products", p.Products),
		workload.Int("--customers", p.Customers), workload.Int("--max-price", p.MaxPrice),
	); err != nil {
		return err
	}
	if err := p.validateFloats(); err != nil {
		return err
	}
	if err := p.validateRun(); err != nil {
		return err
	}
	if err := p.validateRow(); err != nil {
		return err
	}
	p.setDefaults()
	return p.validateShard()
}

// validateShard checks that each shard of a sharded run has an insert thread of its own: its
// query threads learn the run's row count from its own inserters' (runRows), and the table's
// creation and verification assume inserters in every shard.
func (p *Params) validateShard() error {
	if s := p.Shard; s.Sharded() && p.InsertThreads < s.Count {
		return fmt.Errorf("--shard %d/%d: --insert-threads %d: each of the %d shards needs an insert thread (insert thread c is shard c %% %d's)",
			s.Index, s.Count, p.InsertThreads, s.Count, s.Count)
	}
	return nil
}

// owns reports whether thread client (insert thread c is client c, query thread q client
// InsertThreads + q) is this shard's.
func (p *Params) owns(client int) bool { return p.Shard.Owns(client) }

// ownInserters returns how many insert threads this shard runs.
func (p *Params) ownInserters() int {
	n := 0
	for c := 0; c < p.InsertThreads; c++ {
		if p.owns(c) {
			n++
		}
	}
	return n
}

// validateRun checks how the run ends, its threads, batches, rate and reports.
func (p *Params) validateRun() error {
	switch {
	case p.MaxRows < 0:
		return fmt.Errorf("--max-rows must be >= 0 (0: no row limit), got %d", p.MaxRows)
	case p.MaxRows > maxRows:
		return fmt.Errorf("--max-rows must be at most %d (10^15), got %d", int64(maxRows), p.MaxRows)
	case p.Seconds < 0:
		return fmt.Errorf("--seconds must be >= 0 (0: no time limit), got %g", p.Seconds)
	case p.MaxRows == 0 && p.Seconds == 0:
		return fmt.Errorf("the run needs an end: set --max-rows or --seconds")
	case p.InsertThreads > 1024:
		return fmt.Errorf("--insert-threads must be at most 1024, got %d", p.InsertThreads)
	case p.QueryThreads < -1 || p.QueryThreads > 1024:
		return fmt.Errorf("--query-threads must be within 0..1024 (0: inserts only), got %d", p.QueryThreads)
	case p.InsertBatch > 100_000:
		return fmt.Errorf("--insert-batch must be at most 100000, got %d", p.InsertBatch)
	case p.MaxInsertRate < 0 || p.MaxInsertRate > 0 && p.MaxInsertRate < minInsertRate:
		return fmt.Errorf("--max-insert-rate must be 0 (no limit) or at least %g, got %g", minInsertRate, p.MaxInsertRate)
	case p.SecondaryIndexes < 0 || p.SecondaryIndexes > 3:
		return fmt.Errorf("--secondary-indexes must be within 0..3, got %d", p.SecondaryIndexes)
	case p.QueryAfterRows < -1:
		return fmt.Errorf("--query-after-rows must be >= 0, got %d", p.QueryAfterRows)
	case p.ReportSeconds < 1:
		return fmt.Errorf("--report-seconds must be at least 1, got %g", p.ReportSeconds)
	case p.CostPerHour < 0:
		return fmt.Errorf("--cost-per-hour must be >= 0, got %g", p.CostPerHour)
	}
	return nil
}

// validateRow checks the padding columns and how compressible they are.
func (p *Params) validateRow() error {
	switch {
	case p.CharFields < 0 || p.CharFields > 16:
		return fmt.Errorf("--char-fields must be within 0..16, got %d", p.CharFields)
	case p.CharLength < 1 || p.CharLength > 4000:
		return fmt.Errorf("--char-length must be within 1..4000, got %d", p.CharLength)
	case p.CharFields*p.CharLength > maxPadBytes:
		return fmt.Errorf("--char-fields x --char-length must be at most %d bytes a row (MariaDB's limit for the VARCHAR columns of a row), got %d",
			maxPadBytes, p.CharFields*p.CharLength)
	case p.CompressiblePct < 0 || p.CompressiblePct > 100:
		return fmt.Errorf("--compressible-pct must be within 0..100, got %d", p.CompressiblePct)
	}
	return nil
}

// setDefaults sets QueryThreads to one per index when it is -1 and QueryAfterRows to the
// variant's when it is -1: 0 in the reference variant, the scale's preset in the corrected one.
func (p *Params) setDefaults() {
	if p.QueryThreads == -1 {
		p.QueryThreads = 1 + p.SecondaryIndexes
	}
	if p.QueryAfterRows == -1 {
		p.QueryAfterRows = 0
		if s, err := workload.FindScale(scales, scaleName, p.Scale, "iibench scale"); err == nil && p.Corrected() {
			p.QueryAfterRows = s.QueryAfterRows
		}
	}
}

// ParamMap returns the parameters as a map for run.json.
func (p *Params) ParamMap() map[string]any {
	return map[string]any{
		"variant": string(p.Variant), "verify": string(p.Verify),
		"scale": p.Scale, "max_rows": p.MaxRows, "seconds": p.Seconds,
		"insert_threads": p.InsertThreads, "query_threads": p.QueryThreads,
		"insert_batch": p.InsertBatch, "max_insert_rate": p.MaxInsertRate,
		"secondary_indexes": p.SecondaryIndexes, "query_limit": p.QueryLimit,
		"query_after_rows": p.QueryAfterRows, "report_seconds": p.ReportSeconds,
		"cost_per_hour": p.CostPerHour, "char_fields": p.CharFields, "char_length": p.CharLength,
		"compressible_pct": p.CompressiblePct, "cashregisters": p.CashRegs, "products": p.Products,
		"customers": p.Customers, "max_price": p.MaxPrice, "seed": p.Seed,
		"memory_limit_bytes": p.MemoryLimit,
	}
}

// RowBytes is the logical size of one row: transactionid and dateandtime (8 bytes each), the
// three int columns and price (4 each), the data column and the padding columns. It is the
// denominator of write and space amplification.
func (p *Params) RowBytes() float64 {
	return 32 + dataLen + float64(p.CharFields*p.CharLength)
}

// Indexes returns the indexes the table has: the primary key and the first
// SecondaryIndexes of marketsegment, registersegment and pdc.
func (p *Params) Indexes() []int {
	idx := []int{idxPK}
	for i := 1; i <= p.SecondaryIndexes; i++ {
		idx = append(idx, i)
	}
	return idx
}

// Cost returns what a run of seconds that inserted rows costs at perHour a machine hour, and
// what inserting one billion rows at the run's average rate costs (ok false when nothing was
// inserted).
func Cost(perHour, seconds float64, rows int64) (run, perBillion float64, ok bool) {
	run = seconds / 3600 * perHour
	if rows <= 0 || seconds <= 0 {
		return run, 0, false
	}
	ips := float64(rows) / seconds
	return run, 1e9 / ips / 3600 * perHour, true
}
