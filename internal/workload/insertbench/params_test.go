package insertbench

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

func TestDefaultParamsScales(t *testing.T) {
	for _, s := range Scales() {
		p, err := DefaultParams(s.Name)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: preset does not validate: %v", s.Name, err)
		}
		if p.Rows != s.Rows || p.Clients != s.Clients {
			t.Errorf("%s: rows %d clients %d, want %d %d", s.Name, p.Rows, p.Clients, s.Rows, s.Clients)
		}
	}
	if _, err := DefaultParams("huge"); err == nil || !strings.Contains(err.Error(), "tiny") {
		t.Errorf("unknown scale: err %v, want one listing the known scales", err)
	}
}

func TestValidateRejectsBadValues(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"zero clients", func(p *Params) { p.Clients = 0 }, "--clients"},
		{"negative rows", func(p *Params) { p.Rows = -5 }, "--rows"},
		{"data range", func(p *Params) { p.DataMin, p.DataMax = 30, 20 }, "--data-min"},
		{"pct", func(p *Params) { p.DataRandPct = 101 }, "--data-random-pct"},
		{"query seconds", func(p *Params) { p.QuerySeconds = 0 }, "--query-seconds"},
		{"unknown step", func(p *Params) { p.Steps = []string{"l.i0", "l.i9"} }, `unknown step "l.i9"`},
		{"duplicate step", func(p *Params) { p.Steps = []string{"l.i0", "l.i0"} }, "twice"},
		{"no load", func(p *Params) { p.Steps = []string{"qr100"} }, "must include l.i0"},
		{"empty steps", func(p *Params) { p.Steps = nil }, "empty"},
		{"range queries without indexes", func(p *Params) { p.Steps = []string{"l.i0", "qr500"} }, "include l.x"},
		{"batch", func(p *Params) { p.BatchI1 = 0 }, "--batch-l.i1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
			c.mod(&p)
			err := p.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestDefaultStepsAreTheReferences checks the default step list: cl.repro.sh's steps with
// the cleanup between l.i2 and qr100, and no scan, which stays available by name.
func TestDefaultStepsAreTheReferences(t *testing.T) {
	want := []string{"l.i0", "l.x", "l.i1", "l.i2", "cleanup", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"}
	for _, s := range Scales() {
		p, _ := DefaultParams(s.Name)
		if !slices.Equal(p.Steps, want) {
			t.Errorf("%s: steps %v, want %v", s.Name, p.Steps, want)
		}
	}
	p, _ := DefaultParams("tiny")
	p.Steps = []string{"l.i0", "l.x", "scan"}
	if err := p.Validate(); err != nil || !slices.Contains(StepNames(), "scan") {
		t.Errorf("scan by name: %v", err)
	}
}

// TestQueryStepSizes checks the query steps' sizes against the reference: rate x nsecs rows
// per client (cl.repro.sh:172), in batches of min(50, rate) (iibench.py:257-258), written in
// whole batches (iibench.py:1425), and the published step length of the cached preset
// (cl.repro.sh:11, run_ibench.sh:94: 180000 rows at 100/s).
func TestQueryStepSizes(t *testing.T) {
	p, _ := DefaultParams("cached")
	if p.QuerySeconds != 1800 {
		t.Errorf("cached: query steps of %v s, want 1800", p.QuerySeconds)
	}
	if got := p.queryStepRows(100); got != 180000 {
		t.Errorf("cached qr100 writes %d rows per client, want 180000", got)
	}
	p.QuerySeconds = 0.29
	if got := p.queryStepRows(100); got != 29 {
		t.Errorf("0.29 s at 100/s: %d rows, want 29", got)
	}
	p.BatchQ = 200
	if got := p.queryBatch(100); got != 100 {
		t.Errorf("batch of 200 at 100/s: %d, want the rate, 100", got)
	}
	for _, c := range []struct {
		rows  int64
		batch int
		want  int64
	}{{100, 50, 2}, {101, 50, 3}, {29, 50, 1}, {1000, 7, 143}, {0, 5, 0}} {
		if got := rounds(c.rows, c.batch); got != c.want {
			t.Errorf("rounds(%d, %d) = %d, want %d", c.rows, c.batch, got, c.want)
		}
	}
}

func TestValidateOrdersSteps(t *testing.T) {
	p, _ := DefaultParams("tiny")
	p.Steps = []string{"qp100", "l.x", "l.i0"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"l.i0", "l.x", "qp100"}; !slices.Equal(p.Steps, want) {
		t.Errorf("steps %v, want %v", p.Steps, want)
	}
}

func TestShareSplitsExactly(t *testing.T) {
	for _, total := range []int64{0, 1, 7, 100, 20001} {
		for n := 1; n <= 5; n++ {
			var sum int64
			for c := 0; c < n; c++ {
				sum += share(total, n, c)
			}
			if sum != total {
				t.Errorf("share(%d, %d) sums to %d", total, n, sum)
			}
		}
	}
}

// batchBytes serializes a batch so two batches can be compared.
func batchBytes(rows []Row) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		b.WriteString(strings.Join([]string{
			string(rune(r.CashRegisterID)), string(rune(r.CustomerID)), string(rune(r.ProductID)),
			string(rune(r.Price))}, ","))
		b.Write(r.Data)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestGenReproducibleFromSeed(t *testing.T) {
	p, _ := DefaultParams("tiny")
	a := NewGen(&p, p.Seed, streamOf("l.i0", 0, 0))
	b := NewGen(&p, p.Seed, streamOf("l.i0", 0, 0))
	other := NewGen(&p, p.Seed, streamOf("l.i0", 1, 0))
	for i := 0; i < 50; i++ {
		ba, bb := batchBytes(a.Batch(100, 1)), batchBytes(b.Batch(100, 1))
		if !bytes.Equal(ba, bb) {
			t.Fatalf("batch %d differs between two generators with one seed and stream", i)
		}
		if bytes.Equal(ba, batchBytes(other.Batch(100, 1))) {
			t.Fatalf("batch %d equal for two clients' streams", i)
		}
	}
}

func TestGenBatchAllocatesNothingWhenWarm(t *testing.T) {
	p, _ := DefaultParams("tiny")
	g := NewGen(&p, 1, 1)
	g.Batch(100, 1)
	if n := testing.AllocsPerRun(100, func() { g.Batch(100, 1) }); n != 0 {
		t.Errorf("Batch allocates %.1f times per call", n)
	}
}

// TestHugeSizesRefused checks that sizes whose data cannot fit are refused with a clear error,
// and that the estimate and the cleanup wait saturate instead of overflowing (--rows
// 9223372036854775807 made the estimate negative).
func TestHugeSizesRefused(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Params)
		want string
	}{
		{func(p *Params) { p.Rows = math.MaxInt64 }, "--rows 9223372036854775807, --rows-l.i1 16000000 and --rows-l.i2 4000000 on 4 tables need more than 64 PiB of data"},
		{func(p *Params) { p.RowsI1 = math.MaxInt64 / 2; p.RowsI2 = math.MaxInt64 / 2 }, "need more than 64 PiB"},
		{func(p *Params) { p.Rows, p.Clients = 1<<50, 1024 }, "on 1024 tables need more than 64 PiB"},
		{func(p *Params) { p.BatchI0 = 2_000_000 }, "--batch-l.i0 must be at most 1000000, got 2000000"},
	} {
		p, _ := DefaultParams("cached")
		c.mod(&p)
		if est := p.EstimateBytes(); est <= 0 {
			t.Errorf("EstimateBytes() = %d, want it saturated, never negative", est)
		}
		if w := p.DefaultCleanupWait(); w < 60 || w > 1200 {
			t.Errorf("DefaultCleanupWait() = %v, want within [60, 1200]", w)
		}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate() = %v, want %q", err, c.want)
		}
	}
	if p, _ := DefaultParams("iobound"); p.Validate() != nil || p.EstimateBytes() != 4*(5_000_000+1_000_000+250_000)*140 {
		t.Errorf("iobound: %v, estimate %d", p.Validate(), p.EstimateBytes())
	}
	if n := rounds(math.MaxInt64, 100); n != math.MaxInt64/100+1 {
		t.Errorf("rounds(MaxInt64, 100) = %d", n)
	}
}

// TestPresetMemoryLimits: the iobound preset's cap is at least 256 MiB and at most a fifth of
// its data; the other presets set none (workloadtest.CheckPresetCaps).
func TestPresetMemoryLimits(t *testing.T) {
	workloadtest.CheckPresetCaps(t, Scales(), scaleName, DefaultParams, New)
}
