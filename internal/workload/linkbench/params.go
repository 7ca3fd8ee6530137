package linkbench

import (
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/enginebench/enginebench/internal/shard"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/capacity"
	"github.com/enginebench/enginebench/internal/workload/linkbench/gen"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// Limits of the parameters that size counters and durations (enginebench's own: the reference
// has none), so that no sum or product of them overflows.
const (
	// maxLoadChunk bounds --load-chunk: the loaders' shared counter passes maxid1 by at most
	// loaders x load chunk.
	maxLoadChunk = 1 << 30
	// maxSeconds bounds every duration in seconds and --request-rate (the command's float
	// flags refuse larger values too).
	maxSeconds = 1e9
	// maxNLinks bounds the out-degree a distribution file may give one node (fb2017's largest
	// is 4,181,357): id1 + the out-degree stays far below 2^63.
	maxNLinks = 1 << 32
)

// Phases a run can select with --steps: load (always), then run (the warmup and the
// intervals run.1 ... run.N). The index step runs after load when the index is deferred.
var phaseNames = []string{"load", "run"}

// Params are every size and option of LinkBench.
type Params struct {
	// Fidelity is the variant and when the run verifies (docs/fidelity.md).
	workload.Fidelity
	Scale string `json:"scale"`
	// Profile names the workload figures: fb2011 (default) or fb2017.
	Profile string `json:"profile"`
	// DistributionFile, when set, replaces the profile's CDFs with a file in the reference's
	// format (Distribution.dat).
	DistributionFile string  `json:"distribution_file,omitempty"`
	StartID1         int64   `json:"startid1"`
	MaxID1           int64   `json:"maxid1"` // exclusive
	LinkTypes        int     `json:"link_types"`
	Loaders          int     `json:"loaders"`
	Requesters       int     `json:"requesters"`
	Intervals        int     `json:"intervals"`
	IntervalSeconds  float64 `json:"interval_seconds"`
	WarmupSeconds    float64 `json:"warmup_seconds"`
	// Requests is each requester's request limit over the whole run; 0: none.
	Requests int64 `json:"requests_per_requester"`
	// RequestRate is each requester's rate in requests a second (open loop, exponential
	// inter-arrival times); 0: as fast as possible.
	RequestRate float64 `json:"request_rate"`
	// Capacity is the capacity search run after the intervals (--capacity): levels of the
	// request mix at a request rate per requester that ramps (capacity.go).
	Capacity capacity.Params `json:"-"`
	// DeferIndex loads without id1_type and builds it in its own step, index.
	DeferIndex bool `json:"defer_index"`
	LoadChunk  int  `json:"load_chunk"` // id1s a loader takes at a time
	LoadBatch  int  `json:"load_batch"` // rows per insert statement or batch
	RangeLimit int  `json:"range_limit"`
	Expunge    bool `json:"expunge"` // DELETE_LINK deletes the row instead of hiding it (corrected variant)
	// Partitions hash-partitions linktable by id1 (MySQL: PARTITION BY KEY(id1) PARTITIONS n,
	// the reference README's DDL with 16; PostgreSQL: PARTITION BY HASH); 0: none.
	Partitions int      `json:"partitions"`
	Seed       uint64   `json:"seed"`
	Steps      []string `json:"steps"`
	// Shard is the part of the clients this process runs (--shard I/N): link loader i is shard
	// i % N's, the node loader (client Loaders) shard Loaders % N's, id1 chunk k (the id1s from
	// StartID1 + k x LoadChunk) shard k % N's, requester i shard i % N's; the zero value is all.
	// Not a parameter of the workload: every shard of a run has the same parameters.
	Shard shard.Shard `json:"-"`
	// MemoryLimit is the preset's memory cap of each configuration in bytes (docs/memory.md);
	// 0: none.
	MemoryLimit int64 `json:"memory_limit_bytes"`

	prof *profile.Profile // resolved by Validate
	// estBytes is the data size estimate of one configuration (EstimateBytes), set by Validate.
	estBytes int64
}

// Scale is a size preset (docs/linkbench.md).
type Scale struct {
	Name            string
	MaxID1          int64
	Loaders         int
	Requesters      int
	Intervals       int
	IntervalSeconds float64
	// MemoryLimit caps each configuration's memory, in bytes; 0: no cap.
	MemoryLimit int64
}

// ioboundMemoryLimit is the iobound preset's cap: 512 MiB holds an engine's cache (a quarter
// to a half of the cap) and a server's base memory with 16 requesters' connections; the
// preset's graph, the cached one's, is over 30 times it by EstimateBytes (docs/linkbench.md).
const ioboundMemoryLimit = 512 << 20

var scales = []Scale{
	{"tiny", 10_001, 1, 2, 2, 3, 0},
	{"small", 200_001, 2, 4, 3, 20, 0},
	{"cached", 10_000_001, 4, 16, 6, 600, 0},
	{"iobound", 10_000_001, 4, 16, 24, 90, ioboundMemoryLimit},
}

// Scales returns the size presets.
func Scales() []Scale { return slices.Clone(scales) }

func scaleName(s Scale) string { return s.Name }

// defaultSeed is the seed of a run without --seed.
const defaultSeed = 20121212

// DefaultParams returns the parameters of a scale preset with every other option at its
// default, or an error for an unknown scale.
func DefaultParams(scale string) (Params, error) {
	s, err := workload.FindScale(scales, scaleName, scale, "scale")
	if err != nil {
		return Params{}, err
	}
	return Params{
		Fidelity: workload.DefaultFidelity(), Scale: s.Name, Profile: "fb2011", StartID1: 1, MaxID1: s.MaxID1, Loaders: s.Loaders,
		Requesters: s.Requesters, Intervals: s.Intervals, IntervalSeconds: s.IntervalSeconds,
		LoadChunk: 2048, LoadBatch: 1024, RangeLimit: 10000, Seed: defaultSeed,
		Steps: slices.Clone(phaseNames), MemoryLimit: s.MemoryLimit,
	}, nil
}

// Validate checks every parameter, resolves the profile (reading --distribution-file) and puts
// Steps into the benchmark's order.
func (p *Params) Validate() error {
	if err := p.Fidelity.Validate(); err != nil {
		return err
	}
	prof, err := p.resolveProfile()
	if err != nil {
		return err
	}
	if err := workload.CheckPositive(
		workload.Int("--startid1", p.StartID1), workload.Int("--loaders", p.Loaders),
		workload.Int("--requesters", p.Requesters), workload.Int("--intervals", p.Intervals),
		workload.Int("--load-chunk", p.LoadChunk), workload.Int("--load-batch", p.LoadBatch),
		workload.Int("--range-limit", p.RangeLimit), workload.Int("--link-types", p.LinkTypes),
	); err != nil {
		return err
	}
	if err := p.validateLimits(); err != nil {
		return err
	}
	if err := p.validateFloats(); err != nil {
		return err
	}
	if p.Requests < 0 {
		return fmt.Errorf("--requests must be >= 0, got %d", p.Requests)
	}
	if p.Steps, err = workload.OrderSteps(p.Steps, phaseNames, "load", "linkbench steps"); err != nil {
		return err
	}
	if err := p.estimate(prof); err != nil {
		return err
	}
	p.prof = prof
	if err := p.validateCapacity(); err != nil {
		return err
	}
	return p.validateShard()
}

// validateShard checks that each shard of a sharded run has a link loader and, with the
// request steps, a requester of its own (a shard's chunks are loaded by its own loaders), and
// that the run builds no deferred index (one long statement only shard 0 could run).
func (p *Params) validateShard() error {
	s := p.Shard
	switch {
	case !s.Sharded():
		return nil
	case p.Loaders < s.Count:
		return fmt.Errorf("--shard %d/%d: --loaders %d: each of the %d shards needs a link loader (loader i and id1 chunk k are shard i %% %d's and k %% %[4]d's)",
			s.Index, s.Count, p.Loaders, s.Count, s.Count)
	case slices.Contains(p.Steps, "run") && p.Requesters < s.Count:
		return fmt.Errorf("--shard %d/%d: --requesters %d: each of the %d shards needs a requester (requester i is shard i %% %d's)",
			s.Index, s.Count, p.Requesters, s.Count, s.Count)
	case p.DeferIndex:
		return fmt.Errorf("--shard %d/%d: --defer-index cannot be sharded: the index step is one statement on the shared tables", s.Index, s.Count)
	}
	return nil
}

// resolveProfile looks up the profile, replaces its distributions with --distribution-file's,
// sets LinkTypes to the profile's when it is 0 and validates the result.
func (p *Params) resolveProfile() (*profile.Profile, error) {
	prof, err := profile.Lookup(p.Profile)
	if err != nil {
		return nil, fmt.Errorf("--profile: %w", err)
	}
	if p.DistributionFile != "" {
		if prof.Dist, err = readDistributions(p.DistributionFile); err != nil {
			return nil, fmt.Errorf("--distribution-file: %w", err)
		}
	}
	if p.LinkTypes == 0 {
		p.LinkTypes = prof.LinkTypes
	}
	prof.LinkTypes = p.LinkTypes
	if err := prof.Validate(); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Profile, err)
	}
	return prof, nil
}

