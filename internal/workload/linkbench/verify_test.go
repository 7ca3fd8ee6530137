package linkbench

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/store"
)

// rawTables writes the tables behind the store's back, as damage would: a put replaces a row
// (and, on a key-value engine, its id1_type entry), with every column as given.
type rawTables interface {
	putLink(t *testing.T, l store.Link)
	delLink(t *testing.T, l store.Link)
	putNode(t *testing.T, n store.Node)
	delNode(t *testing.T, id int64)
	putCount(t *testing.T, c store.Count)
}

// sqlTables damages an SQL engine's tables with plain statements.
type sqlTables struct{ db sqldb.DB }

func (s sqlTables) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := s.db.SQL().ExecContext(context.Background(), sqldb.Bind(s.db.Dialect(), q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func (s sqlTables) putLink(t *testing.T, l store.Link) {
	t.Helper()
	s.delLink(t, l)
	s.exec(t, "INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)",
		l.ID1, l.ID2, l.LinkType, int64(l.Visibility), l.Data, l.Version, l.Time)
}

func (s sqlTables) delLink(t *testing.T, l store.Link) {
	t.Helper()
	s.exec(t, "DELETE FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ?", l.ID1, l.ID2, l.LinkType)
}

func (s sqlTables) putNode(t *testing.T, n store.Node) {
	t.Helper()
	s.delNode(t, n.ID)
	s.exec(t, "INSERT INTO nodetable (id, type, version, time, data) VALUES (?, ?, ?, ?, ?)",
		n.ID, int64(n.Type), n.Version, int64(n.Time), n.Data)
}

func (s sqlTables) delNode(t *testing.T, id int64) {
	t.Helper()
	s.exec(t, "DELETE FROM nodetable WHERE id = ?", id)
}

func (s sqlTables) putCount(t *testing.T, c store.Count) {
	t.Helper()
	s.exec(t, "UPDATE counttable SET count = ?, time = ?, version = ? WHERE id = ? AND link_type = ?",
		c.Count, c.Time, c.Version, c.ID1, c.LinkType)
}

// kvTables damages a key-value engine's ranges, in the layout of docs/linkbench.md.
type kvTables struct{ db kv.DB }

func (s kvTables) commit(t *testing.T, f func(b kv.Batch)) {
	t.Helper()
	b := s.db.NewBatch()
	defer b.Close()
	f(b)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func linkKey(l store.Link) []byte {
	return kv.AppendInt64(kv.AppendInt64(kv.AppendInt64([]byte{'l'}, l.LinkType), l.ID1), l.ID2)
}

func indexKey(l store.Link) []byte {
	k := append(kv.AppendInt64(kv.AppendInt64([]byte{'i'}, l.ID1), l.LinkType), byte(l.Visibility))
	return kv.AppendInt64(kv.AppendInt64(k, l.Time), l.ID2)
}

// stored returns the link stored under l's key, if any.
func (s kvTables) stored(t *testing.T, l store.Link) (store.Link, bool) {
	t.Helper()
	v, ok, err := s.db.Get(linkKey(l), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return store.Link{}, false
	}
	old := l
	old.Visibility, old.Time = int8(v[0]), int64(binary.BigEndian.Uint64(v[1:]))
	return old, true
}

func (s kvTables) putLink(t *testing.T, l store.Link) {
	t.Helper()
	s.delLink(t, l)
	val := append(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte{byte(l.Visibility)}, uint64(l.Time)), uint64(l.Version)), l.Data...)
	s.commit(t, func(b kv.Batch) {
		b.Set(linkKey(l), val)
		b.Set(indexKey(l), val[9:])
	})
}

func (s kvTables) delLink(t *testing.T, l store.Link) {
	t.Helper()
	old, ok := s.stored(t, l)
	if !ok {
		return
	}
	s.commit(t, func(b kv.Batch) {
		b.Delete(linkKey(old))
		b.Delete(indexKey(old))
	})
}

func nodeKey(id int64) []byte { return kv.AppendInt64([]byte{'n'}, id) }

func (s kvTables) putNode(t *testing.T, n store.Node) {
	t.Helper()
	val := binary.BigEndian.AppendUint32(nil, uint32(n.Type))
	val = binary.BigEndian.AppendUint64(val, uint64(n.Version))
	val = append(binary.BigEndian.AppendUint32(val, uint32(n.Time)), n.Data...)
	s.commit(t, func(b kv.Batch) { b.Set(nodeKey(n.ID), val) })
}

func (s kvTables) delNode(t *testing.T, id int64) {
	t.Helper()
	s.commit(t, func(b kv.Batch) { b.Delete(nodeKey(id)) })
}

func (s kvTables) putCount(t *testing.T, c store.Count) {
	t.Helper()
	val := binary.BigEndian.AppendUint64(nil, uint64(c.Count))
	val = binary.BigEndian.AppendUint64(val, uint64(c.Time))
	val = binary.BigEndian.AppendUint64(val, uint64(c.Version))
	s.commit(t, func(b kv.Batch) { b.Set(kv.AppendInt64(kv.AppendInt64([]byte{'c'}, c.ID1), c.LinkType), val) })
}

// verifiedRun loads a small graph on eng and runs one short request interval, verified at its
// end; it returns the run, whose verify the test calls again.
func verifiedRun(t *testing.T, ctx context.Context, eng engine.Engine, variant workload.Variant) *run {
	t.Helper()
	return verifiedRunOf(t, ctx, eng, variant, func(p *Params) { smallDegrees(t, p) })
}

// verifiedRunOf is verifiedRun with the parameters changed by size, which gives the graph's
// size and degrees.
func verifiedRunOf(t *testing.T, ctx context.Context, eng engine.Engine, variant workload.Variant, size func(p *Params)) *run {
	t.Helper()
	p := tinyParams(t)
	// A request limit leaves most id1s untouched whatever the engine's speed.
	p.MaxID1, p.Intervals, p.IntervalSeconds, p.Requests, p.Variant = 2001, 1, 60, 400, variant
	size(&p) // each damage is verified twice: over every link
	w := mustNew(t, p)
	st, err := store.Open(eng, store.Options{Corrected: w.p.Corrected()})
	if err != nil {
		t.Fatal(err)
	}
	r := w.newRun(ctx, workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}, eng, st)
	if s := r.load(ctx); s.Status != result.StatusOK {
		t.Fatalf("load: %s %s", s.Status, s.Error)
	}
	var steps []*result.Step
	if err := r.requestPhase(ctx, func(s *result.Step) { steps = append(steps, s) }); err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	if last.Verify == nil || !last.Verify.OK || r.tally.linksInserted == 0 || r.tally.nodesAdded == 0 {
		t.Fatalf("%s: %s, verify %+v, tally %+v", last.Name, last.Status, last.Verify, r.tally)
	}
	t.Logf("undamaged: %s", last.Verify.Detail)
	return r
}

