package insertbench

import (
	"bytes"
	"slices"
	"strings"
	"testing"
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

func TestGenValuesWithinDomains(t *testing.T) {
	p, _ := DefaultParams("tiny")
	g := NewGen(&p, 1, 1)
	var randChars, total int
	for i := 0; i < 100; i++ {
		for _, r := range g.Batch(100, 42) {
			if r.CashRegisterID < 0 || r.CashRegisterID >= int64(p.CashRegs) ||
				r.CustomerID < 0 || r.CustomerID >= int64(p.Customers) ||
				r.ProductID < 0 || r.ProductID >= int64(p.Products) ||
				r.Price < 0 || r.Price >= int64(p.MaxPrice) || r.DateAndTime != 42 {
				t.Fatalf("row out of its domains: %+v", r)
			}
			if len(r.Data) < p.DataMin || len(r.Data) > p.DataMax {
				t.Fatalf("data length %d outside [%d, %d]", len(r.Data), p.DataMin, p.DataMax)
			}
			total += len(r.Data)
			randChars += len(bytes.TrimLeft(r.Data, "a"))
		}
	}
	// The random share should be close to DataRandPct (leading random 'a's are rare).
	if pct := 100 * float64(randChars) / float64(total); pct < float64(p.DataRandPct)-6 || pct > float64(p.DataRandPct)+2 {
		t.Errorf("random share %.1f%%, want about %d%%", pct, p.DataRandPct)
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
