package iibench

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/enginebench/enginebench/internal/workload"
)

// The values follow iibench.py in its iiBench form (docs/fidelity.md, iiBench).
const (
	// dataLen is the length of the data column: the reference's data_length_min and
	// data_length_max (10).
	dataLen = 10
	// dataRandomBytes are the random bytes at the end of the data column, base64-encoded
	// (data_random_pct 50 of 10 characters, three quarters for base64's overhead: 3 bytes, 4
	// characters); the rest is 'a'.
	dataRandomBytes = 3
	// rowsPerReport is the reference's rows_per_report: its query threads learn the row count
	// only at these steps (reference variant).
	rowsPerReport = 1_000_000
	// rowsPerSecond is how many rows move the reference's dateandtime one second ahead of the
	// clock (reference variant).
	rowsPerSecond = 100_000
	// queriesPerTx is how many queries of a reference query thread share one transaction, and how
	// often it refreshes the row count it knows.
	queriesPerTx = 4
)

// Row is one row of purchases_index. Data and Pad point into the generator's arena (the data
// column, then CharFields fields of CharLength bytes back to back) and are valid until the next
// call to Batch.
type Row struct {
	ID             int64 // transactionid; assigned by SQL engines, by the client on KV engines
	DateAndTime    int64 // unix seconds: one value per batch
	CashRegisterID int64
	CustomerID     int64
	ProductID      int64
	// Price is in cents: (rand x MaxPrice + customerid) / 100, rounded to cents as the
	// reference's statements write it (%.2f).
	Price int64
	// PriceRaw is the same price unrounded, the double the document family stores, as the
	// Java client computes it (jmongoiibench.java:350).
	PriceRaw float64
	Data     []byte
	Pad      []byte
}

// col returns the value of column c of r.
func (r *Row) col(c int) int64 {
	switch c {
	case colID:
		return r.ID
	case colPrice:
		return r.Price
	case colCustomer:
		return r.CustomerID
	case colRegister:
		return r.CashRegisterID
	case colDate:
		return r.DateAndTime
	}
	panic(fmt.Sprintf("iibench: no column %d", c))
}

// key returns r's key in index idx.
func (r *Row) key(idx int) Key {
	var k Key
	for i, c := range indexes[idx].cols {
		k[i] = r.col(c)
	}
	return k
}

// priceOf returns the price in cents of customer c at u, uniform in [0, 1): the reference's
// (u x maxPrice + c) / 100, rounded to cents.
func priceOf(u float64, maxPrice int, c int64) int64 {
	return int64(math.Round(u*float64(maxPrice) + float64(c)))
}

// priceRaw returns the price of customer c at u, uniform in [0, 1), as the Java client computes
// it in double precision: (u x maxPrice + c) / 100, unrounded.
func priceRaw(u float64, maxPrice int, c int64) float64 {
	return (u*float64(maxPrice) + float64(c)) / 100.0
}

// priceDecimal returns a price in cents as the decimal the reference's statements write.
func priceDecimal(cents int64) float64 { return float64(cents) / 100 }

// priceStored returns the value a single-precision FLOAT column stores for a price in cents.
func priceStored(cents int64) float64 { return float64(float32(priceDecimal(cents))) }

// centsOf returns the cents of a price read back from a FLOAT column.
func centsOf(v float64) int64 { return int64(math.Round(v * 100)) }

// Gen generates the rows of one insert thread. Row seq of the thread (0, 1, 2, ...) is a pure
// function of the run's seed, the thread and seq: its values are drawn, in the reference's
// order, from a generator seeded by those three alone, so that verification regenerates any
// row without the ones before it. Only dateandtime, the time a batch is made, is not drawn. A
// Gen is used by one goroutine and allocates nothing once warm.
type Gen struct {
	pcg   rand.PCG
	rng   *rand.Rand // draws from pcg
	p     *Params
	hi    uint64 // the high half of every row's seed: the run's seed and the thread's
	next  int64  // the row Batch makes next
	rows  []Row
	arena []byte
	raw   [dataRandomBytes]byte
}

// NewGen returns the generator of insert thread stream under seed, at its first row.
func NewGen(p *Params, seed, stream uint64) *Gen {
	g := &Gen{p: p, hi: workload.Mix64(seed ^ workload.Mix64(stream+golden))}
	g.rng = rand.New(&g.pcg)
	return g
}

// golden is 2^64 divided by the golden ratio, the increment of splitmix64.
const golden = 0x9e3779b97f4a7c15

// Next returns the row the next Batch starts with.
func (g *Gen) Next() int64 { return g.next }

// Batch returns the thread's next n rows, made at unix time now; the slice and the rows' Data
// and Pad are reused by the next call. The ids are uniform in their domains and the price
// follows its customer, as the reference's; the data column is 'a's then base64 of random
// bytes, as the reference's, and each padding column is random letters followed by
// CompressiblePct percent of 'a', as the Java original's.
func (g *Gen) Batch(n int, now int64) []Row {
	if cap(g.rows) < n {
		g.rows = make([]Row, n)
		g.arena = make([]byte, n*g.width())
	}
	g.rows = g.rows[:n]
	for i := range g.rows {
		g.fill(&g.rows[i], i, g.next, now)
		g.next++
	}
	return g.rows
}

// Row returns row seq of the thread with dateandtime now, in the storage of the first row of
// Batch (which it overwrites): what verification compares a stored row with.
func (g *Gen) Row(seq, now int64) *Row {
	if cap(g.rows) < 1 {
		g.rows = make([]Row, 1)
		g.arena = make([]byte, g.width())
	}
	g.fill(&g.rows[:1][0], 0, seq, now)
	return &g.rows[:1][0]
}

