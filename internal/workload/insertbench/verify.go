package insertbench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/workload"
)

// Verification reads every row of every table through its primary key and compares it, column
// by column, with the row the generator makes for its key (Gen), and then reads every entry of
// each secondary index and compares them, as a multiset, with the rows read. Rows are read in
// transactionid order, which is insert order (engines assign transactionid in insert order;
// each inserting session is a fresh connection, so a PostgreSQL sequence cache never hands a
// later insert a smaller value), so the walk needs no state per row: it follows the table's
// ledger (ledger.go), one cursor per writer of the step whose rows it is in.
//
// The deletes delete the oldest rows, so the rows the table must hold are the last ones
// inserted: the walk starts after the first D rows of the ledger (D: the rows the engine said it
// deleted) and every later row must be there, in order. A row that is missing, extra (a
// duplicate, a row never inserted, a deleted row come back) or altered in any column fails the
// check, with its transactionid and values in the detail. When a delete deleted fewer rows than
// it asked for, the rows deleted need not be the oldest; then the rows must be the ledger's in
// order with gaps (a subsequence) whose total is D.
//
// With a shared table, the writers' rows interleave in transactionid order at the granularity of
// their statements; the walk then matches each row with the next row of one of the writers,
// and where the deletes cut into a step it finds each writer's first row that remains by its
// values (a row's values have some 50 random bits: two rows alike are as rare as that).

// maxProblems is how many problems of a table the detail lists; maxWalkProblems is how many
// the walk finds before it stops, so that a table out of step ends the walk early.
const (
	maxProblems     = 5
	maxWalkProblems = 10000
	// lookahead is how far a walk looks past a missing row for the row that follows it.
	lookahead = 4096
)

// entry is a secondary index entry: its three columns and transactionid.
type entry [4]int64

