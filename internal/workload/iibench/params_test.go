package iibench

import (
	"bytes"
	"compress/zlib"
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

func TestScalesAndValidate(t *testing.T) {
	for _, s := range Scales() {
		p, err := DefaultParams(s.Name)
		if err != nil || p.Validate() != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if p.QueryThreads != 4 || p.InsertThreads != 1 || p.InsertBatch != 1000 || p.QueryLimit != 1000 {
			t.Errorf("%s: defaults %+v", s.Name, p)
		}
	}
	if p, _ := DefaultParams("large"); p.MaxRows != 500_000_000 {
		t.Errorf("large: %d rows", p.MaxRows)
	}
	if _, err := DefaultParams("huge"); err == nil || !strings.Contains(err.Error(), "tiny, small, cached, iobound, large") {
		t.Errorf("unknown scale: %v", err)
	}
	// Queries start at once in the reference variant, after the scale's rows in the corrected.
	for v, want := range map[workload.Variant]int64{workload.Reference: 0, workload.Corrected: 10_000} {
		p, _ := DefaultParams("small")
		p.Variant = v
		if err := p.Validate(); err != nil || p.QueryAfterRows != want {
			t.Errorf("%s: queries after %d rows (%v), want %d", v, p.QueryAfterRows, err, want)
		}
	}
	p, _ := DefaultParams("tiny")
	p.SecondaryIndexes = 1
	if err := p.Validate(); err != nil || p.QueryThreads != 2 || len(p.Indexes()) != 2 {
		t.Errorf("one secondary index: %v, %d query threads, indexes %v", err, p.QueryThreads, p.Indexes())
	}
	bad := []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.MaxRows, p.Seconds = 0, 0 }, "needs an end"},
		{func(p *Params) { p.SecondaryIndexes = 4 }, "--secondary-indexes"},
		{func(p *Params) { p.InsertBatch = 0 }, "--insert-batch"},
		{func(p *Params) { p.MaxInsertRate = -1 }, "--max-insert-rate"},
		{func(p *Params) { p.CompressiblePct = 101 }, "--compressible-pct"},
		{func(p *Params) { p.ReportSeconds = 0.5 }, "--report-seconds"},
		{func(p *Params) { p.CostPerHour = -2 }, "--cost-per-hour"},
		{func(p *Params) { p.QueryThreads = -2 }, "--query-threads"},
		{func(p *Params) { p.QueryAfterRows = -2 }, "--query-after-rows"},
		{func(p *Params) { p.CharFields, p.CharLength = 4, 3001 }, "at most 12000 bytes a row"},
		{func(p *Params) { p.MaxRows = math.MaxInt64 }, "--max-rows must be at most 1000000000000000 (10^15), got 9223372036854775807"},
		{func(p *Params) { p.Seconds = math.NaN() }, "--seconds must be a number of at most 1e+09, got NaN"},
		{func(p *Params) { p.Seconds = 1e300 }, "--seconds must be a number"},
		{func(p *Params) { p.MaxInsertRate = math.Inf(1) }, "--max-insert-rate must be a number of at most 1e+09, got +Inf"},
		{func(p *Params) { p.MaxInsertRate = 1e-4 }, "--max-insert-rate must be 0 (no limit) or at least 0.001"},
		{func(p *Params) { p.ReportSeconds = math.Inf(1) }, "--report-seconds must be a number"},
		{func(p *Params) { p.CostPerHour = math.NaN() }, "--cost-per-hour must be a number"},
	}
	for _, b := range bad {
		p, _ := DefaultParams("tiny")
		b.set(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("want an error naming %s, got %v", b.want, err)
		}
	}
}

// TestEstimateBytes checks the size estimate: every row's bytes and index entries, twice, for a
// row limit (whole batches in the reference variant) or 100,000 rows a second of a time limit;
// the largest accepted parameters saturate at math.MaxInt64 instead of overflowing.
func TestEstimateBytes(t *testing.T) {
	for _, c := range []struct {
		set  func(p *Params)
		want int64
	}{
		// 50,000 rows of 32 + 10 bytes, with a 40-byte primary key entry and 3 index entries.
		{func(*Params) {}, 50_000 * (42 + 40 + 3*40) * 2},
		{func(p *Params) { p.MaxRows = 1500 }, 2000 * 202 * 2}, // two whole batches
		{func(p *Params) { p.MaxRows, p.Seconds = 0, 60 }, 6_000_000 * 202 * 2},
		{func(p *Params) { p.MaxRows, p.CharFields, p.CharLength = 1e15, 16, 750 }, math.MaxInt64},
		{func(p *Params) { p.MaxRows, p.Seconds, p.CharFields, p.CharLength = 0, 1e9, 16, 750 }, 1e14 * (12_042 + 160) * 2},
	} {
		p, _ := DefaultParams("tiny")
		c.set(&p)
		w := mustNew(t, p)
		if got := w.EstimateBytes(); got != c.want {
			t.Errorf("%+v: %d bytes, want %d", p, got, c.want)
		}
	}
}

