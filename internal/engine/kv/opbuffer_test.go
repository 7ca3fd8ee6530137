package kv

import "testing"

func TestOpBuffer(t *testing.T) {
	var b OpBuffer
	key := []byte("k1")
	b.Set(key, []byte("v1"))
	key[0] = 'x' // the buffer copied it
	b.Delete([]byte("k2"))
	b.Set([]byte("k3"), nil)
	if b.Len() != 3 || len(b.Ops()) != 15 {
		t.Fatalf("%d writes, %d ops", b.Len(), len(b.Ops()))
	}
	for i, want := range []struct {
		del        bool
		key, value string
	}{{false, "k1", "v1"}, {true, "k2", ""}, {false, "k3", ""}} {
		del, k, v := b.Op(i)
		if del != want.del || string(k) != want.key || string(v) != want.value || (!del && v == nil) {
			t.Errorf("write %d: %v %q %q, want %+v", i, del, k, v, want)
		}
	}
	// A value appended after a key must not grow into it.
	if _, k, _ := b.Op(0); cap(k) != len(k) {
		t.Error("a key's slice can grow into the value")
	}
	b.Reset()
	if b.Len() != 0 || len(b.Bytes()) != 0 {
		t.Error("Reset left writes")
	}
}
