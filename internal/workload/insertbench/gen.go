package insertbench

import (
	"math/rand/v2"
)

// Row is one row of an Insert Benchmark table. Data points into the generator's arena and is
// valid until the next call to Batch.
type Row struct {
	ID             int64 // transactionid; 0 until assigned (SQL engines assign it themselves)
	DateAndTime    int64 // unix seconds: the time the batch was generated (one value per batch)
	CashRegisterID int64
	CustomerID     int64
	ProductID      int64
	Price          int64
	Data           []byte
}

// dataAlphabet is the character set of the random part of the data column (the reference uses
// base64 text).
const dataAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// Gen generates rows from a seeded generator: the same seed and stream give the same values,
// payload bytes included. It is used by one goroutine and allocates nothing once warm.
type Gen struct {
	rng *rand.Rand
	p   *Params
	own rowBuf // the buffer of Batch
}

// rowBuf holds a batch of rows and their data bytes, reused by the next batch generated into it.
type rowBuf struct {
	rows  []Row
	arena []byte
}

// NewGen returns a generator for stream of seed (each client and step uses its own stream).
func NewGen(p *Params, seed, stream uint64) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, stream)), p: p}
}

// Rand returns the generator's random source, for query parameters.
func (g *Gen) Rand() *rand.Rand { return g.rng }

// Batch returns n new rows generated at unix time now. The slice and the rows' Data are reused
// by the next call.
func (g *Gen) Batch(n int, now int64) []Row { return g.fill(&g.own, n, now) }

// fill generates n new rows at unix time now into b, in the reference's order of draws
// (iibench.py:533-546): cashregisterid, productid, customerid, price, then the data column.
func (g *Gen) fill(b *rowBuf, n int, now int64) []Row {
	if cap(b.rows) < n {
		b.rows = make([]Row, n)
		b.arena = make([]byte, 0, n*g.p.DataMax)
	}
	b.rows = b.rows[:n]
	b.arena = b.arena[:0]
	p := g.p
	for i := range b.rows {
		r := &b.rows[i]
		r.ID = 0
		r.DateAndTime = now
		r.CashRegisterID = g.rng.Int64N(int64(p.CashRegs))
		r.ProductID = g.rng.Int64N(int64(p.Products))
		r.CustomerID = g.rng.Int64N(int64(p.Customers))
		r.Price = g.rng.Int64N(int64(p.MaxPrice))
		start := len(b.arena)
		b.arena = g.appendData(b.arena)
		r.Data = b.arena[start:len(b.arena):len(b.arena)]
	}
	return b.rows
}

// randomChars returns how many of a data value of length n are random: the reference's
// int(n * 0.75 * (data_random_pct / 100)), whose 0.75 stands for base64's overhead
// (iibench.py:539-540), computed in the same floating-point operations.
func randomChars(n, pct int) int {
	return int(float64(n) * 0.75 * (float64(pct) / 100))
}

// appendData appends one data value as the reference makes it (iibench.py:538-545): a length
// uniform in [DataMin, DataMax], of which randomChars are random base64 characters after a
// pad of 'a'.
func (g *Gen) appendData(dst []byte) []byte {
	p := g.p
	n := p.DataMin + g.rng.IntN(p.DataMax-p.DataMin+1)
	nrand := randomChars(n, p.DataRandPct)
	for i := 0; i < n-nrand; i++ {
		dst = append(dst, 'a')
	}
	var bits uint64
	for i := 0; i < nrand; i++ {
		if i%10 == 0 {
			bits = g.rng.Uint64()
		}
		dst = append(dst, dataAlphabet[bits&63])
		bits >>= 6
	}
	return dst
}

// streamOf derives a generator stream from a step and a client so that every (step, client,
// role) pair has its own reproducible sequence.
func streamOf(step string, client, role int) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(step); i++ {
		h ^= uint64(step[i])
		h *= 1099511628211
	}
	return h ^ uint64(client)<<32 ^ uint64(role)<<56
}
