package kvtest

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv"
)

// tuple is a key of the schema (bytes, int64, uint64).
type tuple struct {
	s string
	i int64
	u uint64
}

func (tu tuple) key(dst []byte) []byte {
	return kv.AppendUint64(kv.AppendInt64(kv.AppendString(dst, tu.s), tu.i), tu.u)
}

func (tu tuple) less(o tuple) bool {
	if tu.s != o.s {
		return tu.s < o.s
	}
	if tu.i != o.i {
		return tu.i < o.i
	}
	return tu.u < o.u
}

func decodeTuple(key []byte) (tuple, error) {
	s, rest, err := kv.DecodeBytes(key, nil)
	if err != nil {
		return tuple{}, err
	}
	i, rest, err := kv.DecodeInt64(rest)
	if err != nil {
		return tuple{}, err
	}
	u, rest, err := kv.DecodeUint64(rest)
	if err != nil {
		return tuple{}, err
	}
	if len(rest) != 0 {
		return tuple{}, fmt.Errorf("%d bytes after the tuple", len(rest))
	}
	return tuple{string(s), i, u}, nil
}

// testIterTupleOrder writes keys encoded with the kv key encoding in random order and checks
// that an iterator returns them in tuple order, and that a prefix range (the encoded first
// column to its PrefixEnd) holds exactly the tuples with that first column.
func testIterTupleOrder(t *testing.T, open Opener) {
	db := openDB(t, open)
	rng := rand.New(rand.NewSource(7))
	strs := []string{"", "a", "a\x00", "a\x00\x00", "a\x01", "a\xff", "ab", "b", "\x00", "\xff", "\xff\xff"}
	ints := []int64{-1 << 62, -1000, -1, 0, 1, 1000, 1 << 62}
	set := make(map[tuple]bool)
	b := db.NewBatch()
	defer closeBatch(t, b)
	var key []byte
	for n := 0; n < 3000; n++ {
		tu := tuple{strs[rng.Intn(len(strs))], ints[rng.Intn(len(ints))], uint64(rng.Intn(20)) << uint(rng.Intn(60))}
		set[tu] = true
		key = tu.key(key[:0])
		b.Set(key, []byte(fmt.Sprint(tu.i)))
		if b.Len() == 500 {
			if err := b.Commit(); err != nil {
				t.Fatalf("commit: %v", err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	want := make([]tuple, 0, len(set))
	for tu := range set {
		want = append(want, tu)
	}
	sort.Slice(want, func(i, j int) bool { return want[i].less(want[j]) })

	it := newIter(t, db, "", "")
	var got []tuple
	for ok := it.First(); ok; ok = it.Next() {
		tu, err := decodeTuple(it.Key())
		if err != nil {
			t.Fatalf("decode key %x: %v", it.Key(), err)
		}
		got = append(got, tu)
	}
	closeIter(t, it)
	if len(got) != len(want) {
		t.Fatalf("%d keys, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("position %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	// Prefix ranges on the first column, and on the first two.
	for _, s := range strs {
		lower := kv.AppendString(nil, s)
		checkPrefix(t, db, lower, want, func(tu tuple) bool { return tu.s == s })
		lower = kv.AppendInt64(lower, -1)
		checkPrefix(t, db, lower, want, func(tu tuple) bool { return tu.s == s && tu.i == -1 })
	}
}

func checkPrefix(t *testing.T, db kv.DB, prefix []byte, all []tuple, match func(tuple) bool) {
	t.Helper()
	var want []tuple
	for _, tu := range all {
		if match(tu) {
			want = append(want, tu)
		}
	}
	it, err := db.NewIter(prefix, kv.PrefixEnd(prefix))
	if err != nil {
		t.Fatalf("new iter: %v", err)
	}
	defer closeIter(t, it)
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if !bytes.HasPrefix(it.Key(), prefix) {
			t.Fatalf("prefix %x: key %x outside", prefix, it.Key())
		}
		tu, err := decodeTuple(it.Key())
		if err != nil {
			t.Fatalf("decode key %x: %v", it.Key(), err)
		}
		if n >= len(want) || tu != want[n] {
			t.Fatalf("prefix %x: key %d is %+v, want %d keys %+v", prefix, n, tu, len(want), want)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("prefix %x: %d keys, want %d", prefix, n, len(want))
	}
}
