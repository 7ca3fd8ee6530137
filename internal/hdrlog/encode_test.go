package hdrlog

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/measure"
)

// testHistograms returns histograms of every shape the encoder meets and the edges of its
// format: empty, a single value (0, 1, in the exact range, at an hour, above it), neighbour
// bins and bins one apart (a single empty bin between), counts past 16 bits and up to a
// 9-byte varint, the whole range, and many random ones.
func testHistograms() map[string]*measure.Histogram {
	hs := map[string]*measure.Histogram{}
	of := func(name string, values ...int64) *measure.Histogram {
		h := measure.NewHistogram()
		for _, v := range values {
			h.Record(v)
		}
		hs[name] = h
		return h
	}
	of("empty")
	of("zero", 0)
	of("negative, as 0", -5)
	of("one", 1)
	of("exact range", 1000, 1001, 1003, 2047)
	of("one empty bin between", 5, 7, 2046, 2048, 2052)
	of("an hour", measure.HighestNs)
	of("above an hour, saturated", 2*measure.HighestNs, 1)
	of("the whole range", 0, 1, 2, 2047, 2048, 1e6, 1e9, measure.HighestNs)
	of("16-bit counts", 3e5).RecordN(3e5, 1<<17)
	of("9-byte varint", 42).RecordN(1e9, 1<<62)
	of("a long count and a long run", 1).RecordN(measure.HighestNs, 1<<40)
	rng := rand.New(rand.NewPCG(21, 22))
	for i := range 200 {
		h := measure.NewHistogram()
		scale := float64(time.Microsecond) * float64(int64(1)<<rng.IntN(30))
		for range rng.IntN(5000) {
			switch i % 3 {
			case 0: // exponential
				h.Record(int64(rng.ExpFloat64() * scale))
			case 1: // log-uniform over the whole range
				h.Record(int64(1) << rng.IntN(43) * int64(1+rng.IntN(1000)) / 1000)
			default: // few values, large counts
				h.RecordN(int64(rng.NormFloat64()*scale/10+scale), 1+rng.Int64N(1<<20))
			}
		}
		hs[fmt.Sprintf("random %d", i)] = h
	}
	return hs
}