// readDistributions reads a distribution file in the reference's format.
func readDistributions(path string) (*profile.Distributions, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.ParseDistributions(f, path)
}

// validateLimits checks the id range and the upper bounds of the counts and sizes.
func (p *Params) validateLimits() error {
	switch {
	case p.MaxID1 <= p.StartID1:
		return fmt.Errorf("--maxid1 must be > --startid1 (%d), got %d", p.StartID1, p.MaxID1)
	case p.MaxID1 > 1<<40:
		return fmt.Errorf("--maxid1 must be at most %d, got %d", int64(1)<<40, p.MaxID1)
	case p.Loaders > 1024 || p.Requesters > 4096:
		return fmt.Errorf("at most 1024 loaders and 4096 requesters, got %d and %d", p.Loaders, p.Requesters)
	case p.LinkTypes > 1000:
		return fmt.Errorf("--link-types must be at most 1000, got %d", p.LinkTypes)
	case p.LoadBatch > 10000:
		return fmt.Errorf("--load-batch must be at most 10000, got %d", p.LoadBatch)
	case p.LoadChunk > maxLoadChunk:
		return fmt.Errorf("--load-chunk must be at most %d, got %d", maxLoadChunk, p.LoadChunk)
	case p.Partitions < 0 || p.Partitions > store.MaxPartitions:
		return fmt.Errorf("--partitions must be 0 (none) to %d, got %d", store.MaxPartitions, p.Partitions)
	case p.Expunge && !p.Corrected():
		return fmt.Errorf("--expunge: the reference never expunges a link (it hides it); use it with --variant corrected")
	}
	return nil
}

