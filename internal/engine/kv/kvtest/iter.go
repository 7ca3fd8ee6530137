package kvtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// tenKeys writes k0 .. k9 with values v0 .. v9.
func tenKeys(t *testing.T, db kv.DB) {
	t.Helper()
	var pairs []kvPair
	for i := 0; i < 10; i++ {
		pairs = append(pairs, kvPair{fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)})
	}
	write(t, db, pairs...)
}

func keyRange(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("k%d", i))
	}
	return out
}

func testIterBounds(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	cases := []struct {
		lower, upper string
		want         []string
	}{
		{"k2", "k5", keyRange(2, 5)},         // inclusive lower, exclusive upper
		{"k2", "k2\x00", keyRange(2, 3)},     // the smallest range holding one key
		{"k1\x00", "k4\x00", keyRange(2, 5)}, // bounds between keys
		{"k", "l", keyRange(0, 10)},
		{"", "k3", append([]string{"a"}, keyRange(0, 3)...)},
		{"k7", "", append(keyRange(7, 10), "z")},
		{"", "", append(append([]string{"a"}, keyRange(0, 10)...), "z")},
		{"k9", "z", keyRange(9, 10)},
	}
	for _, c := range cases {
		if got := scan(t, db, c.lower, c.upper); !equalStrings(got, c.want) {
			t.Errorf("[%q, %q): %q, want %q", c.lower, c.upper, got, c.want)
		}
	}
	// Key and Value of each position.
	it := newIter(t, db, "k2", "k5")
	defer closeIter(t, it)
	if !it.First() || string(it.Key()) != "k2" || string(it.Value()) != "v2" {
		t.Fatalf("First: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
	if !it.Last() || string(it.Key()) != "k4" || string(it.Value()) != "v4" {
		t.Fatalf("Last: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
	if !it.Prev() || string(it.Key()) != "k3" || string(it.Value()) != "v3" {
		t.Fatalf("Prev: valid %v key %q value %q", it.Valid(), it.Key(), it.Value())
	}
}

func testIterSeekGE(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	it := newIter(t, db, "k2", "k7")
	defer closeIter(t, it)
	cases := []struct {
		seek, want string // want "" means invalid
	}{
		{"k4", "k4"},     // exact
		{"k4\x00", "k5"}, // between keys
		{"k2", "k2"},     // the lower bound
		{"k", "k2"},      // before the range: clamped to the lower bound
		{"a", "k2"},      // a key that exists, below the range
		{"k6", "k6"},     // the last key in range
		{"k6\x00", ""},   // after the last key in range
		{"k7", ""},       // the upper bound
		{"z", ""},        // after the range, a key that exists
	}
	for _, c := range cases {
		ok := it.SeekGE([]byte(c.seek))
		if ok != it.Valid() {
			t.Errorf("SeekGE(%q) returned %v but Valid is %v", c.seek, ok, it.Valid())
		}
		switch {
		case c.want == "" && ok:
			t.Errorf("SeekGE(%q) = %q, want invalid", c.seek, it.Key())
		case c.want != "" && !ok:
			t.Errorf("SeekGE(%q) invalid, want %q", c.seek, c.want)
		case c.want != "" && string(it.Key()) != c.want:
			t.Errorf("SeekGE(%q) = %q, want %q", c.seek, it.Key(), c.want)
		}
	}
	// Iteration continues from a seek.
	if !it.SeekGE([]byte("k5")) || !it.Next() || string(it.Key()) != "k6" || it.Next() {
		t.Errorf("SeekGE(k5), Next, Next: not k6 then the end")
	}
	// Unbounded iterator.
	it2 := newIter(t, db, "", "")
	defer closeIter(t, it2)
	if !it2.SeekGE([]byte("k95")) || string(it2.Key()) != "z" {
		t.Errorf("unbounded SeekGE(k95): valid %v, want z", it2.Valid())
	}
	if it2.SeekGE([]byte("zz")) {
		t.Errorf("unbounded SeekGE(zz) = %q, want invalid", it2.Key())
	}
	if !it2.SeekGE(nil) || string(it2.Key()) != "a" {
		t.Errorf("unbounded SeekGE(nil): want a")
	}
}

func testIterDirectionChange(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	it := newIter(t, db, "k1", "k9")
	defer closeIter(t, it)
	step := func(name string, ok bool, want string) {
		t.Helper()
		switch {
		case want == "" && ok:
			t.Fatalf("%s: at %q, want invalid", name, it.Key())
		case want != "" && (!ok || string(it.Key()) != want):
			t.Fatalf("%s: valid %v at %q, want %q", name, ok, it.Key(), want)
		}
	}
	step("First", it.First(), "k1")
	step("Prev", it.Prev(), "")
	step("First", it.First(), "k1")
	step("Next", it.Next(), "k2")
	step("Next", it.Next(), "k3")
	step("Prev", it.Prev(), "k2")
	step("Next", it.Next(), "k3")
	step("Last", it.Last(), "k8")
	step("Next", it.Next(), "")
	step("Last", it.Last(), "k8")
	step("Prev", it.Prev(), "k7")
	step("Next", it.Next(), "k8")
	step("SeekGE", it.SeekGE([]byte("k5")), "k5")
	step("Prev", it.Prev(), "k4")
}

func testIterEmptyRange(t *testing.T, open Opener) {
	db := openDB(t, open)
	// An empty database.
	for _, r := range [][2]string{{"", ""}, {"a", "b"}} {
		it := newIter(t, db, r[0], r[1])
		if it.First() || it.Last() || it.SeekGE([]byte("a")) || it.Valid() {
			t.Errorf("empty database [%q, %q): iterator positioned", r[0], r[1])
		}
		closeIter(t, it)
	}
	tenKeys(t, db)
	for _, r := range [][2]string{{"k5", "k5"}, {"k5\x00", "k6"}, {"a", "b"}, {"l", ""}, {"", "k0"}} {
		it := newIter(t, db, r[0], r[1])
		if it.First() {
			t.Errorf("[%q, %q): First at %q", r[0], r[1], it.Key())
		}
		if it.Last() {
			t.Errorf("[%q, %q): Last at %q", r[0], r[1], it.Key())
		}
		if it.SeekGE([]byte(r[0])) {
			t.Errorf("[%q, %q): SeekGE(lower) at %q", r[0], r[1], it.Key())
		}
		if it.Valid() {
			t.Errorf("[%q, %q): Valid", r[0], r[1])
		}
		closeIter(t, it)
	}
}

func testIterDeletes(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"k3", "<del>"}, kvPair{"k4", "<del>"}, kvPair{"k5", "new5"}, kvPair{"k9", "<del>"})
	want := []string{"k0", "k1", "k2", "k5", "k6", "k7", "k8"}
	if got := scan(t, db, "", ""); !equalStrings(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	it := newIter(t, db, "k3", "")
	defer closeIter(t, it)
	if !it.First() || string(it.Key()) != "k5" || string(it.Value()) != "new5" {
		t.Errorf("First over deleted keys: %q=%q, want k5=new5", it.Key(), it.Value())
	}
	if !it.Last() || string(it.Key()) != "k8" {
		t.Errorf("Last over a deleted key: %q, want k8", it.Key())
	}
	// A commit while an iterator is open, from the same goroutine, must work (workloads do this:
	// building an index reads the primary key while committing index entries). The iterator
	// sees the state as of its creation or later.
	write(t, db, kvPair{"k4", "back"})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if n != 4 && n != 5 {
		t.Errorf("after a concurrent write: %d keys in [k3, ), want 4 or 5", n)
	}
}

func testCount(t *testing.T, open Opener) {
	db := openDB(t, open)
	tenKeys(t, db)
	write(t, db, kvPair{"a", "before"}, kvPair{"z", "after"})
	ctx := context.Background()
	for _, c := range []struct {
		lower, upper string
		want         int64
	}{{"k2", "k5", 3}, {"k", "l", 10}, {"", "", 12}, {"m", "n", 0}} {
		if n, err := kv.Count(ctx, db, bound(c.lower), bound(c.upper)); err != nil || n != c.want {
			t.Errorf("Count [%q, %q) = %d, %v; want %d", c.lower, c.upper, n, err, c.want)
		}
	}
}
