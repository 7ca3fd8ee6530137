package iibench

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
)

// Verification (docs/iibench.md, Verification) reads the table back after the run: every row
// through the primary key, compared with the row its insert thread made, and every entry of each
// secondary index, compared as a multiset with the entries the rows made must have. A row's
// values are a function of the run's seed, its insert thread and its place in that thread's
// sequence (Gen); the place is recovered from the order of the transactionids, which each thread
// receives in increasing order whatever the engine assigns (gaps left by failed attempts, ids
// interleaved between threads): the rows read in primary key order must be an interleaving of
// every thread's rows, each thread's in its own order (on the document family the _ids, which
// the client makes increasing, docSession.objectID). Memory is bounded by the number of threads
// and the seconds of the run (insertLog; its batches on the document family, whose dateandtime
// has milliseconds), never by the rows. The family's form says how a row's values are held.

// insertLog is what one insert thread wrote, for verification: how many of its rows were
// committed and the dateandtime of each, the one column that is not drawn from the row's seed
// (it is the time the batch was made). Its thread writes it during the step; verification
// reads it after.
type insertLog struct {
	rows  int64
	times []timeRun // by from
}

// timeRun says that the rows from from on, up to the next run's, have dateandtime unix: one run
// per change of the second, a few bytes a second of the run.
type timeRun struct{ from, unix int64 }

// made records that the rows from seq on were made at unix time unix.
func (l *insertLog) made(seq, unix int64) {
	if n := len(l.times); n == 0 || l.times[n-1].unix != unix {
		l.times = append(l.times, timeRun{seq, unix})
	}
}

// timeOf returns the dateandtime of row seq.
func (l *insertLog) timeOf(seq int64) int64 {
	i := sort.Search(len(l.times), func(i int) bool { return l.times[i].from > seq })
	if i == 0 {
		return 0
	}
	return l.times[i-1].unix
}

// storedRow is a row as verification reads it back: price as the bits of the float the family
// stores (form.priceBits: an exact comparison whatever the domain of prices), a NULL
// dateandtime as nullTime. Data and Pad (the padding columns back to back) are valid only
// during the callback that receives the row. On the document family OID is its _id (ID is 0),
// and Shape says what is wrong with the document's fields or their types ("" when nothing).
type storedRow struct {
	ID, Date, CashReg, Customer, Product int64
	Price                                uint64
	Data, Pad                            []byte
	OID                                  bson.ObjectID
	Shape                                string
}

// idText names the row by its primary key.
func (s *storedRow) idText() string {
	if s.OID.IsZero() {
		return fmt.Sprintf("transactionid %d", s.ID)
	}
	return "_id " + s.OID.Hex()
}

// after reports whether s comes after prev in primary key order.
func (s *storedRow) after(prev *storedRow) bool {
	if c := bytes.Compare(s.OID[:], prev.OID[:]); c != 0 {
		return c > 0
	}
	return s.ID > prev.ID
}

// nullTime is the dateandtime of a stored row whose column is NULL.
const nullTime = math.MinInt64

// fingerprint is an order-independent hash of a multiset of index entries: their number and
// the sum of a keyed 64-bit hash of each. A missing, extra, repeated or changed entry changes
// the sum but with a chance of 2^-64.
type fingerprint struct {
	n   int64
	sum uint64
}

// add adds entry k of an index with n columns.
func (f *fingerprint) add(seed maphash.Seed, k Key, n int) {
	var b [8 * len(Key{})]byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(k[i]))
	}
	f.n++
	f.sum += maphash.Bytes(seed, b[:8*n])
}

// The problems verification describes in its detail; past them it only counts.
const maxProblems = 3

// lookahead is how far past a thread's next row verification looks for a row that is not that
// row, to tell rows missing before it (a lost batch) from a changed row: at most lookaheadRows
// rows over all threads for one row read, and not once lookaheadProblems problems were found, so
// that a table damaged throughout costs little more than a scan.
const (
	lookahead         = 1024
	lookaheadRows     = 1 << 16
	lookaheadProblems = 1000
)

// thread is one insert thread's rows as verification expects them.
type thread struct {
	c     int
	log   *insertLog
	gen   *Gen
	ahead *Gen  // made on the first look ahead
	seq   int64 // the next row expected
	head  *Row  // row seq; nil once every row was seen
}