// validateFloats checks the durations and the rate: numbers, and at most maxSeconds.
func (p *Params) validateFloats() error {
	for _, f := range []struct {
		name string
		v    float64
		zero bool // 0 is allowed
	}{
		{"--interval-seconds", p.IntervalSeconds, false}, {"--warmup-seconds", p.WarmupSeconds, true},
		{"--request-rate", p.RequestRate, true},
	} {
		ok := f.v > 0 || f.zero && f.v == 0 // false for NaN
		if !ok || f.v > maxSeconds {
			low := "> 0"
			if f.zero {
				low = ">= 0"
			}
			return fmt.Errorf("%s must be %s and at most %g, got %g", f.name, low, float64(maxSeconds), f.v)
		}
	}
	return nil
}

// estimate checks that the load's size fits the arithmetic (every count and byte size within
// int64) and sets estBytes: the links EstimateLoaded expects and the nodes, each row twice its
// logical size (pages are not full; the id1_type index repeats every link).
func (p *Params) estimate(prof *profile.Profile) error {
	nl := prof.Dist.NLinks
	if top := nl.Values[len(nl.Values)-1]; top > maxNLinks {
		return fmt.Errorf("the nlinks distribution gives a node %d links: at most %d", top, int64(maxNLinks))
	}
	links := gen.NewOutDegree(nl, p.StartID1, p.MaxID1, p.LinkTypes, variant(p)).EstimateLoaded()
	mean := func(median float64, most int) int64 {
		return int64(min(median*math.Exp(prof.DataSigma*prof.DataSigma/2), float64(most)))
	}
	perLink := 2*(linkFixedBytes+mean(prof.LinkDataMedian, store.MaxLinkData)) + countFixedBytes
	perNode := nodeFixedBytes + mean(prof.NodeDataMedian, store.MaxNodeData)
	l, okL := mulInt64(links, 2*perLink)
	n, okN := mulInt64(p.Nodes(), 2*perNode)
	if !okL || !okN || l > math.MaxInt64-n {
		about := fmt.Sprintf("about %.3g", float64(links))
		if links == math.MaxInt64 {
			about = "more than 2^63"
		}
		return fmt.Errorf("--maxid1 %d: the load would write %s links, too many to size in bytes (int64)", p.MaxID1, about)
	}
	p.estBytes = l + n
	return nil
}

// mulInt64 returns a*b for a, b >= 0, and false when it overflows int64.
func mulInt64(a, b int64) (int64, bool) {
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// Nodes is the number of nodes (and id1s) the load creates.
func (p *Params) Nodes() int64 { return p.MaxID1 - p.StartID1 }

// ParamMap returns the parameters as a map for run.json.
func (p *Params) ParamMap() map[string]any {
	m := map[string]any{
		"variant": string(p.Variant), "verify": string(p.Verify),
		"scale": p.Scale, "profile": p.Profile, "startid1": p.StartID1, "maxid1": p.MaxID1,
		"link_types": p.LinkTypes, "loaders": p.Loaders, "requesters": p.Requesters,
		"intervals": p.Intervals, "interval_seconds": p.IntervalSeconds,
		"warmup_seconds": p.WarmupSeconds, "requests_per_requester": p.Requests,
		"request_rate": p.RequestRate, "defer_index": p.DeferIndex, "load_chunk": p.LoadChunk,
		"load_batch": p.LoadBatch, "range_limit": p.RangeLimit, "expunge": p.Expunge, "partitions": p.Partitions,
		"seed": p.Seed, "steps": p.Steps, "memory_limit_bytes": p.MemoryLimit,
	}
	if p.DistributionFile != "" {
		m["distribution_file"] = p.DistributionFile
	}
	if p.Capacity.On {
		m["capacity"] = p.Capacity
	}
	if p.prof != nil {
		m["profile_source"] = p.prof.Source
		mix := map[string]float64{}
		for op := profile.Op(0); op < profile.Op(profile.NumOps); op++ {
			mix[op.String()] = p.prof.Mix[op]
		}
		m["op_mix_pct"] = mix
	}
	return m
}
