package kvtest

import (
	"fmt"
	"sync"
	"testing"
)

func testGet(t *testing.T, open Opener) {
	db := openDB(t, open)
	dst := []byte("prefix:")
	v, ok, err := db.Get([]byte("missing"), dst)
	if err != nil || ok {
		t.Fatalf("get missing: ok %v err %v", ok, err)
	}
	if string(v) != "prefix:" {
		t.Errorf("get missing returned %q, want dst unchanged (%q)", v, "prefix:")
	}
	write(t, db, kvPair{"a", "apple"}, kvPair{"b", ""}, kvPair{"c\x00d", "with\x00zero"})

	// Get appends to dst and keeps what dst held.
	buf := make([]byte, 0, 64)
	buf = append(buf, "prefix:"...)
	v, ok, err = db.Get([]byte("a"), buf)
	if err != nil || !ok || string(v) != "prefix:apple" {
		t.Fatalf("get a with dst %q: %q ok %v err %v", buf, v, ok, err)
	}
	if string(buf) != "prefix:" {
		t.Errorf("get changed dst's contents to %q", buf)
	}
	// A nil dst, a dst without room.
	v, ok, err = db.Get([]byte("a"), nil)
	if err != nil || !ok || string(v) != "apple" {
		t.Fatalf("get a with nil dst: %q ok %v err %v", v, ok, err)
	}
	v, ok, err = db.Get([]byte("a"), []byte("x")[:1:1])
	if err != nil || !ok || string(v) != "xapple" {
		t.Fatalf("get a with full dst: %q ok %v err %v", v, ok, err)
	}
	// The returned slice belongs to the caller: changing it changes nothing stored.
	copy(v, "XXXXXX")
	expectGet(t, db, "a", "apple")
	// An empty value exists; keys and values may hold 0x00.
	v, ok, err = db.Get([]byte("b"), nil)
	if err != nil || !ok || len(v) != 0 {
		t.Fatalf("get b (empty value): %q ok %v err %v", v, ok, err)
	}
	expectGet(t, db, "c\x00d", "with\x00zero")
	expectGet(t, db, "c", "<missing>")
	expectGet(t, db, "a\x00", "<missing>")
}

func testReopen(t *testing.T, open Opener) {
	dir := t.TempDir()
	db := open(t, dir)
	var pairs []kvPair
	for i := 0; i < 1000; i++ {
		pairs = append(pairs, kvPair{fmt.Sprintf("key%04d", i), fmt.Sprintf("value%d", i)})
	}
	write(t, db, pairs...)
	write(t, db, kvPair{"key0001", "<del>"}, kvPair{"key0002", "changed"})
	b := db.NewBatch()
	b.Set([]byte("uncommitted"), []byte("x"))
	closeBatch(t, b)
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	db = open(t, dir)
	defer func() {
		if err := db.Close(); err != nil {
			t.Errorf("close after reopen: %v", err)
		}
	}()
	expectGet(t, db, "key0000", "value0")
	expectGet(t, db, "key0001", "<missing>")
	expectGet(t, db, "key0002", "changed")
	expectGet(t, db, "key0999", "value999")
	expectGet(t, db, "uncommitted", "<missing>")
	if n := len(scan(t, db, "", "")); n != 999 {
		t.Errorf("%d keys after reopen, want 999", n)
	}
	// The reopened engine takes writes.
	write(t, db, kvPair{"after", "reopen"})
	expectGet(t, db, "after", "reopen")
}

func testConcurrentWriters(t *testing.T, open Opener) {
	db := openDB(t, open)
	const (
		writers   = 4
		batches   = 50
		perBatch  = 20
		totalKeys = writers * batches * perBatch
	)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b := db.NewBatch()
			defer b.Close()
			var key, val []byte
			for n := 0; n < batches; n++ {
				for i := 0; i < perBatch; i++ {
					key = fmt.Appendf(key[:0], "w%d/%05d", w, n*perBatch+i)
					val = fmt.Appendf(val[:0], "%d", w*1000000+n*perBatch+i)
					b.Set(key, val)
				}
				if err := b.Commit(); err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, n, err)
					return
				}
				// Readers run alongside the writers.
				if _, _, err := db.Get(key, nil); err != nil {
					errs <- fmt.Errorf("writer %d get: %w", w, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < batches*perBatch; i++ {
			v, ok := get(t, db, fmt.Sprintf("w%d/%05d", w, i))
			if want := fmt.Sprint(w*1000000 + i); !ok || v != want {
				t.Fatalf("writer %d key %d: %q (found %v), want %q", w, i, v, ok, want)
			}
		}
	}
	if n := len(scan(t, db, "", "")); n != totalKeys {
		t.Errorf("%d keys, want %d", n, totalKeys)
	}
}
