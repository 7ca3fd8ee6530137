package kv

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

func TestNewLayoutErrors(t *testing.T) {
	cases := []struct {
		name   string
		ranges []Range
		want   string
	}{
		{"no name", []Range{{Prefix: []byte("a")}}, "needs a name"},
		{"no prefix", []Range{{Name: "a"}}, "needs a name and a prefix"},
		{"bad name", []Range{{Name: "a-b", Prefix: []byte("a")}}, "only letters"},
		{"twice", []Range{{Name: "a", Prefix: []byte("a")}, {Name: "a", Prefix: []byte("b")}}, "declared twice"},
		{"nested", []Range{{Name: "long", Prefix: []byte("ab")}, {Name: "short", Prefix: []byte("a")}}, "starts prefix"},
		{"same prefix", []Range{{Name: "x", Prefix: []byte("a")}, {Name: "y", Prefix: []byte("a")}}, "starts prefix"},
	}
	for _, c := range cases {
		if _, err := NewLayout(c.ranges); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
	if _, err := NewLayout([]Range{{Name: "a", Prefix: []byte("ab")}, {Name: "b", Prefix: []byte("ac")}}); err != nil {
		t.Errorf("sibling prefixes: %v", err)
	}
}

func TestLayoutWith(t *testing.T) {
	l, err := NewLayout([]Range{{Name: "pk", Prefix: []byte{1}}})
	if err != nil {
		t.Fatal(err)
	}
	next, added, err := l.With([]Range{{Name: "pk", Prefix: []byte{1}}, {Name: "idx", Prefix: []byte{2}, Secondary: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || added[0].Name != "idx" || len(next.Ranges()) != 2 || len(l.Ranges()) != 1 {
		t.Errorf("With: added %v, next %v, old %v", added, next.Ranges(), l.Ranges())
	}
	if _, _, err := next.With([]Range{{Name: "other", Prefix: []byte{1}}}); err == nil {
		t.Error("With: a prefix declared again under another name was accepted")
	}
	if _, _, err := next.With([]Range{{Name: "idx", Prefix: []byte{2}}}); err == nil {
		t.Error("With: a secondary range declared again as primary was accepted")
	}
}

func TestLayoutFind(t *testing.T) {
	l, err := NewLayout([]Range{{Name: "b", Prefix: []byte("b")}, {Name: "dd", Prefix: []byte("dd")}, {Name: "ff", Prefix: []byte{0xff}}})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int{"": 0, "a": 0, "b": 1, "b\x00": 1, "bzz": 1, "c": 0, "d": 0, "dd": 2, "dda": 2, "de": 0, "\xff": 3, "\xff\xff": 3} {
		if got := l.Find([]byte(key)); got != want {
			t.Errorf("Find(%q) = %d, want %d", key, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { l.Find([]byte("dda")) }); n != 0 {
		t.Errorf("Find allocates %v times", n)
	}
}

// memCursor is a Cursor over sorted keys (the value is the key).
type memCursor struct {
	keys [][]byte
	pos  int
}

func (c *memCursor) at() ([]byte, []byte, bool, error) {
	if c.pos < 0 || c.pos >= len(c.keys) {
		return nil, nil, false, nil
	}
	return c.keys[c.pos], c.keys[c.pos], true, nil
}
func (c *memCursor) First() ([]byte, []byte, bool, error) { c.pos = 0; return c.at() }
func (c *memCursor) Last() ([]byte, []byte, bool, error)  { c.pos = len(c.keys) - 1; return c.at() }
func (c *memCursor) Next() ([]byte, []byte, bool, error)  { c.pos++; return c.at() }
func (c *memCursor) Prev() ([]byte, []byte, bool, error)  { c.pos--; return c.at() }
func (c *memCursor) Close() error                         { return nil }
func (c *memCursor) SeekGE(k []byte) ([]byte, []byte, bool, error) {
	c.pos = sort.Search(len(c.keys), func(i int) bool { return bytes.Compare(c.keys[i], k) >= 0 })
	return c.at()
}

// partitioned keeps keys in one memCursor per part, as an engine with a table per range does;
// the spans of part 0 share its cursor.
type partitioned struct {
	l       *Layout
	cursors []*memCursor
}

func newPartitioned(l *Layout, keys []string) *partitioned {
	p := &partitioned{l: l, cursors: make([]*memCursor, len(l.Ranges())+1)}
	for i := range p.cursors {
		p.cursors[i] = &memCursor{}
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := p.cursors[l.Find([]byte(k))]
		c.keys = append(c.keys, []byte(k))
	}
	return p
}

func (p *partitioned) iter(lower, upper []byte) Iter {
	spans := p.l.Split(lower, upper, nil)
	parts := make([]Iter, len(spans))
	uppers := make([][]byte, len(spans))
	for i, s := range spans {
		parts[i] = NewBoundedIter(p.cursors[s.Part], s.Lower, s.Upper)
		uppers[i] = s.Upper
	}
	return NewConcatIter(parts, uppers, nil)
}

// randomKey returns a short key over a small alphabet, so that keys fall in and around ranges.
func randomKey(r *rand.Rand) string {
	b := make([]byte, 1+r.Intn(3))
	for i := range b {
		b[i] = "ab\x00\xff"[r.Intn(4)]
	}
	return string(b)
}

// TestSplitConcat checks, on random layouts, keys and bounds, that iterating over the spans of
// Split with NewConcatIter visits exactly the keys in the bounds, in order both ways, and that
// SeekGE lands where a sorted list says.
func TestSplitConcat(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 400; round++ {
		var ranges []Range
		for i, n := 0, r.Intn(4); i < n; i++ {
			ranges = append(ranges, Range{Name: fmt.Sprintf("r%d", i), Prefix: []byte(randomKey(r))})
		}
		l, err := NewLayout(ranges)
		if err != nil {
			continue // nested prefixes
		}
		var keys []string
		seen := map[string]bool{}
		for i := 0; i < 30; i++ {
			if k := randomKey(r); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		p := newPartitioned(l, keys)
		var lower, upper []byte
		if r.Intn(3) > 0 {
			lower = []byte(randomKey(r))
		}
		if r.Intn(3) > 0 {
			upper = []byte(randomKey(r))
		}
		var want []string
		for _, k := range keys { // sorted by newPartitioned
			if (lower == nil || k >= string(lower)) && (upper == nil || k < string(upper)) {
				want = append(want, k)
			}
		}
		desc := fmt.Sprintf("round %d: ranges %+v, bounds [%q, %q)", round, ranges, lower, upper)
		// Spans are in order, within the bounds, and each lies in its part.
		spans := l.Split(lower, upper, nil)
		for i, s := range spans {
			if s.Lower != nil && s.Upper != nil && bytes.Compare(s.Lower, s.Upper) >= 0 {
				t.Fatalf("%s: empty span %d %+v", desc, i, s)
			}
			if i > 0 && !bytes.Equal(spans[i-1].Upper, s.Lower) {
				t.Fatalf("%s: spans %d and %d do not meet: %+v %+v", desc, i-1, i, spans[i-1], s)
			}
			if s.Lower != nil && l.Find(s.Lower) != s.Part {
				t.Fatalf("%s: span %+v starts in part %d", desc, s, l.Find(s.Lower))
			}
		}
		it := p.iter(lower, upper)
		var fwd, bwd []string
		for ok := it.First(); ok; ok = it.Next() {
			fwd = append(fwd, string(it.Key()))
		}
		for ok := it.Last(); ok; ok = it.Prev() {
			bwd = append([]string{string(it.Key())}, bwd...)
		}
		if fmt.Sprint(fwd) != fmt.Sprint(want) || fmt.Sprint(bwd) != fmt.Sprint(want) {
			t.Fatalf("%s: forward %q, backward %q, want %q", desc, fwd, bwd, want)
		}
		for i := 0; i < 10; i++ {
			seek := randomKey(r)
			wantAt := ""
			for _, k := range want {
				if k >= seek {
					wantAt = k
					break
				}
			}
			ok := it.SeekGE([]byte(seek))
			if got := string(it.Key()); ok != (wantAt != "") || got != wantAt {
				t.Fatalf("%s: SeekGE(%q) = %v %q, want %q", desc, seek, ok, got, wantAt)
			}
			if ok && it.Prev() { // and back: the key before it in the bounds
				j := sort.SearchStrings(want, wantAt)
				if j == 0 || string(it.Key()) != want[j-1] {
					t.Fatalf("%s: Prev after SeekGE(%q) = %q", desc, seek, it.Key())
				}
			}
		}
		if err := it.Close(); err != nil || it.First() || it.Err() == nil {
			t.Fatalf("%s: close %v, then First valid %v err %v", desc, err, it.Valid(), it.Err())
		}
	}
}

func TestConcatReleaseOnce(t *testing.T) {
	released := 0
	it := NewConcatIter(nil, nil, func() error { released++; return nil })
	if it.First() || it.Last() || it.SeekGE([]byte("a")) {
		t.Error("an iterator of no parts is valid")
	}
	it.Close()
	it.Close()
	if released != 1 {
		t.Errorf("released %d times, want 1", released)
	}
}