// at sets head to row seq, or nil past the last row.
func (t *thread) at(seq int64) {
	t.seq, t.head = seq, nil
	if seq < t.log.rows {
		t.head = t.gen.Row(seq, t.log.timeOf(seq))
	}
}

// peek returns row seq, made by the thread's second generator so that head stays valid.
func (t *thread) peek(p *Params, seed uint64, seq int64) *Row {
	if t.ahead == nil {
		t.ahead = NewGen(p, seed, uint64(t.c))
	}
	return t.ahead.Row(seq, t.log.timeOf(seq))
}

// verifier checks the rows and entries read back against the threads' rows.
type verifier struct {
	p       *Params
	threads []*thread
	last    int // the thread of the last row matched
	f       form
	seed    maphash.Seed
	want    [numIndexes]fingerprint // of the entries the threads' rows make
	prev    storedRow               // the primary key of the row read last (ID and OID only)
	read    int64                   // rows read through the primary key
	missing int64
	extra   int64
	changed int64
	// problems describes the first maxProblems problems; more counts the others.
	problems []string
	more     int
}

func newVerifier(p *Params, f form, logs []insertLog) *verifier {
	v := &verifier{p: p, f: f, seed: maphash.MakeSeed(), prev: storedRow{ID: math.MinInt64}}
	for c := range logs {
		t := &thread{c: c, log: &logs[c], gen: NewGen(p, p.Seed, uint64(c))}
		t.at(0)
		v.threads = append(v.threads, t)
	}
	return v
}

// expected returns the rows the threads committed.
func (v *verifier) expected() int64 {
	var n int64
	for _, t := range v.threads {
		n += t.log.rows
	}
	return n
}

// problem adds the description of a problem that describe makes, or counts it past
// maxProblems without making it.
func (v *verifier) problem(describe func() string) {
	if len(v.problems) == maxProblems {
		v.more++
		return
	}
	v.problems = append(v.problems, describe())
}

// take counts t's next row as seen (matched, missing or changed) and moves t past it.
func (v *verifier) take(t *thread) {
	for _, idx := range v.p.Indexes()[1:] {
		v.want[idx].add(v.seed, v.f.rawKey(t.head, idx), len(indexes[idx].cols))
	}
	t.at(t.seq + 1)
}

// row checks the next row read through the primary key.
func (v *verifier) row(s *storedRow) {
	v.read++
	if !s.after(&v.prev) {
		prev := v.prev.idText()
		v.problem(func() string {
			return fmt.Sprintf("%s read after %s: the primary key is out of order", s.idText(), prev)
		})
	}
	v.prev.ID, v.prev.OID = s.ID, s.OID
	if t := v.threads[v.last]; t.head != nil && v.f.sameRow(s, t.head) {
		v.take(t)
		return
	}
	for i, t := range v.threads {
		if t.head != nil && v.f.sameRow(s, t.head) {
			v.last = i
			v.take(t)
			return
		}
	}
	v.mismatch(s)
}

// mismatch classifies a row that is no thread's next row: the rows of a thread before it are
// missing (it is one of the next lookahead rows of that thread), or it is a thread's next row
// changed (it has most of its columns), or it is an extra row.
func (v *verifier) mismatch(s *storedRow) {
	look := int64(min(lookahead, lookaheadRows/len(v.threads)))
	if v.missing+v.extra+v.changed >= lookaheadProblems {
		look = 0
	}
	for _, t := range v.threads {
		for k := int64(1); k <= look && t.seq+k < t.log.rows; k++ {
			if !v.f.sameRow(s, t.peek(v.p, v.p.Seed, t.seq+k)) {
				continue
			}
			v.missing += k
			v.problem(func() string {
				return fmt.Sprintf("%s is row %d of insert thread %d: its %s before it %s missing",
					s.idText(), t.seq+k, t.c, rowsText(t.seq, t.seq+k-1), isAre(k))
			})
			for ; k >= 0; k-- {
				v.take(t)
			}
			return
		}
	}
	var best *thread
	same := 0
	for _, t := range v.threads {
		if t.head == nil {
			continue
		}
		if n := v.f.sameColumns(s, t.head); n > same {
			best, same = t, n
		}
	}
	if best != nil && 2*same > len(rowColumns) {
		v.changed++
		v.problem(func() string {
			return fmt.Sprintf("%s (row %d of insert thread %d) differs: %s", s.idText(), best.seq, best.c,
				strings.Join(v.f.diffRow(s, best.head), ", "))
		})
		v.take(best)
		return
	}
	v.extra++
	v.problem(func() string {
		return fmt.Sprintf("%s is an extra row, no insert thread's next row (cashregisterid %d, customerid %d, productid %d, price %g)",
			s.idText(), s.CashReg, s.Customer, s.Product, v.f.priceValue(s.Price))
	})
}

