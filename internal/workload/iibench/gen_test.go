package iibench

import (
	"bytes"
	"context"
	"encoding/base64"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload"
)

// priceMass returns the probability of each price in cents under the reference's formula,
// (u x maxPrice + c) / 100 rounded to cents with u uniform in [0, 1) and c uniform in
// [0, customers): the rounded random part is 0 and maxPrice with probability 1/(2 maxPrice)
// each and every value between with 1/maxPrice, shifted by each customer with 1/customers.
func priceMass(maxPrice, customers int) []float64 {
	part := make([]float64, maxPrice+1)
	for k := range part {
		part[k] = 1 / float64(maxPrice)
	}
	part[0], part[maxPrice] = 0.5/float64(maxPrice), 0.5/float64(maxPrice)
	mass := make([]float64, customers+maxPrice)
	for c := 0; c < customers; c++ {
		for k, pk := range part {
			mass[c+k] += pk / float64(customers)
		}
	}
	return mass
}

// checkPrices compares prices (cents) with the reference's distribution for the domains of p:
// the mean, the range, and a histogram of bins buckets, each within 5 standard deviations of
// its expected count.
func checkPrices(t *testing.T, what string, p *Params, prices []int64, bins int) {
	t.Helper()
	mass := priceMass(p.MaxPrice, p.Customers)
	wantMean := float64(p.MaxPrice)/2 + float64(p.Customers-1)/2 // cents
	n := float64(len(prices))
	var sum float64
	for _, v := range prices {
		sum += float64(v)
	}
	// The variance of the price is that of the uniform customer plus that of the random part.
	sd := math.Sqrt((float64(p.Customers)*float64(p.Customers)-1)/12 + float64(p.MaxPrice*p.MaxPrice)/12)
	if mean := sum / n; math.Abs(mean-wantMean) > 5*sd/math.Sqrt(n) {
		t.Errorf("%s: mean price %.2f, want %.2f (the formula's)", what, mean/100, wantMean/100)
	}
	if lo, hi := slices.Min(prices), slices.Max(prices); lo < 0 || hi > int64(len(mass)-1) {
		t.Errorf("%s: prices from %.2f to %.2f, outside 0 .. %.2f", what, float64(lo)/100, float64(hi)/100, float64(len(mass)-1)/100)
	}
	width := (len(mass) + bins - 1) / bins
	got := make([]float64, bins)
	for _, v := range prices {
		got[int(v)/width]++
	}
	for b := range got {
		var pb float64
		for _, m := range mass[b*width : min((b+1)*width, len(mass))] {
			pb += m
		}
		if sd := math.Sqrt(n * pb * (1 - pb)); math.Abs(got[b]-n*pb) > 5*sd+1 {
			t.Errorf("%s: bin %d holds %.0f prices, want %.0f", what, b, got[b], n*pb)
		}
	}
}

// TestPriceDistribution checks, in both variants, that the prices of the rows and of the query
// seek points follow the reference's (rand x max_price + customerid) / 100, derived from the
// formula and the domains: with the default domains (a price from 0 to 1004.99, mean 502.495),
// and with few customers, where the ramps of the sum of the two uniform parts are wide.
func TestPriceDistribution(t *testing.T) {
	for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
		for _, dom := range []struct{ customers, maxPrice, bins int }{{100_000, 500, 20}, {20, 500, 26}} {
			p, _ := DefaultParams("small")
			p.Variant, p.Customers, p.MaxPrice = v, dom.customers, dom.maxPrice
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			gen := NewGen(&p, 7, 1)
			var rows, seeks []int64
			for len(rows) < 200_000 {
				for _, r := range gen.Batch(1000, 0) {
					rows = append(rows, r.Price)
					if r.Price < r.CustomerID || r.Price > r.CustomerID+int64(p.MaxPrice) {
						t.Fatalf("%s: price %d cents of customer %d", v, r.Price, r.CustomerID)
					}
				}
			}
			sk := newSeeker(&p, form{}, 9, time.Unix(0, 0))
			for len(seeks) < 200_000 {
				seeks = append(seeks, sk.next(idxMarket, 1000, time.Unix(10, 0))[0])
			}
			checkPrices(t, string(v)+" rows", &p, rows, dom.bins)
			checkPrices(t, string(v)+" seeks", &p, seeks, dom.bins)
		}
	}
}

// TestDataColumn checks the data column: 10 characters, 'a's then the base64 of 3 random bytes,
// as the reference's.
func TestDataColumn(t *testing.T) {
	p, _ := DefaultParams("tiny")
	seen := map[string]bool{}
	for _, r := range NewGen(&p, 1, 1).Batch(1000, 0) {
		if len(r.Data) != dataLen || !bytes.HasPrefix(r.Data, []byte("aaaaaa")) {
			t.Fatalf("data %q", r.Data)
		}
		raw, err := base64.StdEncoding.DecodeString(string(r.Data[6:]))
		if err != nil || len(raw) != 3 {
			t.Fatalf("data %q does not end in the base64 of 3 bytes: %v", r.Data, err)
		}
		seen[string(r.Data)] = true
	}
	if len(seen) < 990 {
		t.Errorf("%d distinct data values in 1000 rows", len(seen))
	}
}

