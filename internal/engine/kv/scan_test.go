package kv_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
)

// iterCounting counts the open iterators of a DB.
type iterCounting struct {
	kv.DB
	open int
}

func (d *iterCounting) NewIter(lo, hi []byte) (kv.Iter, error) {
	it, err := d.DB.NewIter(lo, hi)
	if err == nil {
		d.open++
	}
	return &countedIter{Iter: it, d: d}, err
}

type countedIter struct {
	kv.Iter
	d *iterCounting
}

func (it *countedIter) Close() error { it.d.open--; return it.Iter.Close() }

func TestScanChunks(t *testing.T) {
	db := enginetest.Open(t, context.Background(), pebble.Driver(), "", nil, t.TempDir()).(kv.DB)
	b := db.NewBatch()
	for i := range 2500 {
		b.Set(fmt.Appendf(nil, "a%05d", i), fmt.Appendf(nil, "v%d", i))
	}
	b.Set([]byte("b"), nil) // past the bounds
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		lo, hi       string
		chunk, n     int
		flushes      int
		first, final string
	}{
		{"a", "b", 1000, 2500, 2, "a00000", "a02499"},
		{"a", "b", 500, 2500, 5, "a00000", "a02499"}, // a last chunk that is full: one more empty look
		{"a01000", "a02000", 300, 1000, 3, "a01000", "a01999"},
		{"a", "a", 10, 0, 0, "", ""},
	} {
		d := &iterCounting{DB: db}
		w := d.NewBatch() // writes behind the scan, committed by flush
		var seen []string
		flushes := 0
		n, err := kv.ScanChunks(ctx, d, []byte(c.lo), []byte(c.hi), c.chunk, func(k, v []byte) error {
			seen = append(seen, string(k))
			w.Set(append([]byte("c"), k...), v)
			return nil
		}, func() error {
			flushes++
			if d.open != 0 {
				t.Errorf("[%s, %s): an iterator is open at flush", c.lo, c.hi)
			}
			return w.Commit()
		})
		if err != nil || int(n) != c.n || len(seen) != c.n || flushes != c.flushes {
			t.Errorf("[%s, %s) by %d: n %d, seen %d, flushes %d, err %v; want %d keys, %d flushes", c.lo, c.hi, c.chunk, n, len(seen), flushes, err, c.n, c.flushes)
			continue
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] <= seen[i-1] {
				t.Fatalf("[%s, %s): %q after %q", c.lo, c.hi, seen[i], seen[i-1])
			}
		}
		if c.n > 0 && (seen[0] != c.first || seen[len(seen)-1] != c.final) {
			t.Errorf("[%s, %s): from %q to %q, want %q to %q", c.lo, c.hi, seen[0], seen[len(seen)-1], c.first, c.final)
		}
		if d.open != 0 {
			t.Errorf("[%s, %s): %d iterators left open", c.lo, c.hi, d.open)
		}
		w.Close()
	}
	// Errors stop the scan: fn's, flush's and the context's.
	boom := errors.New("boom")
	if _, err := kv.ScanChunks(ctx, db, nil, nil, 10, func(k, v []byte) error { return boom }, nil); !errors.Is(err, boom) {
		t.Errorf("fn's error: %v", err)
	}
	if n, err := kv.ScanChunks(ctx, db, nil, nil, 10, func(k, v []byte) error { return nil }, func() error { return boom }); !errors.Is(err, boom) || n != 10 {
		t.Errorf("flush's error: %d, %v", n, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if n, err := kv.ScanChunks(cctx, db, nil, nil, 10, func(k, v []byte) error { return nil }, nil); !errors.Is(err, context.Canceled) || n != 10 {
		t.Errorf("canceled: %d, %v", n, err)
	}
}
