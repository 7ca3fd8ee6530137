package null

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

func openNull(t testing.TB) kv.DB {
	reg, err := engine.NewRegistry(Driver())
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: "null", Engine: "null"})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := e.(kv.DB)
	if !ok {
		t.Fatalf("null engine %T is not a kv.DB", e)
	}
	return d
}

func TestNull(t *testing.T) {
	d := openNull(t)
	if d.Family() != engine.FamilyKV || d.Version() != "1" || len(d.Settings()) != 0 {
		t.Errorf("family %q version %q settings %v", d.Family(), d.Version(), d.Settings())
	}
	if dis, ok := d.(engine.Discarder); !ok || !dis.Discards() {
		t.Error("the null engine does not say it discards")
	}
	if len(Driver().Settings) != 0 {
		t.Errorf("settings %v", Driver().Settings)
	}
	reg, _ := engine.NewRegistry(Driver())
	if err := reg.Check(engine.Config{Engine: "null", Settings: map[string]string{"x": "1"}}); err == nil {
		t.Error("a setting was accepted")
	}

	b := d.NewBatch()
	b.Set([]byte("k"), []byte("v"))
	b.Delete([]byte("k"))
	if b.Len() != 2 {
		t.Errorf("Len %d, want 2", b.Len())
	}
	if err := b.Commit(); err != nil || b.Len() != 0 {
		t.Errorf("commit: %v, Len after %d", err, b.Len())
	}
	b.Set([]byte("k"), []byte("v"))
	b.Reset()
	if b.Len() != 0 {
		t.Errorf("Len after Reset %d", b.Len())
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}

	dst := []byte("dst")
	v, ok, err := d.Get([]byte("k"), dst)
	if err != nil || ok || string(v) != "dst" {
		t.Errorf("get: %q %v %v", v, ok, err)
	}

	it, err := d.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it.First() || it.Last() || it.SeekGE([]byte("a")) || it.Next() || it.Prev() || it.Valid() ||
		it.Key() != nil || it.Value() != nil || it.Err() != nil || it.Close() != nil {
		t.Error("the iterator is not empty")
	}
	if err := d.Close(); err != nil {
		t.Error(err)
	}
}

func TestNullAllocatesNothing(t *testing.T) {
	d := openNull(t)
	b := d.NewBatch()
	key, val := []byte("key"), []byte("value")
	allocs := testing.AllocsPerRun(1000, func() {
		b.Set(key, val)
		b.Delete(key)
		_ = b.Commit()
		_, _, _ = d.Get(key, val[:0])
		it, _ := d.NewIter(key, nil)
		for ok := it.First(); ok; ok = it.Next() {
		}
		_ = it.Close()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per operation, want 0", allocs)
	}
}

func BenchmarkNullBatch(b *testing.B) {
	d := openNull(b)
	bt := d.NewBatch()
	key, val := []byte("key"), []byte("value")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bt.Set(key, val)
		if err := bt.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoCapDefaults: the null engine has nothing to size under a memory cap.
func TestNoCapDefaults(t *testing.T) {
	if Driver().CapDefaults != nil {
		t.Errorf("null has CapDefaults")
	}
}
