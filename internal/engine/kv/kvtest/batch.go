package kvtest

import (
	"fmt"
	"testing"
)

func testBatchSetDeleteOverwrite(t *testing.T, open Opener) {
	db := openDB(t, open)
	write(t, db, kvPair{"keep", "1"}, kvPair{"gone", "1"}, kvPair{"over", "1"})
	b := db.NewBatch()
	defer closeBatch(t, b)
	if b.Len() != 0 {
		t.Fatalf("new batch Len %d", b.Len())
	}
	b.Set([]byte("a"), []byte("1"))
	b.Set([]byte("b"), []byte("2"))
	b.Delete([]byte("b"))
	b.Set([]byte("c"), []byte("3"))
	b.Set([]byte("c"), []byte("33"))
	b.Delete([]byte("gone"))
	b.Set([]byte("over"), []byte("2"))
	b.Delete([]byte("never-existed"))
	if b.Len() != 8 {
		t.Errorf("Len %d, want 8", b.Len())
	}
	// Nothing is visible before Commit.
	expectGet(t, db, "a", "<missing>")
	expectGet(t, db, "gone", "1")
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("Len after Commit %d, want 0", b.Len())
	}
	for _, c := range []kvPair{{"a", "1"}, {"b", "<missing>"}, {"c", "33"}, {"keep", "1"},
		{"gone", "<missing>"}, {"over", "2"}, {"never-existed", "<missing>"}} {
		expectGet(t, db, c.k, c.v)
	}
	if got, want := scan(t, db, "", ""), []string{"a", "c", "keep", "over"}; !equalStrings(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	// An empty batch commits.
	if err := b.Commit(); err != nil {
		t.Errorf("commit of an empty batch: %v", err)
	}
}

func testBatchCopiesArguments(t *testing.T, open Opener) {
	db := openDB(t, open)
	b := db.NewBatch()
	defer closeBatch(t, b)
	key, val := []byte("k1"), []byte("v1")
	b.Set(key, val)
	copy(key, "k2")
	copy(val, "XX")
	b.Set(key, val)
	del := []byte("k3")
	b.Set(del, []byte("v3"))
	b.Delete(del)
	copy(del, "k2")
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	expectGet(t, db, "k1", "v1")
	expectGet(t, db, "k2", "XX")
	expectGet(t, db, "k3", "<missing>")
}

func testBatchReuse(t *testing.T, open Opener) {
	db := openDB(t, open)
	b := db.NewBatch()
	defer closeBatch(t, b)
	key := make([]byte, 0, 16)
	for round := 0; round < 50; round++ {
		for i := 0; i < 20; i++ {
			key = fmt.Appendf(key[:0], "r%02d/k%02d", round, i)
			b.Set(key, fmt.Appendf(nil, "%d.%d", round, i))
		}
		if round > 0 {
			key = fmt.Appendf(key[:0], "r%02d/k%02d", round-1, 0)
			b.Delete(key)
		}
		if err := b.Commit(); err != nil {
			t.Fatalf("round %d: commit: %v", round, err)
		}
		if b.Len() != 0 {
			t.Fatalf("round %d: Len after Commit %d", round, b.Len())
		}
	}
	for round := 0; round < 50; round++ {
		for i := 0; i < 20; i++ {
			want := fmt.Sprintf("%d.%d", round, i)
			if i == 0 && round < 49 {
				want = "<missing>"
			}
			expectGet(t, db, fmt.Sprintf("r%02d/k%02d", round, i), want)
		}
	}
	if n := len(scan(t, db, "", "")); n != 50*20-49 {
		t.Errorf("%d keys, want %d", n, 50*20-49)
	}
}

func testBatchReset(t *testing.T, open Opener) {
	db := openDB(t, open)
	write(t, db, kvPair{"x", "1"})
	b := db.NewBatch()
	defer closeBatch(t, b)
	b.Set([]byte("a"), []byte("1"))
	b.Delete([]byte("x"))
	b.Reset()
	if b.Len() != 0 {
		t.Errorf("Len after Reset %d", b.Len())
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("commit after reset: %v", err)
	}
	expectGet(t, db, "a", "<missing>")
	expectGet(t, db, "x", "1")
	// The batch still works after Reset.
	b.Set([]byte("b"), []byte("2"))
	if err := b.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	expectGet(t, db, "b", "2")
	expectGet(t, db, "a", "<missing>")
	// Close without Commit applies nothing.
	b2 := db.NewBatch()
	b2.Set([]byte("c"), []byte("3"))
	closeBatch(t, b2)
	expectGet(t, db, "c", "<missing>")
}
