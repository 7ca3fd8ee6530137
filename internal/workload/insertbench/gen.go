package insertbench

import (
	"math/rand/v2"

	"github.com/enginebench/enginebench/internal/workload"
)

// Row is one row of an Insert Benchmark table. Data points into the generator's arena and is
// valid until the next call to Batch.
type Row struct {
	// Key is the row's insert number in its table (0, 1, 2, ... over the whole run): every
	// value but DateAndTime is a pure function of the run's seed, the table and Key (Gen).
	Key            int64
	ID             int64 // transactionid, which the engine assigns; Key+1 until then
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

// Gen generates the rows of one table. Row k's values are drawn, in the reference's order,
// from a PCG generator seeded by the run's seed and (stream, k), so that the same seed gives
// the same rows, payload bytes included, and verification can compute any row from its key
// alone. A Gen is used by one goroutine and allocates nothing once warm. Rand is a separate
// generator of (seed, stream), for query parameters.
type Gen struct {
	p      *Params
	seed   uint64
	stream uint64
	pcg    rand.PCG   // reseeded for every row
	row    *rand.Rand // draws from pcg
	rng    *rand.Rand // Rand's
	next   int64      // the key of Batch's next row
	own    rowBuf     // the buffer of Batch
}

// rowBuf holds a batch of rows and their data bytes, reused by the next batch generated into it.
type rowBuf struct {
	rows  []Row
	arena []byte
}

// NewGen returns the generator of stream of seed: the rows of the table whose stream it is
// (tableStream), or the query parameters of a client (streamOf and Rand).
func NewGen(p *Params, seed, stream uint64) *Gen {
	g := &Gen{p: p, seed: seed, stream: stream, rng: rand.New(rand.NewPCG(seed, stream))}
	g.row = rand.New(&g.pcg)
	return g
}

// tableStream is the generator stream of the rows of table number no.
func tableStream(no int) uint64 { return uint64(no) }

// Rand returns the generator's random source, for query parameters.
func (g *Gen) Rand() *rand.Rand { return g.rng }

// Batch returns the rows of the next n keys (from 0 on), generated at unix time now. The slice
// and the rows' Data are reused by the next call.
func (g *Gen) Batch(n int, now int64) []Row {
	rows := g.fill(&g.own, g.next, n, now)
	g.next += int64(n)
	return rows
}

// fill generates the rows of keys k0 .. k0+n-1 at unix time now into b.
func (g *Gen) fill(b *rowBuf, k0 int64, n int, now int64) []Row {
	if cap(b.rows) < n {
		b.rows = make([]Row, n)
		b.arena = make([]byte, 0, n*g.p.DataMax)
	}
	b.rows = b.rows[:n]
	b.arena = b.arena[:0]
	for i := range b.rows {
		start := len(b.arena)
		b.arena = g.rowAt(&b.rows[i], k0+int64(i), now, b.arena)
		b.rows[i].Data = b.arena[start:len(b.arena):len(b.arena)]
	}
	return b.rows
}

// rowAt sets r to the row of key k generated at unix time now and appends its data to dst,
// which it returns (r.Data is left to the caller). The draws are the reference's, in its order
// (iibench.py:533-546): cashregisterid, productid, customerid, price, then the data column.
func (g *Gen) rowAt(r *Row, k, now int64, dst []byte) []byte {
	g.pcg.Seed(g.seed, rowSeed(g.stream, k))
	p := g.p
	r.Key, r.ID, r.DateAndTime = k, k+1, now
	r.CashRegisterID = g.row.Int64N(int64(p.CashRegs))
	r.ProductID = g.row.Int64N(int64(p.Products))
	r.CustomerID = g.row.Int64N(int64(p.Customers))
	r.Price = g.row.Int64N(int64(p.MaxPrice))
	return g.appendData(dst)
}

// rowSeed is the second seed of row k's generator: distinct keys give unrelated sequences.
func rowSeed(stream uint64, k int64) uint64 { return splitmix64(splitmix64(stream) ^ uint64(k)) }

// splitmix64 is one output of the SplitMix64 generator at state x: its increment (2^64
// divided by the golden ratio), then its finalizer.
func splitmix64(x uint64) uint64 { return workload.Mix64(x + 0x9e3779b97f4a7c15) }

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
	n := p.DataMin + g.row.IntN(p.DataMax-p.DataMin+1)
	nrand := randomChars(n, p.DataRandPct)
	for i := 0; i < n-nrand; i++ {
		dst = append(dst, 'a')
	}
	var bits uint64
	for i := 0; i < nrand; i++ {
		if i%10 == 0 {
			bits = g.row.Uint64()
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