// verify checks every table (see above) after step and returns the outcome; nil for an engine
// that keeps nothing. It is watched for stalls (env.Watch: every batch of rows read, and every
// ping the engine answers, is progress). The error is ctx's when ctx ended (the step is then
// interrupted), or the *runner.StallError of a verification that stalled.
func (r *run) verify(ctx context.Context, step string) (*result.Verify, error) {
	if r.discards() {
		return nil, nil
	}
	ph := r.env.Watch(ctx, r.eng, "verification after "+step, true)
	defer ph.Stop()
	t0 := time.Now()
	var detail []string
	okAll := true
	var read int64
	for _, t := range r.tables {
		v := newVerifier(r, t)
		v.beat = ph.Beat
		err := v.check(ph.Ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if se := workload.Stall(ph.Ctx); err != nil && se != nil {
			return nil, se
		}
		if err != nil {
			return &result.Verify{OK: false, Detail: fmt.Sprintf("%s: %v", t.name, err)}, nil
		}
		okAll = okAll && v.ok()
		read += v.read
		detail = append(detail, v.summary())
	}
	secs := time.Since(t0).Seconds()
	detail = append(detail, fmt.Sprintf("read %d rows and index entries in %.2f s", read, secs))
	return &result.Verify{OK: okAll, Detail: strings.Join(detail, "; ")}, nil
}

// beatEvery is how many rows and index entries verification reads between two beats of its
// stall watchdog (a power of two).
const beatEvery = 1024

// verifier checks one table.
type verifier struct {
	r      *run
	t      *table
	beat   func() // tells the stall watchdog that the walk progresses
	gen    *Gen
	want   int64 // rows the table must hold
	strict bool  // the deleted rows are the oldest
	segs   []*segment

	// The walk: the segment it is in and a cursor per writer of it.
	si    int
	curs  []cursor
	last  int   // the cursor of the previous row
	prev  int64 // the previous row's transactionid
	skip  int64 // rows of the segment si that the deletes may still have taken (strict)
	gone  int64 // rows passed over as deleted
	found int64 // rows that matched
	rows  int64 // rows read
	read  int64 // rows and entries read

	exp     Row
	expData []byte
	// sec and stored are the latest second expect converted and its stored form.
	sec, stored int64
	secSet      bool
	// sums are, for each secondary index, the count and hash of the entries the rows read call
	// for; they are held against the index's own.
	sums [numIndexes]entrySum

	counts   [numIndexes]int64
	problems []string
	nprob    int
	kinds    map[string]int64
}

// cursor is the walk's position in one writer's rows of a segment.
type cursor struct {
	seg      *segment
	c        int
	pos, n   int64 // the next row and the rows inserted
	anchored bool  // a row of the writer was found: none before pos may be skipped as deleted
}

// entrySum is an order-independent digest of a multiset of index entries.
type entrySum struct{ n, h uint64 }

func (s *entrySum) add(idx int, e *entry) {
	h := uint64(idx)
	for _, v := range e {
		h = splitmix64(h ^ uint64(v))
	}
	s.n++
	s.h += h
}

func newVerifier(r *run, t *table) *verifier {
	v := &verifier{r: r, t: t, beat: func() {}, gen: NewGen(r.p, r.p.Seed, tableStream(t.no)), want: t.live(),
		strict: t.short.Load() == 0, kinds: map[string]int64{}}
	for _, s := range t.log {
		if s.rows() > 0 {
			v.segs = append(v.segs, s)
		}
	}
	return v
}

// check walks t's primary key, then reads each secondary index.
func (v *verifier) check(ctx context.Context) error {
	v.start()
	err := v.r.be.readRows(ctx, v.t, func(row *Row) error {
		v.rows++
		v.readOne()
		if v.nprob < maxWalkProblems {
			v.next(row)
		}
		v.project(row)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read through pk: %w", err)
	}
	v.counts[idxPK] = v.rows
	if v.nprob < maxWalkProblems {
		v.finish()
	}
	if !v.t.indexed.Load() {
		return nil
	}
	for idx := idxMarket; idx <= idxPDC; idx++ {
		var got entrySum
		err := v.r.be.readIndex(ctx, v.t, idx, func(e *entry) error {
			got.add(idx, e)
			v.readOne()
			return nil
		})
		if err != nil {
			return fmt.Errorf("read through %s: %w", indexNames[idx], err)
		}
		v.counts[idx] = int64(got.n)
		if got != v.sums[idx] {
			v.problem("index", fmt.Sprintf("%s holds %d entries that are not the %d rows' (%s, transactionid)",
				indexNames[idx], got.n, v.rows, indexColumns[idx]))
		}
	}
	return nil
}

// readOne counts a row or index entry read, and beats every beatEvery of them.
func (v *verifier) readOne() {
	if v.read++; v.read%beatEvery == 0 {
		v.beat()
	}
}

// project adds the index entries that row calls for to the sums.
func (v *verifier) project(row *Row) {
	if !v.t.indexed.Load() {
		return
	}
	for idx := idxMarket; idx <= idxPDC; idx++ {
		e := entryOf(idx, row)
		v.sums[idx].add(idx, &e)
	}
}

// entryOf returns row's entry in secondary index idx.
func entryOf(idx int, r *Row) entry {
	switch idx {
	case idxMarket:
		return entry{r.ProductID, r.CustomerID, r.Price, r.ID}
	case idxRegister:
		return entry{r.CashRegisterID, r.CustomerID, r.Price, r.ID}
	}
	return entry{r.Price, r.DateAndTime, r.CustomerID, r.ID}
}

// start places the walk after the rows deleted: in strict mode after the first D rows of the
// ledger, else at its start.
func (v *verifier) start() {
	deleted := v.t.deleted.Load()
	v.si = 0
	if v.strict {
		for v.si < len(v.segs) && v.segs[v.si].rows() <= deleted {
			deleted -= v.segs[v.si].rows()
			v.gone += v.segs[v.si].rows()
			v.si++
		}
	}
	v.open(v.si, deleted)
}

// open makes segment si the walk's, with skip of its rows deleted (strict mode): with one
// writer they are its first ones; with several, each writer's first ones, found by the walk.
func (v *verifier) open(si int, skip int64) {
	v.si, v.curs, v.last, v.skip = si, v.curs[:0], 0, 0
	if si >= len(v.segs) {
		return
	}
	s := v.segs[si]
	for c, w := range s.writers {
		v.curs = append(v.curs, cursor{seg: s, c: c, n: w.inserted * int64(s.batch), anchored: v.strict})
	}
	switch {
	case !v.strict:
		for i := range v.curs {
			v.curs[i].anchored = false
		}
	case len(v.curs) == 1:
		v.curs[0].pos = skip
		v.gone += skip
	case skip > 0:
		for i := range v.curs {
			v.curs[i].anchored = false
		}
		v.skip = skip
	}
}

// next matches row with the rows the table must hold.
func (v *verifier) next(row *Row) {
	defer func() { v.prev = row.ID }()
	if v.advance(row) {
		return
	}
	// The next segment, when this one's rows are all there (or, strict, may be gone).
	for si := v.si + 1; si < len(v.segs) && (si == v.si+1 || !v.strict); si++ {
		if v.startsWith(v.segs[si], row) {
			v.close()
			for _, s := range v.segs[v.si+1 : si] {
				v.gone += s.rows() // passed over: deleted (subsequence check only)
			}
			v.open(si, 0)
			v.advance(row)
			return
		}
	}
	v.mismatch(row)
}

// advance matches row with a cursor of the segment: the next row of a writer, or, where rows
// may be gone, a later one.
func (v *verifier) advance(row *Row) bool {
	if len(v.curs) == 0 {
		return false
	}
	for i := range v.curs {
		c := (v.last + i) % len(v.curs)
		if cu := &v.curs[c]; cu.pos < cu.n && v.same(cu, cu.pos, row) {
			v.take(c, cu.pos)
			return true
		}
	}
	if v.strict {
		return v.anchor(row)
	}
	for c := range v.curs {
		cu := &v.curs[c]
		if p, ok := v.search(cu, cu.pos+1, cu.n, row); ok {
			v.gone += p - cu.pos
			v.take(c, p)
			return true
		}
	}
	return false
}

// anchor finds row among the rows of the writers not yet anchored in the segment the deletes
// cut into (strict mode): each writer lost about its share of the segment's deleted rows, so
// the search starts there for every writer at once and widens step by step.
func (v *verifier) anchor(row *Row) bool {
	var open []int
	var total int64
	for c := range v.curs {
		if cu := &v.curs[c]; !cu.anchored && cu.pos < cu.n {
			open = append(open, c)
			total += cu.n - cu.pos
		}
	}
	if len(open) == 0 {
		return false
	}
	est := make([]int64, len(open))
	for i, c := range open {
		cu := &v.curs[c]
		est[i] = cu.pos + int64(float64(max(v.skip, 0))*float64(cu.n-cu.pos)/float64(total))
	}
	for d, left := int64(0), true; left; d++ {
		left = false
		for i, c := range open {
			cu := &v.curs[c]
			for _, p := range [2]int64{est[i] + d, est[i] - d - 1} {
				if p < cu.pos || p >= cu.n {
					continue
				}
				left = true
				if v.same(cu, p, row) {
					v.gone += p - cu.pos
					v.skip -= p - cu.pos
					v.take(c, p)
					return true
				}
			}
		}
	}
	return false
}

// take moves cursor c past its row p, which matched.
func (v *verifier) take(c int, p int64) {
	cu := &v.curs[c]
	cu.pos, cu.anchored, v.last = p+1, true, c
	v.found++
}

// startsWith reports whether row is the first row of segment s that the walk may meet there:
// a writer's first row (strict), or any of its rows.
func (v *verifier) startsWith(s *segment, row *Row) bool {
	for c, w := range s.writers {
		cu := cursor{seg: s, c: c, n: w.inserted * int64(s.batch)}
		if cu.n > 0 && v.same(&cu, 0, row) {
			return true
		}
		if !v.strict {
			if _, ok := v.search(&cu, 1, cu.n, row); ok {
				return true
			}
		}
	}
	return false
}

// close ends the walk's segment: rows of an anchored writer after its cursor are missing
// (strict) or deleted; a writer never anchored lost all its rows to the deletes.
func (v *verifier) close() {
	for i := range v.curs {
		cu := &v.curs[i]
		left := cu.n - cu.pos
		if left <= 0 {
			continue
		}
		if v.strict && cu.anchored {
			v.problem("missing", fmt.Sprintf("%s missing%s: %s", plural(left, "row"), v.after(), v.describe(cu, cu.pos)))
			continue
		}
		v.gone += left
		if !cu.anchored {
			v.skip -= left
		}
		cu.pos = cu.n
	}
	switch {
	case v.strict && v.skip < 0:
		v.problem("missing", fmt.Sprintf("%s more of step %s gone than were deleted", plural(-v.skip, "row"), v.segs[v.si].step))
	case v.strict && v.skip > 0:
		v.problem("extra", fmt.Sprintf("%s of step %s left that were deleted", plural(v.skip, "row"), v.segs[v.si].step))
	}
	v.skip = 0
}

// after says where the walk is: after the previous row read.
func (v *verifier) after() string {
	if v.rows == 0 {
		return " (the table is empty)"
	}
	return fmt.Sprintf(" after transactionid %d", v.prev)
}

// finish closes the walk: every later segment's rows are missing (strict), and the rows gone
// must be the rows the deletes deleted.
func (v *verifier) finish() {
	v.close()
	for si := v.si + 1; si < len(v.segs); si++ {
		n := v.segs[si].rows()
		if v.strict {
			v.problem("missing", fmt.Sprintf("the %s of step %s missing", plural(n, "row"), v.segs[si].step))
		} else {
			v.gone += n
		}
	}
	if deleted := v.t.deleted.Load(); v.nprob == 0 && v.gone != deleted {
		v.problem("missing", fmt.Sprintf("%s gone, %d deleted", plural(v.gone, "row"), deleted))
	}
}

// mismatch records a row that matches none the walk expects. When a writer's next row is
// missing, the row is found further on in its rows; a row that differs from a writer's next
// row in a column or two is that row, altered; any other row is extra.
func (v *verifier) mismatch(row *Row) {
	for i := range v.curs {
		c := (v.last + i) % len(v.curs)
		cu := &v.curs[c]
		if p, ok := v.search(cu, cu.pos+1, min(cu.n, cu.pos+1+lookahead), row); ok {
			v.problem("missing", fmt.Sprintf("%s missing before transactionid %d: %s", plural(p-cu.pos, "row"), row.ID, v.describe(cu, cu.pos)))
			v.take(c, p)
			return
		}
	}
	best, alike := -1, 0
	for c := range v.curs {
		if cu := &v.curs[c]; cu.pos < cu.n {
			v.expect(cu, cu.pos)
			if n := sameColumns(&v.exp, row); n > alike {
				best, alike = c, n
			}
		}
	}
	if alike >= 4 {
		cu := &v.curs[best]
		v.expect(cu, cu.pos)
		if !v.r.be.assignsKeys() {
			v.exp.ID = row.ID // the engine's, not the generator's
		}
		v.problem("altered", fmt.Sprintf("transactionid %d %s: %s", row.ID, values(row), diff(&v.exp, row)))
		v.take(best, cu.pos)
		v.found--
		return
	}
	where := "not a row inserted there"
	if len(v.curs) == 0 {
		where = "after the last row inserted"
	}
	v.problem("extra", fmt.Sprintf("transactionid %d %s: %s", row.ID, values(row), where))
}

// sameColumns counts the columns but transactionid in which a and b agree.
func sameColumns(a, b *Row) int {
	n := 0
	for _, eq := range []bool{a.DateAndTime == b.DateAndTime, a.CashRegisterID == b.CashRegisterID,
		a.CustomerID == b.CustomerID, a.ProductID == b.ProductID, a.Price == b.Price, bytes.Equal(a.Data, b.Data)} {
		if eq {
			n++
		}
	}
	return n
}

// plural returns "n thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// expect sets v.exp to the row at position p of cu's writer, as stored.
func (v *verifier) expect(cu *cursor, p int64) {
	s, b := cu.seg, int64(cu.seg.batch)
	j := p / b
	sec := s.writers[cu.c].secOf(j)
	v.expData = v.gen.rowAt(&v.exp, s.key(cu.c, j, int(p%b)), sec, v.expData[:0])
	v.exp.Data = v.expData
	if sec != v.sec || !v.secSet {
		v.sec, v.secSet, v.stored = sec, true, v.r.be.storedTime(sec)
	}
	v.exp.DateAndTime = v.stored
}

// same reports whether row holds the values of the row at position p of cu's writer.
func (v *verifier) same(cu *cursor, p int64, row *Row) bool {
	v.expect(cu, p)
	e := &v.exp
	return e.CashRegisterID == row.CashRegisterID && e.ProductID == row.ProductID && e.CustomerID == row.CustomerID &&
		e.Price == row.Price && e.DateAndTime == row.DateAndTime && bytes.Equal(e.Data, row.Data) &&
		(!v.r.be.assignsKeys() || e.ID == row.ID)
}

// search returns the first position in [from, to) of cu's writer whose row row is.
func (v *verifier) search(cu *cursor, from, to int64, row *Row) (int64, bool) {
	for p := from; p < to; p++ {
		if v.same(cu, p, row) {
			return p, true
		}
	}
	return 0, false
}

// describe names the row at position p of cu's writer.
func (v *verifier) describe(cu *cursor, p int64) string {
	v.expect(cu, p)
	return fmt.Sprintf("the first is insert #%d of step %s %s", v.exp.Key, cu.seg.step, values(&v.exp))
}

// problem records a problem of kind.
func (v *verifier) problem(kind, what string) {
	v.nprob++
	v.kinds[kind]++
	if len(v.problems) < maxProblems {
		v.problems = append(v.problems, what)
	}
}

func (v *verifier) ok() bool {
	if v.nprob > 0 {
		return false
	}
	for idx, n := range v.counts {
		if (idx == idxPK || v.t.indexed.Load()) && n != v.want {
			return false
		}
	}
	return true
}

// summary is the table's part of the detail: what must be there, what each index held, and
// the problems.
func (v *verifier) summary() string {
	parts := []string{fmt.Sprintf("%s: expected %d", v.t.name, v.want)}
	for idx, n := range v.counts {
		if idx == idxPK || v.t.indexed.Load() {
			parts = append(parts, fmt.Sprintf("%s=%d", indexNames[idx], n))
		}
	}
	s := strings.Join(parts, " ")
	if v.ok() {
		return s + ", every row and entry as inserted"
	}
	var kinds []string
	for _, k := range []string{"missing", "extra", "altered", "index"} {
		if n := v.kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(kinds) > 0 {
		s += " (problems: " + strings.Join(kinds, ", ") + ")"
	}
	if v.nprob >= maxWalkProblems {
		s += " (the walk stopped after that many)"
	}
	if len(v.problems) > 0 {
		s += ": " + strings.Join(v.problems, "; ")
	}
	return s
}

// values shows a row's columns.
func values(r *Row) string {
	return fmt.Sprintf("(dateandtime=%d cashregisterid=%d customerid=%d productid=%d price=%d data=%q)",
		r.DateAndTime, r.CashRegisterID, r.CustomerID, r.ProductID, r.Price, r.Data)
}

// diff names the columns in which got differs from want.
func diff(want, got *Row) string {
	var d []string
	add := func(col string, w, g any) { d = append(d, fmt.Sprintf("%s %v, expected %v", col, g, w)) }
	if want.DateAndTime != got.DateAndTime {
		add("dateandtime", want.DateAndTime, got.DateAndTime)
	}
	if want.CashRegisterID != got.CashRegisterID {
		add("cashregisterid", want.CashRegisterID, got.CashRegisterID)
	}
	if want.CustomerID != got.CustomerID {
		add("customerid", want.CustomerID, got.CustomerID)
	}
	if want.ProductID != got.ProductID {
		add("productid", want.ProductID, got.ProductID)
	}
	if want.Price != got.Price {
		add("price", want.Price, got.Price)
	}
	if !bytes.Equal(want.Data, got.Data) {
		add("data", fmt.Sprintf("%q", want.Data), fmt.Sprintf("%q", got.Data))
	}
	if want.ID != got.ID {
		add("transactionid", want.ID, got.ID)
	}
	if len(d) == 0 {
		return "as expected"
	}
	return "altered: " + strings.Join(d, ", ")
}