// TestSeekPoints checks the seek points that differ between the variants: the reference's
// query thread knows the row count only in steps of a million, refreshed every fourth query,
// and draws transactionids from 0 below it and times up to a second per 100,000 rows past now;
// the corrected one draws from the rows inserted and the run so far.
func TestSeekPoints(t *testing.T) {
	start, now := time.Unix(1_700_000_000, 0), time.Unix(1_700_000_100, 0)
	const inserted = 2_500_000
	for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
		p, _ := DefaultParams("tiny")
		p.Variant = v
		sk, dk := newSeeker(&p, form{}, 1, start), newSeeker(&p, form{}, 2, start)
		var firstIDs, laterIDs, dates []int64
		for i := 0; i < 4000; i++ {
			k := sk.next(idxPK, inserted, now)
			if i < queriesPerTx {
				firstIDs = append(firstIDs, k[0])
			} else {
				laterIDs = append(laterIDs, k[0])
			}
			dates = append(dates, dk.next(idxPDC, inserted, now)[1])
		}
		lo, hi := slices.Min(laterIDs), slices.Max(laterIDs)
		dlo, dhi := slices.Min(dates), slices.Max(dates)
		if v == workload.Reference {
			if slices.Max(firstIDs) != 0 || lo < 0 || hi >= 2_000_000 || hi < 1_900_000 {
				t.Errorf("reference: transactionids %v first, then %d .. %d, want 0 until the refresh, then within [0, 2,000,000)", firstIDs, lo, hi)
			}
			if dlo < start.Unix() || dhi > now.Unix()+20 || dhi <= now.Unix() {
				t.Errorf("reference: times %d .. %d s after the start, want within [0, 120]", dlo-start.Unix(), dhi-start.Unix())
			}
			continue
		}
		if lo < 1 || hi > inserted || hi < inserted-inserted/100 || slices.Min(firstIDs) < 1 {
			t.Errorf("corrected: transactionids %d .. %d, want within [1, %d]", lo, hi, inserted)
		}
		if dlo != start.Unix() || dhi != now.Unix() {
			t.Errorf("corrected: times %d .. %d s after the start, want 0 .. 100", dlo-start.Unix(), dhi-start.Unix())
		}
	}
}

// TestBatchTime checks the dateandtime of a batch: the reference moves it a second ahead for
// every 100,000 rows the inserter made before it; the corrected variant writes the time.
func TestBatchTime(t *testing.T) {
	now := time.Unix(1_700_000_000, 600_000_000)
	for _, c := range []struct {
		v    workload.Variant
		done int64
		want int64
	}{
		{workload.Reference, 0, 1_700_000_000},
		{workload.Reference, 50_000, 1_700_000_001}, // 0.6 + 0.5 s
		{workload.Reference, 1_000_000, 1_700_000_010},
		{workload.Corrected, 1_000_000, 1_700_000_000},
	} {
		p, _ := DefaultParams("tiny")
		p.Variant = c.v
		r := &run{p: &p}
		if got := r.batchTime(now, c.done); got != c.want {
			t.Errorf("%s after %d rows: %d, want %d", c.v, c.done, got, c.want)
		}
	}
}

// TestWholeBatches runs 2,500 rows in batches of 1,000 on the null engine: the reference variant
// inserts whole batches, 3,000 rows, as the reference's; the corrected one stops at 2,500.
func TestWholeBatches(t *testing.T) {
	for v, want := range map[workload.Variant]int64{workload.Reference: 3000, workload.Corrected: 2500} {
		p, _ := DefaultParams("tiny")
		p.Variant, p.MaxRows = v, 2500
		w := mustNew(t, p)
		st, err := runOn(t, context.Background(), w, openNull(t), nil)
		if err != nil || st.Status != result.StatusOK {
			t.Fatalf("%s: %v %s", v, err, st.Error)
		}
		if got := st.Ops["insert"].Units; got != want {
			t.Errorf("%s: inserted %d rows, want %d", v, got, want)
		}
	}
}

// TestKVPriceKey checks the key encoding of a price: the single-precision float a FLOAT column
// holds, in the order of the prices, read back to the same cents.
func TestKVPriceKey(t *testing.T) {
	var prev []byte
	for cents := int64(-2000); cents <= 200_000; cents += 7 {
		k := appendCol(nil, colPrice, cents)
		got, rest, err := decodeCol(k, colPrice)
		if err != nil || got != cents || len(rest) != 0 || len(k) != 4 {
			t.Fatalf("%d cents: key %x decodes to %d (%v)", cents, k, got, err)
		}
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("%d cents: key %x does not sort after %x", cents, k, prev)
		}
		prev = k
	}
}