// The published comparison: a c3.8xlarge at $1.68 an hour; InnoDB's $40.60 per billion
// inserts is 11,494 inserts a second, WiredTiger's $20.30 twice that.
func TestCost(t *testing.T) {
	run, per, ok := Cost(1.68, 7200, 7200*11_494)
	if !ok || math.Abs(run-3.36) > 1e-9 || math.Abs(per-40.60) > 0.005 {
		t.Errorf("InnoDB: run $%.4f, per billion $%.4f (%v)", run, per, ok)
	}
	if _, per, _ := Cost(1.68, 3600, 3600*22_988); math.Abs(per-20.30) > 0.005 {
		t.Errorf("WiredTiger: per billion $%.4f", per)
	}
	if run, _, ok := Cost(2, 1800, 0); ok || run != 1 {
		t.Errorf("nothing inserted: run $%v, ok %v", run, ok)
	}
}

// Padding columns are random letters then CompressiblePct percent of 'a', so the fraction
// decides how well they compress.
func TestPaddingCompressibility(t *testing.T) {
	ratio := func(pct int) float64 {
		p, _ := DefaultParams("tiny")
		p.CharFields, p.CharLength, p.CompressiblePct = 2, 500, pct
		rows := NewGen(&p, 1, 1).Batch(200, 0)
		var raw []byte
		for _, r := range rows {
			if len(r.Pad) != 1000 {
				t.Fatalf("pad of %d bytes", len(r.Pad))
			}
			raw = append(raw, r.Pad...)
		}
		if i := strings.IndexFunc(string(raw), func(r rune) bool { return r < 'a' || r > 'z' }); i >= 0 {
			t.Fatalf("pad byte %q is not a lowercase letter", raw[i])
		}
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(raw)
		w.Close()
		return float64(z.Len()) / float64(len(raw))
	}
	r90, r0 := ratio(90), ratio(0)
	// Random letters carry log2(26) = 4.7 bits each: 0% compressible zips to about 60%, 90%
	// compressible to about a tenth of that.
	if r0 < 0.55 || r90 > 0.12 || r90 < 0.04 {
		t.Errorf("zlib ratio: %.3f at 0%% compressible, %.3f at 90%%", r0, r90)
	}
}

// clockedDB records the time of every committed batch on its clock; with a manual clock, each
// commit then moves it on by service, the engine's service time.
type clockedDB struct {
	kv.DB
	clock   runner.Clock
	manual  *runner.ManualClock
	service time.Duration
	mu      sync.Mutex
	at      []time.Time
}

// Discards says that the null engine beneath stores nothing, so verification is skipped.
func (d *clockedDB) Discards() bool { return true }

func (d *clockedDB) NewBatch() kv.Batch { return &clockedBatch{Batch: d.DB.NewBatch(), db: d} }

type clockedBatch struct {
	kv.Batch
	db *clockedDB
}

func (b *clockedBatch) Commit() error {
	b.db.mu.Lock()
	b.db.at = append(b.db.at, b.db.clock.Now())
	if b.db.manual != nil {
		b.db.manual.Advance(b.db.service)
	}
	b.db.mu.Unlock()
	return b.Batch.Commit()
}

// TestMaxInsertRateIsSpreadEvenly runs inserts under --max-insert-rate with one insert thread on a
// manual clock, and checks that no 100 ms window holds more than 1.5 times its share of the rate
// and that the rate is reached exactly. TestPacedThreadsAreEvenlySpaced checks that several
// threads' batches interleave evenly.
func TestMaxInsertRateIsSpreadEvenly(t *testing.T) {
	ctx := context.Background()
	clock := runner.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	start := clock.Now()
	db := &clockedDB{DB: openNull(t), clock: clock}
	p, _ := DefaultParams("tiny")
	p.MaxRows, p.InsertBatch, p.MaxInsertRate = 20_000, 100, 10_000
	p.SecondaryIndexes, p.QueryThreads = 0, 1
	w := mustNew(t, p)
	st, err := runOn(t, ctx, w, db, &runner.Runner{Clock: clock})
	if err != nil || st.Status != result.StatusOK {
		t.Fatalf("%v %s", err, st.Error)
	}
	at := db.at
	if len(at) != int(p.MaxRows)/p.InsertBatch {
		t.Fatalf("%d batches, want %d", len(at), int(p.MaxRows)/p.InsertBatch)
	}
	const window = 100 * time.Millisecond
	share := p.MaxInsertRate * window.Seconds() // rows
	worst := 0.0
	for i := range at {
		rows := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < window; j++ {
			rows += p.InsertBatch
		}
		worst = max(worst, float64(rows)/share)
	}
	if worst > 1.5 {
		t.Errorf("a 100 ms window holds %.2f times its share", worst)
	}
	// The last of 200 batches 10 ms apart starts 1.99 s after the first.
	if secs := at[len(at)-1].Sub(start).Seconds(); math.Abs(secs-1.99) > 1e-9 {
		t.Errorf("20,000 rows at 10,000 a second took %.3fs", secs)
	}
}

// TestPresetMemoryLimits: the iobound preset's cap is at least 256 MiB and at most a fifth of
// its data; the other presets set none (workloadtest.CheckPresetCaps).
func TestPresetMemoryLimits(t *testing.T) {
	workloadtest.CheckPresetCaps(t, Scales(), scaleName, DefaultParams, New)
}
