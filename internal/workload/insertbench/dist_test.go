package insertbench

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// The distribution tests draw many values from the generator with a fixed seed and hold
// each against bounds derived from the parameters: every value within its domain, every value
// of a small domain drawn, and each bucket's count within 5 standard deviations of its
// binomial expectation (a uniform draw is outside with a chance below 1e-6 per bucket; with a
// fixed seed the test is deterministic).

// checkUniform checks that counts (one per bucket of equal width) of n draws are uniform.
func checkUniform(t *testing.T, what string, counts []int, n int) {
	t.Helper()
	p := 1 / float64(len(counts))
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	for i, c := range counts {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("%s: bucket %d of %d holds %d draws, want %.0f +- %.0f", what, i, len(counts), c, mean, 5*sd)
		}
	}
}

// domainCheck collects the draws of a column with domain [0, n).
type domainCheck struct {
	name    string
	n       int64
	buckets []int
	seen    map[int64]bool // every value, for small domains
}

func newDomainCheck(name string, n int64) *domainCheck {
	d := &domainCheck{name: name, n: n, buckets: make([]int, 20)}
	if n <= 1000 {
		d.seen = map[int64]bool{}
	}
	return d
}

func (d *domainCheck) add(t *testing.T, v int64) {
	if v < 0 || v >= d.n {
		t.Fatalf("%s = %d, outside [0, %d)", d.name, v, d.n)
	}
	d.buckets[v*int64(len(d.buckets))/d.n]++
	if d.seen != nil {
		d.seen[v] = true
	}
}

func (d *domainCheck) check(t *testing.T, draws int) {
	t.Helper()
	checkUniform(t, d.name, d.buckets, draws)
	if d.seen != nil && int64(len(d.seen)) != d.n {
		t.Errorf("%s: %d of its %d values drawn", d.name, len(d.seen), d.n)
	}
}

// TestValueDomainsUniform checks that cashregisterid, productid, customerid and price are
// uniform in [0, n) of their parameters, as the reference's random.randrange(0, n)
// (iibench.py:534-537), and that dateandtime is the batch's time.
func TestValueDomainsUniform(t *testing.T) {
	p, _ := DefaultParams("tiny")
	g := NewGen(&p, p.Seed, streamOf("l.i0", 0, 0))
	cols := []*domainCheck{newDomainCheck("cashregisterid", int64(p.CashRegs)), newDomainCheck("productid", int64(p.Products)),
		newDomainCheck("customerid", int64(p.Customers)), newDomainCheck("price", int64(p.MaxPrice))}
	const batches, batch = 2000, 100
	for i := 0; i < batches; i++ {
		for _, r := range g.Batch(batch, int64(1700000000+i)) {
			for j, v := range []int64{r.CashRegisterID, r.ProductID, r.CustomerID, r.Price} {
				cols[j].add(t, v)
			}
			if r.DateAndTime != int64(1700000000+i) {
				t.Fatalf("dateandtime %d in batch %d", r.DateAndTime, i)
			}
		}
	}
	for _, c := range cols {
		c.check(t, batches*batch)
	}
}

// TestDataColumnAsTheReference checks the data column against the reference's generator
// (iibench.py:538-545): a length uniform in [data_length_min, data_length_max], of which
// int(length x 0.75 x data_random_pct/100) characters are random base64 characters after a
// pad of 'a', for the default 50% and other shares and lengths.
func TestDataColumnAsTheReference(t *testing.T) {
	// int(n * 0.75 * 0.5) for n = 10..20, computed by hand from iibench.py:540.
	want50 := map[int]int{10: 3, 11: 4, 12: 4, 13: 4, 14: 5, 15: 5, 16: 6, 17: 6, 18: 6, 19: 7, 20: 7}
	for n, k := range want50 {
		if got := randomChars(n, 50); got != k {
			t.Errorf("randomChars(%d, 50) = %d, want %d", n, got, k)
		}
	}
	for _, c := range []struct{ min, max, pct int }{{10, 20, 50}, {100, 200, 10}, {0, 40, 100}, {30, 30, 0}} {
		t.Run(fmt.Sprintf("len%d-%d,random%d%%", c.min, c.max, c.pct),
			func(t *testing.T) { checkData(t, c.min, c.max, c.pct) })
	}
}

// checkData generates rows with data lengths [min, max] and a random share of pct and checks
// every value and the distributions of lengths and random characters.
func checkData(t *testing.T, min, max, pct int) {
	p, _ := DefaultParams("tiny")
	p.DataMin, p.DataMax, p.DataRandPct = min, max, pct
	g := NewGen(&p, p.Seed, streamOf("l.i1", 1, 0))
	lengths := make([]int, max-min+1)
	chars := make([]int, len(dataAlphabet))
	var nchars int
	const draws = 100_000
	for i := 0; i < draws/100; i++ {
		for _, r := range g.Batch(100, 1) {
			n := len(r.Data)
			if n < min || n > max {
				t.Fatalf("data length %d outside [%d, %d]", n, min, max)
			}
			lengths[n-min]++
			k := int(float64(n) * 0.75 * (float64(pct) / 100)) // iibench.py:540
			if pad := r.Data[:n-k]; !bytes.Equal(pad, bytes.Repeat([]byte("a"), n-k)) {
				t.Fatalf("data %q: want %d characters of 'a' before %d random ones", r.Data, n-k, k)
			}
			for _, ch := range r.Data[n-k:] {
				i := strings.IndexByte(dataAlphabet, ch)
				if i < 0 {
					t.Fatalf("data %q: %q is not a base64 character", r.Data, ch)
				}
				chars[i]++
				nchars++
			}
		}
	}
	checkUniform(t, "data length", lengths, draws)
	if nchars > 0 {
		checkUniform(t, "random data characters", chars, nchars)
	}
}

// TestQueryDrawsUniform checks the query clients' draws: the range query's index uniform over
// the three secondary indexes and its start uniform in the domain of the index's first
// column (iibench.py:1010, :615, :672, :729); the point query's ids uniform in [lo, hi), as
// random.randrange(min_id, max_id) (iibench.py:777).
func TestQueryDrawsUniform(t *testing.T) {
	p, _ := DefaultParams("tiny")
	r := &run{p: &p}
	rng := NewGen(&p, p.Seed, streamOf("qr100", 0, 2)).Rand()
	idxs := make([]int, numIndexes-1)
	starts := [numIndexes]*domainCheck{nil, newDomainCheck("marketsegment start", int64(p.Products)),
		newDomainCheck("registersegment start", int64(p.CashRegs)), newDomainCheck("pdc start", int64(p.MaxPrice))}
	const draws = 300_000
	for i := 0; i < draws; i++ {
		idx, start := r.rangeStart(rng)
		idxs[idx-idxMarket]++
		starts[idx].add(t, start)
	}
	checkUniform(t, "range query index", idxs, draws)
	for idx := idxMarket; idx <= idxPDC; idx++ {
		starts[idx].check(t, idxs[idx-idxMarket])
	}

	const lo, hi = 5000, 5400
	ids := make([]int64, p.PointIDs)
	seen := newDomainCheck("point id - lo", hi-lo)
	for i := 0; i < draws/len(ids); i++ {
		drawIDs(rng, ids, lo, hi)
		for _, id := range ids {
			seen.add(t, id-lo)
		}
	}
	seen.check(t, draws/len(ids)*len(ids))
	drawIDs(rng, ids, 7, 7)
	for _, id := range ids {
		if id != 7 {
			t.Fatalf("ids from the empty range [7, 7): %v, want all 7", ids)
		}
	}
}