// rowsText names the rows from..to of a thread.
func rowsText(from, to int64) string {
	if from == to {
		return fmt.Sprintf("row %d", from)
	}
	return fmt.Sprintf("rows %d to %d", from, to)
}

// end counts the rows of each thread that were not read as missing, and their index entries as
// expected.
func (v *verifier) end() {
	for _, t := range v.threads {
		if left := t.log.rows - t.seq; left > 0 {
			v.missing += left
			v.problem(func() string {
				return fmt.Sprintf("the last %s of insert thread %d (%s) %s missing", plural(left, "row"), t.c,
					rowsText(t.seq, t.log.rows-1), isAre(left))
			})
		}
		for t.head != nil {
			v.take(t)
		}
	}
}

// isAre is the verb of n things.
func isAre(n int64) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// plural writes n things.
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// indexCheck is what verification read through one secondary index.
type indexCheck struct {
	got       fingerprint
	prev      Key
	unordered bool // an entry came before the one read before it
}

// entry adds the next entry read through index idx.
func (c *indexCheck) entry(seed maphash.Seed, idx int, k Key) {
	n := len(indexes[idx].cols)
	if c.got.n > 0 && compareKeys(k, c.prev, n) < 0 {
		c.unordered = true
	}
	c.prev = k
	c.got.add(seed, k, n)
}

// verify reads the table back through its primary key and every secondary index (see the top
// of this file). It returns nil without reading on an engine that stores nothing. An error is
// the engine's or ctx's: what verification could not read; a *runner.StallError when the
// engine stopped answering for the stall limit (env.Watch: every beatEvery rows or entries
// read, and every ping the engine answers, is progress).
func (r *run) verify(ctx context.Context) (*result.Verify, error) {
	if d, ok := r.eng.(engine.Discarder); ok && d.Discards() {
		return nil, nil
	}
	ph := r.env.Watch(ctx, r.eng, "verification", true)
	defer ph.Stop()
	ctx = ph.Ctx
	var read int64
	beat := func() {
		if read++; read%beatEvery == 0 {
			ph.Beat()
		}
	}
	v := newVerifier(r.p, r.form, r.logs)
	if err := r.be.scanRows(ctx, func(s *storedRow) { v.row(s); beat() }); err != nil {
		return nil, ph.Err(err)
	}
	v.end()
	ok := v.missing+v.extra+v.changed == 0 && len(v.problems) == 0
	parts := []string{fmt.Sprintf("pk=%d%s", v.read, v.pkNote())}
	for _, idx := range r.p.Indexes()[1:] {
		var c indexCheck
		if err := r.be.scanIndex(ctx, idx, func(k Key) { c.entry(v.seed, idx, k); beat() }); err != nil {
			return nil, ph.Err(err)
		}
		note := ""
		switch want := v.want[idx]; {
		case c.got.n != want.n:
			note = " (entries differ)"
		case c.got.sum != want.sum:
			note = " (as many entries, but they differ)"
		case c.unordered:
			note = " (out of index order)"
		}
		ok = ok && note == ""
		parts = append(parts, fmt.Sprintf("%s=%d%s", indexes[idx].name, c.got.n, note))
	}
	detail := fmt.Sprintf("%s: expected %d, %s", tableName, v.expected(), strings.Join(parts, " "))
	if ok {
		detail += "; every row as generated, every index entry as its row's"
	}
	if len(v.problems) > 0 {
		detail += "; " + strings.Join(v.problems, "; ")
		if v.more > 0 {
			detail += fmt.Sprintf("; and %d more", v.more)
		}
	}
	return &result.Verify{OK: ok, Detail: detail}, nil
}

// beatEvery is how many rows and index entries verification reads between two beats of its
// stall watchdog.
const beatEvery = 1024

// pkNote sums up the primary key's problems: "" when there are none.
func (v *verifier) pkNote() string {
	var n []string
	for _, c := range []struct {
		k    int64
		what string
	}{{v.missing, "missing"}, {v.extra, "extra"}, {v.changed, "changed"}} {
		if c.k > 0 {
			n = append(n, fmt.Sprintf("%d %s", c.k, c.what))
		}
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, ", ") + ")"
}