// width is the bytes of a row's data and padding columns.
func (g *Gen) width() int { return dataLen + g.p.CharFields*g.p.CharLength }

// fill makes row seq at unix time now into r, with its columns in slot i of the arena.
func (g *Gen) fill(r *Row, i int, seq, now int64) {
	p, w := g.p, g.width()
	g.pcg.Seed(g.hi, workload.Mix64(uint64(seq)+g.hi))
	r.ID = 0
	r.DateAndTime = now
	r.CashRegisterID = g.rng.Int64N(int64(p.CashRegs))
	r.ProductID = g.rng.Int64N(int64(p.Products))
	r.CustomerID = g.rng.Int64N(int64(p.Customers))
	u := g.rng.Float64()
	r.Price, r.PriceRaw = priceOf(u, p.MaxPrice, r.CustomerID), priceRaw(u, p.MaxPrice, r.CustomerID)
	b := g.arena[i*w : (i+1)*w : (i+1)*w]
	r.Data, r.Pad = b[:dataLen:dataLen], b[dataLen:]
	g.fillData(r.Data)
	g.fillPad(r.Pad)
}

// fillData fills the data column: 'a's, then base64 of dataRandomBytes random bytes.
func (g *Gen) fillData(b []byte) {
	enc := base64.StdEncoding.EncodedLen(dataRandomBytes)
	for i := range b[:len(b)-enc] {
		b[i] = 'a'
	}
	bits := g.rng.Uint64()
	for i := range g.raw {
		g.raw[i] = byte(bits >> (8 * i))
	}
	base64.StdEncoding.Encode(b[len(b)-enc:], g.raw[:])
}

// fillPad fills the padding columns of one row.
func (g *Gen) fillPad(b []byte) {
	p := g.p
	random := p.CharLength - p.CharLength*p.CompressiblePct/100
	for f := 0; f < p.CharFields; f++ {
		field := b[f*p.CharLength : (f+1)*p.CharLength]
		var bits uint64
		for i := 0; i < random; i++ {
			if i%12 == 0 {
				bits = g.rng.Uint64()
			}
			field[i] = 'a' + byte(bits%26)
			bits /= 26
		}
		for i := random; i < len(field); i++ {
			field[i] = 'a'
		}
	}
}

// seeker makes the seek points of one query thread.
type seeker struct {
	rng   *rand.Rand
	p     *Params
	f     form
	start time.Time // the start of the run
	// known is the row count the thread knows: in the reference variant, the last multiple of
	// rowsPerReport it saw at its last refresh (every queriesPerTx queries).
	known int64
	n     int // seek points made
}

func newSeeker(p *Params, f form, stream uint64, start time.Time) *seeker {
	return &seeker{rng: rand.New(rand.NewPCG(p.Seed, stream)), p: p, f: f, start: start}
}

// next returns a seek point of index idx when inserted rows exist at now. The customer is
// uniform and the price follows it as in a row. On the primary key, the reference variant draws
// from the row count the thread knows, from 0 (a transactionid below every row while it knows
// none); the corrected from the rows inserted. dateandtime is a uniform instant of the run so
// far; the reference variant adds up to a second per rowsPerSecond rows it knows, as it does to
// the rows' time. On the document family (docSeek) the values are the Java client's.
func (s *seeker) next(idx int, inserted int64, now time.Time) Key {
	p, rng := s.p, s.rng
	c := rng.Int64N(int64(p.Customers))
	if s.f.doc {
		return s.docSeek(idx, c, now)
	}
	var k Key
	for i, col := range indexes[idx].cols {
		switch col {
		case colID:
			if p.Corrected() {
				k[i] = 1 + rng.Int64N(max(inserted, 1))
			} else {
				k[i] = rng.Int64N(max(s.known, 1))
			}
		case colPrice:
			k[i] = priceOf(rng.Float64(), p.MaxPrice, c)
		case colCustomer:
			k[i] = c
		case colRegister:
			k[i] = rng.Int64N(int64(p.CashRegs))
		case colDate:
			k[i] = s.instant(now)
		}
	}
	s.n++
	if !p.Corrected() && s.n%queriesPerTx == 0 {
		s.known = inserted - inserted%rowsPerReport
	}
	return k
}

// docSeek returns a seek point of index idx for customer c at now as the Java client draws one
// (jmongoiibench.java:456-459), in both variants: the price unrounded (the bits of its double),
// dateandtime a uniform millisecond of the run so far. The primary key, which the Java client
// does not query, seeks the same instant: an _id made then (docBackend.appendSeek).
func (s *seeker) docSeek(idx int, c int64, now time.Time) Key {
	p, rng := s.p, s.rng
	var k Key
	for i, col := range indexes[idx].cols {
		switch col {
		case colID, colDate:
			from := s.start.UnixMilli()
			k[i] = from + int64(float64(now.UnixMilli()-from)*rng.Float64())
		case colPrice:
			k[i] = int64(math.Float64bits(priceRaw(rng.Float64(), p.MaxPrice, c)))
		case colCustomer:
			k[i] = c
		case colRegister:
			k[i] = rng.Int64N(int64(p.CashRegs))
		}
	}
	return k
}

// instant returns a uniform unix second between the start of the run and now, moved ahead as
// the reference moves it in the reference variant.
func (s *seeker) instant(now time.Time) int64 {
	from, to := s.start.Unix(), now.Unix()
	if s.p.Corrected() {
		return from + s.rng.Int64N(max(to-from+1, 1))
	}
	span := now.Sub(s.start).Seconds()
	ahead := float64(s.rng.Int64N(max(s.known, 1))) / rowsPerSecond
	return int64(math.Floor(float64(s.start.UnixNano())/1e9 + span*s.rng.Float64() + ahead))
}