// links returns copies of the links of (id1, type index 0) through the primary key.
func (r *run) testLinks(t *testing.T, id1 int64) []store.Link {
	t.Helper()
	var out []store.Link
	err := r.st.ScanLinks(context.Background(), linkType(0), id1, id1+1, func(l *store.Link) error {
		cp := *l
		cp.Data = bytes.Clone(l.Data)
		out = append(out, cp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testNodes returns copies of the nodes of [lo, hi).
func (r *run) testNodes(t *testing.T, lo, hi int64) []store.Node {
	t.Helper()
	var out []store.Node
	err := r.st.ScanNodes(context.Background(), lo, hi, func(n *store.Node) error {
		cp := *n
		cp.Data = bytes.Clone(n.Data)
		out = append(out, cp)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// untouched returns an id1 of at least minLinks links of type index 0 that no request wrote
// and whose nodes id1 and id1+1 no request touched.
func (r *run) untouched(t *testing.T, minLinks int64) int64 {
	t.Helper()
	for id1 := r.p.StartID1; id1+1 < r.p.MaxID1; id1++ {
		if !r.linksTouched.has(id1) && !r.nodesTouched.has(id1) && !r.nodesTouched.has(id1+1) && r.m.deg.PerType(id1, 0) >= minLinks {
			return id1
		}
	}
	t.Fatalf("no id1 untouched by the requests with %d links", minLinks)
	return 0
}

// requestWritten returns a link a request wrote (version not the load's).
func (r *run) requestWritten(t *testing.T) store.Link {
	t.Helper()
	for id1 := r.p.StartID1; id1 < r.p.MaxID1; id1++ {
		if !r.linksTouched.has(id1) {
			continue
		}
		for _, l := range r.testLinks(t, id1) {
			if l.Version != loadLinkVersion {
				return l
			}
		}
	}
	t.Fatal("no link written by a request")
	return store.Link{}
}

// damageCases apply damage to a verified run and return the undo; verification must then
// fail naming what the detail holds.
type damageCase struct {
	name   string
	damage func(t *testing.T, r *run, raw rawTables) (undo func())
	detail []string
}

func damageCases() []damageCase {
	flip := func(b []byte) []byte {
		b = bytes.Clone(b)
		if len(b) == 0 {
			return []byte{'x'}
		}
		b[len(b)/2] ^= 0x20
		return b
	}
	return []damageCase{
		{"a deleted link balanced by a duplicate of another under its key", func(t *testing.T, r *run, raw rawTables) func() {
			ls := r.testLinks(t, r.untouched(t, 2))
			dup := ls[1]
			dup.ID2 = ls[0].ID2
			raw.putLink(t, dup)
			return func() { raw.putLink(t, ls[0]) }
		}, []string{"differs from what the load wrote"}},
		{"a deleted link balanced by a duplicate under a new id2", func(t *testing.T, r *run, raw rawTables) func() {
			ls := r.testLinks(t, r.untouched(t, 2))
			dup := ls[1]
			dup.ID2 = dup.ID1 + int64(len(ls))
			raw.delLink(t, ls[0])
			raw.putLink(t, dup)
			return func() { raw.delLink(t, dup); raw.putLink(t, ls[0]) }
		}, []string{"the load wrote no such link", "no request wrote any"}},
		{"altered payloads, loaded and written by a request", func(t *testing.T, r *run, raw rawTables) func() {
			ls := r.testLinks(t, r.untouched(t, 2))
			req := r.requestWritten(t)
			for _, l := range []store.Link{ls[0], ls[1], req} {
				l.Data = flip(l.Data)
				raw.putLink(t, l)
			}
			return func() {
				for _, l := range []store.Link{ls[0], ls[1], req} {
					raw.putLink(t, l)
				}
			}
		}, []string{"differs from what the load wrote", "is not the one its key and version give"}},
		{"an altered version", func(t *testing.T, r *run, raw rawTables) func() {
			ls := r.testLinks(t, r.untouched(t, 1))
			l := ls[0]
			l.Version = 7
			raw.putLink(t, l)
			return func() { raw.putLink(t, ls[0]) }
		}, []string{"has version 7, but no request wrote a link of id1"}},
		{"a deleted node", func(t *testing.T, r *run, raw rawTables) func() {
			id := r.untouched(t, 0)
			n := r.testNodes(t, id, id+1)[0]
			raw.delNode(t, id)
			return func() { raw.putNode(t, n) }
		}, []string{"nodetable has", "is missing, and no request deleted it"}},
		{"a deleted node balanced by a duplicate of its neighbour", func(t *testing.T, r *run, raw rawTables) func() {
			id := r.untouched(t, 0)
			ns := r.testNodes(t, id, id+2)
			dup := ns[1]
			dup.ID = id
			raw.putNode(t, dup)
			return func() { raw.putNode(t, ns[0]) }
		}, []string{"differs from what the load wrote"}},
		{"a deleted node balanced by a copy of an added one", func(t *testing.T, r *run, raw rawTables) func() {
			id := r.untouched(t, 0)
			n := r.testNodes(t, id, id+1)[0]
			added := r.testNodes(t, r.p.MaxID1, math.MaxInt64)
			dup := added[0]
			dup.ID = added[len(added)-1].ID + 1000
			raw.delNode(t, id)
			raw.putNode(t, dup)
			return func() { raw.delNode(t, dup.ID); raw.putNode(t, n) }
		}, []string{"is missing, and no request deleted it", "nodes past the loaded ids, but requests added"}},
		{"an added node replaced by a duplicate of another", func(t *testing.T, r *run, raw rawTables) func() {
			added := r.testNodes(t, r.p.MaxID1, math.MaxInt64)
			dup := added[1]
			dup.ID = added[0].ID
			raw.putNode(t, dup)
			return func() { raw.putNode(t, added[0]) }
		}, []string{"are not the ones requests added: some are there twice, others missing"}},
		{"a changed count", func(t *testing.T, r *run, raw rawTables) func() {
			id1 := r.untouched(t, 1)
			n := r.m.deg.PerType(id1, 0)
			ls := r.testLinks(t, id1)
			var newest int64
			for _, l := range ls {
				newest = max(newest, l.Time)
			}
			c := store.Count{ID1: id1, LinkType: linkType(0), Count: n, Time: newest}
			raw.putCount(t, store.Count{ID1: id1, LinkType: linkType(0), Count: n + 1, Time: newest})
			return func() { raw.putCount(t, c) }
		}, []string{"visible links"}},
	}
}

// testDamage verifies r after each damage (failing with the case's detail) and after its
// undo (passing).
func testDamage(t *testing.T, r *run, raw rawTables, extra ...damageCase) {
	ctx := context.Background()
	for _, c := range append(damageCases(), extra...) {
		undo := c.damage(t, r, raw)
		v, canceled := r.verify(ctx, func() {})
		if canceled || v == nil || v.OK {
			t.Errorf("%s: verification passed: %+v", c.name, v)
		} else {
			for _, d := range c.detail {
				if !strings.Contains(v.Detail, d) {
					t.Errorf("%s: detail %q lacks %q", c.name, v.Detail, d)
				}
			}
			t.Logf("%s: %s", c.name, v.Detail)
		}
		undo()
		if v, _ := r.verify(ctx, func() {}); v == nil || !v.OK {
			t.Fatalf("%s undone: verification failed: %+v", c.name, v)
		}
	}
}

// indexDamage loses a link's id1_type entry and duplicates another's in its place (key-value
// engines, whose index the store writes).
func indexDamage() damageCase {
	return damageCase{"an id1_type entry lost and another duplicated", func(t *testing.T, r *run, raw rawTables) func() {
		s := raw.(kvTables)
		ls := r.testLinks(t, r.untouched(t, 2))
		dup := ls[1]
		dup.Time++ // a second entry of the same link
		val := binary.BigEndian.AppendUint64(nil, uint64(dup.Version))
		s.commit(t, func(b kv.Batch) {
			b.Delete(indexKey(ls[0]))
			b.Set(indexKey(dup), append(val, dup.Data...))
		})
		return func() {
			s.commit(t, func(b kv.Batch) { b.Delete(indexKey(dup)) })
			raw.putLink(t, ls[0])
		}
	}, []string{"id1_type and the primary key hold"}}
}

// TestVerificationFindsDamage damages the tables of a verified run on SQLite and Pebble behind
// the store's back: a deleted link balanced by a duplicate, altered payloads and versions,
// deleted and duplicated nodes, a changed count, a lost index entry. Verification fails naming
// each, and passes once it is undone. Pebble runs both variants (the reference's payload
// motifs are per client; its load holds about a million links whatever the size).
func TestVerificationFindsDamage(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		ctx := context.Background()
		eng := open(t, ctx, sqldb.SQLiteDriver(), nil, t.TempDir())
		testDamage(t, verifiedRun(t, ctx, eng, workload.Corrected), sqlTables{eng.(sqldb.DB)})
	})
	for _, v := range []workload.Variant{workload.Reference, workload.Corrected} {
		t.Run("pebble/"+string(v), func(t *testing.T) {
			ctx := context.Background()
			eng := open(t, ctx, pebble.Driver(), nil, t.TempDir())
			testDamage(t, verifiedRun(t, ctx, eng, v), kvTables{eng.(kv.DB)}, indexDamage())
		})
	}
}

// TestServerVerificationFindsDamage is TestVerificationFindsDamage on managed PostgreSQL and
// MariaDB InnoDB servers (the corrected variant, whose load is small at any size).
func TestServerVerificationFindsDamage(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers()[:2], func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, _ := c.Start(t, ctx, false)
		testDamage(t, verifiedRun(t, ctx, eng, workload.Corrected), sqlTables{eng.(sqldb.DB)})
	})
}
