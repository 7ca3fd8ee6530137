package kv

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"sort"
	"testing"
)

// kind is the type of one column of a tuple.
type kind int

const (
	kindUint kind = iota
	kindInt
	kindBytes
	numKinds
)

// col is one column value; only the field of its kind is used.
type col struct {
	k kind
	u uint64
	i int64
	b []byte
}

type tuple []col

// encode appends the order-preserving encoding of t.
func (t tuple) encode(dst []byte) []byte {
	for _, c := range t {
		switch c.k {
		case kindUint:
			dst = AppendUint64(dst, c.u)
		case kindInt:
			dst = AppendInt64(dst, c.i)
		case kindBytes:
			dst = AppendBytes(dst, c.b)
		}
	}
	return dst
}

// compareTuples compares two tuples of the same schema column by column.
func compareTuples(a, b tuple) int {
	for j := range a {
		var c int
		switch a[j].k {
		case kindUint:
			c = cmp3(a[j].u < b[j].u, a[j].u > b[j].u)
		case kindInt:
			c = cmp3(a[j].i < b[j].i, a[j].i > b[j].i)
		case kindBytes:
			c = bytes.Compare(a[j].b, b[j].b)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// decodeTuple decodes a tuple of schema from key and requires that it consumes all of key.
func decodeTuple(t *testing.T, schema []kind, key []byte) tuple {
	t.Helper()
	out := make(tuple, len(schema))
	rest := key
	var err error
	for j, k := range schema {
		out[j].k = k
		switch k {
		case kindUint:
			out[j].u, rest, err = DecodeUint64(rest)
		case kindInt:
			out[j].i, rest, err = DecodeInt64(rest)
		case kindBytes:
			out[j].b, rest, err = DecodeBytes(rest, nil)
		}
		if err != nil {
			t.Fatalf("decode column %d of %x: %v", j, key, err)
		}
	}
	if len(rest) != 0 {
		t.Fatalf("decode %x: %d bytes left over", key, len(rest))
	}
	return out
}

// Interesting values: edges of the ranges and the escape bytes.
var (
	edgeUints = []uint64{0, 1, 2, 0xFF, 0x100, 1 << 32, math.MaxInt64, 1 << 63, math.MaxUint64 - 1, math.MaxUint64}
	edgeInts  = []int64{math.MinInt64, math.MinInt64 + 1, -1 << 32, -256, -1, 0, 1, 255, 1 << 32, math.MaxInt64 - 1, math.MaxInt64}
	edgeBytes = []byte{0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, 'a', 'b'}
)

// randomCol returns a value of kind k, drawn so that equal values and shared prefixes are common.
func randomCol(r *rand.Rand, k kind) col {
	c := col{k: k}
	switch k {
	case kindUint:
		switch r.Intn(3) {
		case 0:
			c.u = edgeUints[r.Intn(len(edgeUints))]
		case 1:
			c.u = uint64(r.Intn(4))
		default:
			c.u = r.Uint64()
		}
	case kindInt:
		switch r.Intn(3) {
		case 0:
			c.i = edgeInts[r.Intn(len(edgeInts))]
		case 1:
			c.i = int64(r.Intn(5)) - 2
		default:
			c.i = int64(r.Uint64())
		}
	case kindBytes:
		n := r.Intn(5)
		if n == 4 {
			n = r.Intn(40)
		}
		if n > 0 || r.Intn(2) == 0 {
			c.b = make([]byte, n)
		}
		for i := range c.b {
			if r.Intn(2) == 0 {
				c.b[i] = edgeBytes[r.Intn(len(edgeBytes))]
			} else {
				c.b[i] = byte(r.Intn(256))
			}
		}
	}
	return c
}

func randomSchema(r *rand.Rand) []kind {
	s := make([]kind, 1+r.Intn(4))
	for i := range s {
		s[i] = kind(r.Intn(int(numKinds)))
	}
	return s
}

func randomTuple(r *rand.Rand, schema []kind) tuple {
	t := make(tuple, len(schema))
	for i, k := range schema {
		t[i] = randomCol(r, k)
	}
	return t
}

func TestRoundTripEdges(t *testing.T) {
	for _, v := range edgeUints {
		got, rest, err := DecodeUint64(AppendUint64([]byte{9}, v)[1:])
		if err != nil || got != v || len(rest) != 0 {
			t.Errorf("uint64 %d: got %d, rest %x, err %v", v, got, rest, err)
		}
	}
	for _, v := range edgeInts {
		got, rest, err := DecodeInt64(AppendInt64(nil, v))
		if err != nil || got != v || len(rest) != 0 {
			t.Errorf("int64 %d: got %d, rest %x, err %v", v, got, rest, err)
		}
	}
	for _, v := range [][]byte{nil, {}, {0}, {0, 0}, {1}, {0xFF}, {0, 0xFF}, {0, 1}, []byte("a\x00b\x01c\xFF"), bytes.Repeat([]byte{0}, 100)} {
		enc := AppendBytes([]byte("pre"), v)
		if s := AppendString([]byte("pre"), string(v)); !bytes.Equal(s, enc) {
			t.Errorf("AppendString(%x) = %x, AppendBytes %x", v, s, enc)
		}
		enc = append(enc, "tail"...)
		got, rest, err := DecodeBytes(enc[3:], []byte("dst:"))
		if err != nil || !bytes.Equal(got, append([]byte("dst:"), v...)) || string(rest) != "tail" {
			t.Errorf("bytes %x: got %x, rest %q, err %v", v, got, rest, err)
		}
	}
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var buf []byte
	for n := 0; n < 20000; n++ {
		schema := randomSchema(r)
		tu := randomTuple(r, schema)
		buf = tu.encode(buf[:0])
		got := decodeTuple(t, schema, buf)
		if compareTuples(tu, got) != 0 {
			t.Fatalf("round trip of %v gave %v", tu, got)
		}
	}
}

// TestOrderPreserved compares the byte order of encodings with the tuple order over many
// random pairs of tuples that share a random schema mixing the three kinds.
func TestOrderPreserved(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var ea, eb []byte
	for n := 0; n < 100000; n++ {
		schema := randomSchema(r)
		a, b := randomTuple(r, schema), randomTuple(r, schema)
		if r.Intn(4) == 0 { // share a prefix of columns, so later columns decide
			copy(b, a[:r.Intn(len(a))])
		}
		ea, eb = a.encode(ea[:0]), b.encode(eb[:0])
		if got, want := bytes.Compare(ea, eb), compareTuples(a, b); got != want {
			t.Fatalf("schema %v:\n a %v -> %x\n b %v -> %x\nbytes.Compare %d, tuple order %d",
				schema, a, ea, b, eb, got, want)
		}
	}
}

// TestOrderSorted sorts many tuples of one schema both ways and compares the orders.
func TestOrderSorted(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	schema := []kind{kindBytes, kindInt, kindBytes, kindUint}
	ts := make([]tuple, 5000)
	for i := range ts {
		ts[i] = randomTuple(r, schema)
	}
	byTuple := append([]tuple(nil), ts...)
	sort.SliceStable(byTuple, func(i, j int) bool { return compareTuples(byTuple[i], byTuple[j]) < 0 })
	byKey := append([]tuple(nil), ts...)
	sort.SliceStable(byKey, func(i, j int) bool { return bytes.Compare(byKey[i].encode(nil), byKey[j].encode(nil)) < 0 })
	for i := range byTuple {
		if compareTuples(byTuple[i], byKey[i]) != 0 {
			t.Fatalf("position %d: tuple order %v, key order %v", i, byTuple[i], byKey[i])
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		fn   func() error
	}{
		{"uint64 empty", func() error { _, _, err := DecodeUint64(nil); return err }},
		{"uint64 short", func() error { _, _, err := DecodeUint64(make([]byte, 7)); return err }},
		{"int64 short", func() error { _, _, err := DecodeInt64([]byte{1, 2, 3}); return err }},
		{"bytes empty", func() error { _, _, err := DecodeBytes(nil, nil); return err }},
		{"bytes unterminated", func() error { _, _, err := DecodeBytes([]byte("abc"), nil); return err }},
		{"bytes lone zero", func() error { _, _, err := DecodeBytes([]byte("abc\x00"), nil); return err }},
		{"bytes escaped zero then end", func() error { _, _, err := DecodeBytes([]byte("a\x00\xFF"), nil); return err }},
		{"bytes bad escape", func() error { _, _, err := DecodeBytes([]byte("a\x00\x02b\x00\x01"), nil); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.fn()
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrMalformedKey) {
				t.Errorf("error %v does not wrap ErrMalformedKey", err)
			}
		})
	}
	// On error DecodeBytes leaves dst's contents as they were and returns all of the input.
	in := []byte("x\x00\x07")
	val, rest, err := DecodeBytes(in, []byte("keep"))
	if err == nil || string(val) != "keep" || !bytes.Equal(rest, in) {
		t.Errorf("DecodeBytes error path: val %q rest %x err %v", val, rest, err)
	}
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{nil, nil},
		{[]byte{}, nil},
		{[]byte{0xFF}, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{[]byte{0}, []byte{1}},
		{[]byte("abc"), []byte("abd")},
		{[]byte{1, 0xFF}, []byte{2}},
		{[]byte{1, 0xFE, 0xFF, 0xFF}, []byte{1, 0xFF}},
	}
	for _, c := range cases {
		in := append([]byte(nil), c.in...)
		got := PrefixEnd(in)
		if !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
		if !bytes.Equal(in, c.in) {
			t.Errorf("PrefixEnd modified its argument: %x", in)
		}
	}
	// Every key with the prefix sorts below the end, and the end itself does not have the prefix.
	r := rand.New(rand.NewSource(4))
	for n := 0; n < 10000; n++ {
		p := randomCol(r, kindBytes).b
		end := PrefixEnd(p)
		key := append(append([]byte(nil), p...), randomCol(r, kindBytes).b...)
		if end != nil && (bytes.Compare(key, end) >= 0 || bytes.HasPrefix(end, p)) {
			t.Fatalf("prefix %x: key %x not below end %x", p, key, end)
		}
		if end == nil && len(bytes.Trim(p, "\xFF")) != 0 {
			t.Fatalf("prefix %x: nil end", p)
		}
	}
}

func TestAppendAllocatesNothing(t *testing.T) {
	buf := make([]byte, 0, 256)
	val := []byte("some\x00value\x00with zeros")
	allocs := testing.AllocsPerRun(1000, func() {
		b := AppendUint64(buf[:0], 42)
		b = AppendInt64(b, -42)
		b = AppendBytes(b, val)
		b = AppendString(b, "text\x00")
		if _, _, err := DecodeBytes(b[16:], buf[128:128]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("append and decode with enough capacity: %v allocations per run, want 0", allocs)
	}
}

// FuzzKeyOrder checks round trips and order preservation for pairs of (uint64, int64, bytes)
// tuples, in both column orders that put the variable-length column first and last.
func FuzzKeyOrder(f *testing.F) {
	f.Add(uint64(0), int64(0), []byte(nil), uint64(0), int64(0), []byte(nil))
	f.Add(uint64(1), int64(-1), []byte("a"), uint64(1), int64(-1), []byte("a\x00"))
	f.Add(uint64(math.MaxUint64), int64(math.MinInt64), []byte("\x00\x01"), uint64(0), int64(math.MaxInt64), []byte("\x00"))
	f.Add(uint64(7), int64(3), []byte("ab"), uint64(7), int64(3), []byte("abc"))
	f.Add(uint64(7), int64(3), []byte("a\xFF"), uint64(7), int64(3), []byte("a\x00\xFF"))
	f.Fuzz(func(t *testing.T, u1 uint64, i1 int64, b1 []byte, u2 uint64, i2 int64, b2 []byte) {
		a := tuple{{k: kindUint, u: u1}, {k: kindBytes, b: b1}, {k: kindInt, i: i1}}
		b := tuple{{k: kindUint, u: u2}, {k: kindBytes, b: b2}, {k: kindInt, i: i2}}
		for _, order := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}} {
			pa, pb := make(tuple, 3), make(tuple, 3)
			for j, o := range order {
				pa[j], pb[j] = a[o], b[o]
			}
			ea, eb := pa.encode(nil), pb.encode(nil)
			if got, want := bytes.Compare(ea, eb), compareTuples(pa, pb); got != want {
				t.Fatalf("%v -> %x vs %v -> %x: bytes.Compare %d, tuple order %d", pa, ea, pb, eb, got, want)
			}
			schema := []kind{pa[0].k, pa[1].k, pa[2].k}
			if got := decodeTuple(t, schema, ea); compareTuples(got, pa) != 0 {
				t.Fatalf("round trip of %v gave %v", pa, got)
			}
		}
	})
}

// FuzzDecode decodes arbitrary input with every decoder: no panic, and whatever decodes
// re-encodes to exactly the bytes consumed (the encoding is canonical).
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{0, 1})
	f.Add([]byte{0, 0xFF})
	f.Add([]byte{0, 2})
	f.Add([]byte("abc\x00\xFF\x00\x01rest"))
	f.Add(AppendInt64(AppendBytes(AppendUint64(nil, 5), []byte("x\x00y")), -9))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, rest, err := DecodeUint64(data); err == nil {
			if !bytes.Equal(AppendUint64(nil, v), data[:len(data)-len(rest)]) {
				t.Fatalf("uint64 %d does not re-encode to %x", v, data)
			}
		} else if len(data) >= 8 {
			t.Fatalf("DecodeUint64(%x): %v", data, err)
		}
		if v, rest, err := DecodeInt64(data); err == nil {
			if !bytes.Equal(AppendInt64(nil, v), data[:len(data)-len(rest)]) {
				t.Fatalf("int64 %d does not re-encode to %x", v, data)
			}
		}
		v, rest, err := DecodeBytes(data, nil)
		if err != nil {
			if len(v) != 0 || !bytes.Equal(rest, data) {
				t.Fatalf("DecodeBytes(%x) failed but returned %x, %x", data, v, rest)
			}
			return
		}
		if !bytes.Equal(AppendBytes(nil, v), data[:len(data)-len(rest)]) {
			t.Fatalf("bytes %x does not re-encode to the consumed prefix of %x", v, data)
		}
	})
}

func BenchmarkAppendUint64(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendUint64(buf[:0], uint64(i))
	}
}

func BenchmarkAppendInt64(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendInt64(buf[:0], int64(i))
	}
}

func BenchmarkAppendBytes(b *testing.B) {
	b.ReportAllocs()
	val := []byte("a 32-byte value with one \x00 in it")
	buf := make([]byte, 0, 64)
	b.SetBytes(int64(len(val)))
	for i := 0; i < b.N; i++ {
		buf = AppendBytes(buf[:0], val)
	}
}

func BenchmarkDecodeBytes(b *testing.B) {
	b.ReportAllocs()
	enc := AppendBytes(nil, []byte("a 32-byte value with one \x00 in it"))
	dst := make([]byte, 0, 64)
	b.SetBytes(int64(len(enc)))
	for i := 0; i < b.N; i++ {
		var err error
		if dst, _, err = DecodeBytes(enc, dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