// libraryLine returns the line of h that hdrhistogram-go's log writer writes, converted
// through its sparse histogram as Writer did before it encoded lines itself.
func libraryLine(t testing.TB, tag string, start, end time.Time, h *measure.Histogram) []byte {
	t.Helper()
	p := hdrhistogram.NewPacked(measure.LowestNs, measure.HighestNs, measure.SigFigs)
	var err error
	h.EachBin(func(lowest, _, n int64) bool {
		err = p.RecordValues(lowest, n)
		return err == nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p.SetTag(tag)
	p.SetStartTimeMs(start.UnixMilli())
	p.SetEndTimeMs(end.UnixMilli())
	var buf bytes.Buffer
	if err := hdrhistogram.NewHistogramLogWriter(&buf).OutputIntervalPackedHistogram(p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// splitLine returns an interval line's fields before the histogram and the histogram.
func splitLine(t *testing.T, line []byte) (prefix, hist string) {
	t.Helper()
	s, ok := strings.CutSuffix(string(line), "\n")
	i := strings.LastIndexByte(s, ',')
	if !ok || i < 0 || strings.Count(s, "\n") != 0 {
		t.Fatalf("not one interval line: %q", line)
	}
	return s[:i], s[i+1:]
}

// inflate returns the uncompressed V2 encoding of a base64 compressed histogram, after
// checking its cookie and length.
func inflate(t *testing.T, hist string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(hist)
	if err != nil || len(b) < 8 {
		t.Fatalf("%q: %v", hist, err)
	}
	if c, n := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:]); c != cookieV2Compressed || int(n) != len(b)-8 {
		t.Fatalf("compressed header: cookie %#x, length %d for %d bytes", c, n, len(b)-8)
	}
	zr, err := zlib.NewReader(bytes.NewReader(b[8:]))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// checkBins fails unless lib, decoded by hdrhistogram-go, holds h's bins and counts, and
// only those.
func checkBins(t *testing.T, what string, lib *hdrhistogram.Histogram, h *measure.Histogram) {
	t.Helper()
	type bin struct{ from, to, n int64 }
	var want, got []bin
	h.EachBin(func(lowest, highest, n int64) bool {
		want = append(want, bin{lowest, highest, n})
		return true
	})
	for _, b := range lib.Distribution() {
		if b.Count != 0 {
			got = append(got, bin{b.From, b.To, b.Count})
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: the library decodes bins %v, the histogram has %v", what, got, want)
	}
	if lib.TotalCount() != h.Count() {
		t.Errorf("%s: the library decodes %d values, the histogram has %d", what, lib.TotalCount(), h.Count())
	}
}

// Every histogram's line, decoded by hdrhistogram-go, holds its bins, count, maximum and
// percentiles, as the library's own encoding of it does; its fields and its uncompressed
// encoding are the library's byte for byte, and at the library's compression level the
// whole line is.
func TestEncoderMatchesLibrary(t *testing.T) {
	ours, err := newEncoder(compression)
	if err != nil {
		t.Fatal(err)
	}
	best, err := newEncoder(zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	start, end := t0, t0.Add(987*time.Millisecond)
	for name, h := range testHistograms() {
		tag := []string{"", TagResponse}[len(name)%2]
		want := libraryLine(t, tag, start, end, h)
		line, err := ours.interval(tag, start, end, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gotPrefix, gotHist := splitLine(t, line)
		wantPrefix, wantHist := splitLine(t, want)
		if gotPrefix != wantPrefix {
			t.Errorf("%s: line %q, the library's %q", name, gotPrefix, wantPrefix)
		}
		if raw, libRaw := inflate(t, gotHist), inflate(t, wantHist); !bytes.Equal(raw, libRaw) {
			t.Errorf("%s: uncompressed encoding\n%x\nthe library's\n%x", name, raw, libRaw)
		}
		got, err := hdrhistogram.Decode([]byte(gotHist))
		if err != nil {
			t.Fatalf("%s: the library cannot decode our histogram: %v", name, err)
		}
		lib, err := hdrhistogram.Decode([]byte(wantHist))
		if err != nil {
			t.Fatal(err)
		}
		checkBins(t, name, got, h)
		if !got.Equals(lib) || got.Max() != lib.Max() {
			t.Errorf("%s: decoded histogram (max %d) differs from the library's encoding (max %d)", name, got.Max(), lib.Max())
		}
		for _, p := range percentiles {
			if g, w := got.ValueAtPercentile(p), lib.ValueAtPercentile(p); g != w {
				t.Errorf("%s p%v: %d, from the library's encoding %d", name, p, g, w)
			}
		}
		if line, err := best.interval(tag, start, end, h); err != nil || !bytes.Equal(line, want) {
			t.Errorf("%s: at the library's level, line\n%q (%v)\nthe library's\n%q", name, line, err, want)
		}
	}
}

// A log of Writer, read back by hdrhistogram-go's HistogramLogReader, gives every line's tag,
// times and histogram, as the library's reader gives them from the library's log of the same
// lines, whatever the order of wide and narrow histograms through the reused encoder; Reader
// reads the same counts and percentiles.
func TestWriterReadBackByTheLibrary(t *testing.T) {
	hs := testHistograms()
	var names []string
	for name := range hs {
		names = append(names, name)
	}
	var buf, libBuf bytes.Buffer
	w, err := NewWriter(&buf, t0, "a comment")
	if err != nil {
		t.Fatal(err)
	}
	libBuf.Write(buf.Bytes()) // the same header
	type line struct {
		tag        string
		start, end time.Time
		h          *measure.Histogram
	}
	var lines []line
	for i, name := range names {
		l := line{tag: []string{"", TagResponse}[i%2], start: t0.Add(time.Duration(i) * time.Second), h: hs[name]}
		l.end = l.start.Add(time.Second - time.Duration(i%3)*time.Millisecond)
		if err := w.Write(l.tag, l.start, l.end, l.h); err != nil {
			t.Fatal(err)
		}
		libBuf.Write(libraryLine(t, l.tag, l.start, l.end, l.h))
		lines = append(lines, l)
	}
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(buf.Bytes()))
	libr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(libBuf.Bytes()))
	r := NewReader(bytes.NewReader(buf.Bytes()))
	for i, l := range lines {
		got, err := lr.NextIntervalHistogram()
		if err != nil || got == nil {
			t.Fatalf("line %d (%s): %v, %v", i, names[i], got, err)
		}
		want, err := libr.NextIntervalHistogram()
		if err != nil || want == nil {
			t.Fatalf("the library's line %d: %v, %v", i, want, err)
		}
		if got.Tag() != want.Tag() || got.StartTimeMs() != want.StartTimeMs() || got.EndTimeMs() != want.EndTimeMs() {
			t.Errorf("line %d: tag %q from %d to %d ms, from the library's log %q from %d to %d", i, got.Tag(),
				got.StartTimeMs(), got.EndTimeMs(), want.Tag(), want.StartTimeMs(), want.EndTimeMs())
		}
		if got.Tag() != l.tag || got.StartTimeMs() != l.start.UnixMilli() {
			t.Errorf("line %d: tag %q from %d ms, written %q from %d", i, got.Tag(), got.StartTimeMs(), l.tag, l.start.UnixMilli())
		}
		checkBins(t, names[i], got, l.h)
		iv, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if p99 := min(iv.Hist.ValueAtPercentile(99), l.h.Max()); iv.Tag != l.tag || iv.Hist.Count() != l.h.Count() || p99 != l.h.ValueAtPercentile(99) {
			t.Errorf("line %d (%s): Reader reads %q, %d values, p99 %d; written %q, %d, %d", i, names[i], iv.Tag,
				iv.Hist.Count(), p99, l.tag, l.h.Count(), l.h.ValueAtPercentile(99))
		}
	}
	if h, err := lr.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("after the last line: %v, %v", h, err)
	}
}

// A tag that would break the line is refused.
func TestWriterRefusesBadTag(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, t0)
	if err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	for _, tag := range []string{"a,b", "a b", "a\nb", ","} {
		if err := w.Write(tag, t0, t0.Add(time.Second), measure.NewHistogram()); err == nil {
			t.Errorf("tag %q accepted", tag)
		}
	}
	if buf.Len() != n {
		t.Errorf("refused lines were written: %q", buf.Bytes()[n:])
	}
}

// Once its buffers have grown to the widest histogram, a line allocates nothing, whatever the
// histogram.
func TestWriterAllocatesNothing(t *testing.T) {
	hs := testHistograms()
	w, err := NewWriter(io.Discard, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs { // the buffers grow to the widest
		if err := w.Write(TagResponse, t0, t0.Add(time.Second), h); err != nil {
			t.Fatal(err)
		}
	}
	for name, h := range hs {
		allocs := testing.AllocsPerRun(5, func() {
			if err := w.Write(TagResponse, t0, t0.Add(time.Second), h); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations a line", name, allocs)
		}
	}
}
