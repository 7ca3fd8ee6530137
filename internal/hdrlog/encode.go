package hdrlog

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
)

// The cookies of HdrHistogram's V2 encoding (the 0x10 is the word size of its Java form),
// the size of its header and the compression of our lines.
const (
	cookieV2           = 0x1c849303 | 0x10
	cookieV2Compressed = 0x1c849304 | 0x10
	headerLen          = 40
	// compression is the zlib level of our lines: Huffman coding only, without the search
	// for repeated strings, which varints of counts hardly have (a run of empty bins is
	// already one varint). On seconds of 20, 2,000 and 50,000 latencies its lines are within
	// 4% of DefaultCompression's (8% shorter for 2,000) and up to 13% shorter than
	// BestSpeed's, for 33 to 57% of DefaultCompression's CPU and 71 to 100% of BestSpeed's
	// (BenchmarkEncoderLevels; docs/performance.md, "A line of the hdr logs").
	compression = zlib.HuffmanOnly
)

// encoder writes interval lines of measure.Histograms in HdrHistogram's V2 compressed
// encoding, into buffers it reuses: once they have grown to the widest histogram, a line
// allocates nothing. Its output decodes, with hdrhistogram-go or HdrHistogram, to the
// histogram that hdrhistogram-go's encoder writes for the same bins (the same header and
// counts, compressed at another level). It is not safe for concurrent use.
type encoder struct {
	g    geometry     // measure's, which numbers the counts
	raw  []byte       // the uncompressed histogram: the 40-byte header, then the counts
	z    bytes.Buffer // the compressed histogram: the 8-byte header, then zlib's stream
	zw   *zlib.Writer // reset per line: its compressor is allocated once
	line []byte       // the line
}

// newEncoder returns an encoder that compresses at zlib level level.
func newEncoder(level int) (*encoder, error) {
	zw, err := zlib.NewWriterLevel(nil, level)
	if err != nil {
		return nil, err
	}
	return &encoder{g: newGeometry(measure.LowestNs, measure.SigFigs), zw: zw}, nil
}

// interval returns the interval line of h from start to end with tag ("" for none), as
// hdrhistogram-go's HistogramLogWriter writes it with a base time of 0 (timestamps in
// seconds, maximum in milliseconds, six decimals). The line is valid until the next call.
func (e *encoder) interval(tag string, start, end time.Time, h *measure.Histogram) ([]byte, error) {
	if strings.ContainsAny(tag, ", \r\n") {
		return nil, errors.New("a tag cannot hold a comma, a space or a line break: " + strconv.Quote(tag))
	}
	maxNs, err := e.compress(h)
	if err != nil {
		return nil, err
	}
	l := e.line[:0]
	if tag != "" {
		l = append(append(append(l, "Tag="...), tag...), ',')
	}
	startSec := float64(start.UnixMilli()) / 1000
	endSec := float64(end.UnixMilli()) / 1000
	l = strconv.AppendFloat(l, startSec, 'f', 6, 64)
	l = strconv.AppendFloat(append(l, ','), endSec-startSec, 'f', 6, 64)
	l = strconv.AppendFloat(append(l, ','), float64(maxNs)/1e6, 'f', 6, 64)
	l = base64.StdEncoding.AppendEncode(append(l, ','), e.z.Bytes())
	e.line = append(l, '\n')
	return e.line, nil
}

// compress puts h's V2 compressed encoding in e.z and returns the highest value of its last
// bin (0 when h is empty), the maximum that the encoding keeps.
func (e *encoder) compress(h *measure.Histogram) (maxNs int64, err error) {
	maxNs = e.encode(h)
	e.z.Reset()
	var head [8]byte // the cookie and the length, set below
	e.z.Write(head[:])
	e.zw.Reset(&e.z)
	if _, err := e.zw.Write(e.raw); err != nil {
		return 0, err
	}
	if err := e.zw.Close(); err != nil {
		return 0, err
	}
	z := e.z.Bytes()
	binary.BigEndian.PutUint32(z, cookieV2Compressed)
	binary.BigEndian.PutUint32(z[4:], uint32(len(z)-8))
	return maxNs, nil
}

// encode puts h's uncompressed V2 encoding in e.raw: the header (cookie, payload length,
// normalizing index offset 0, significant digits, lowest and highest trackable value,
// integer-to-double ratio 1), then the counts from index 0 to the last bin's as ZigZag LEB128
// varints, each run of two or more empty bins as one negative count (an empty bin alone as
// a count of 0). An empty histogram has one count, 0. It returns the highest value of the
// last bin (0 when h is empty).
func (e *encoder) encode(h *measure.Histogram) (maxNs int64) {
	r := append(e.raw[:0], make([]byte, headerLen)...)
	binary.BigEndian.PutUint32(r, cookieV2)
	binary.BigEndian.PutUint32(r[12:], measure.SigFigs)
	binary.BigEndian.PutUint64(r[16:], uint64(measure.LowestNs))
	binary.BigEndian.PutUint64(r[24:], uint64(measure.HighestNs))
	binary.BigEndian.PutUint64(r[32:], math.Float64bits(1))
	next := 0 // the index of the next count to write
	h.EachBin(func(lowest, highest, n int64) bool {
		i := e.g.countsIndex(lowest)
		switch gap := i - next; {
		case gap == 1:
			r = appendZigZag(r, 0)
		case gap > 1:
			r = appendZigZag(r, -int64(gap))
		}
		r = appendZigZag(r, n)
		next, maxNs = i+1, highest
		return true
	})
	if next == 0 {
		r = appendZigZag(r, 0)
	}
	binary.BigEndian.PutUint32(r[4:], uint32(len(r)-headerLen))
	e.raw = r
	return maxNs
}

// appendZigZag appends v ZigZag-encoded as HdrHistogram's LEB128 varint of at most 9 bytes:
// 7 bits a byte, the high bit set when another follows, the ninth byte's 8 bits the last.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for range 8 {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
