package hdrlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/measure"
)

// Interval is one line of an HdrHistogram interval log.
type Interval struct {
	// Tag is the line's tag ("" for none).
	Tag string
	// Start and End are the interval's absolute times (the log's base time added), to the
	// millisecond.
	Start, End time.Time
	// Hist is the interval's histogram in measure's geometry: each of the log's bins counted at
	// its highest value, so that its percentiles are the log's (hdrhistogram-go's
	// ValueAtPercentile); its Max is the highest value of the last bin.
	Hist *measure.Histogram
}

// Reader reads an HdrHistogram interval log, as HdrHistogram's HistogramLogWriter and
// hdrhistogram-go's write it (and Writer): comment lines (#), the optional
// #[StartTime: ...] and #[BaseTime: ...] lines, the legend, and interval lines
// [Tag=<tag>,]<start>,<length>,<max>,<histogram>. Timestamps are absolute when the log has a
// base time of 0, or none and timestamps within a year of its start time; otherwise relative
// to the base time (or the start time), as HdrHistogram's reader takes them.
type Reader struct {
	sc              *bufio.Scanner
	line            int
	startSec        float64
	haveStart       bool
	baseSec         float64
	haveBase        bool
	reStart, reBase *regexp.Regexp
}

// NewReader returns a Reader of the log r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // a line's histogram can be long
	return &Reader{sc: sc, reStart: regexp.MustCompile(`^#\[StartTime: ([\d.]+)`),
		reBase: regexp.MustCompile(`^#\[BaseTime: ([\d.]+)`)}
}

// Next returns the log's next interval; io.EOF after the last.
func (r *Reader) Next() (*Interval, error) {
	for r.sc.Scan() {
		r.line++
		line := strings.TrimRight(r.sc.Text(), "\r")
		switch {
		case line == "" || strings.HasPrefix(line, `"`): // the legend
			continue
		case strings.HasPrefix(line, "#"):
			if err := r.header(line); err != nil {
				return nil, err
			}
			continue
		}
		iv, err := r.interval(line)
		if err != nil {
			return nil, fmt.Errorf("hdr log line %d: %w", r.line, err)
		}
		return iv, nil
	}
	if err := r.sc.Err(); err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	return nil, io.EOF
}

// header reads a comment line: the start or base time, or nothing.
func (r *Reader) header(line string) error {
	for _, h := range []struct {
		re   *regexp.Regexp
		sec  *float64
		have *bool
	}{{r.reStart, &r.startSec, &r.haveStart}, {r.reBase, &r.baseSec, &r.haveBase}} {
		if m := h.re.FindStringSubmatch(line); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return fmt.Errorf("hdr log line %d: %w", r.line, err)
			}
			*h.sec, *h.have = v, true
		}
	}
	return nil
}

// interval parses an interval line.
func (r *Reader) interval(line string) (*Interval, error) {
	iv := &Interval{}
	if rest, ok := strings.CutPrefix(line, "Tag="); ok {
		tag, rest, ok := strings.Cut(rest, ",")
		if !ok {
			return nil, errors.New("a tag without an interval")
		}
		iv.Tag, line = tag, rest
	}
	f := strings.SplitN(line, ",", 4)
	if len(f) != 4 {
		return nil, fmt.Errorf("not an interval line (%d fields): %.40q", len(f), line)
	}
	var start, length float64
	var err error
	if start, err = strconv.ParseFloat(f[0], 64); err == nil {
		length, err = strconv.ParseFloat(f[1], 64)
	}
	if err != nil {
		return nil, err
	}
	r.deduceBase(start)
	iv.Start = msTime(start + r.baseSec)
	iv.End = msTime(start + r.baseSec + length)
	p, err := hdrhistogram.DecodePacked([]byte(f[3]))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	iv.Hist = toMeasure(p)
	return iv, nil
}

// deduceBase sets the base time of a log without one from its first interval's start, as
// HdrHistogram's reader does: 0 (absolute timestamps) unless the start is more than a year
// before the log's start time, then the start time.
func (r *Reader) deduceBase(start float64) {
	if !r.haveStart {
		r.startSec, r.haveStart = start, true
	}
	if !r.haveBase {
		if start < r.startSec-365*24*3600 {
			r.baseSec = r.startSec
		}
		r.haveBase = true
	}
}

// msTime returns the time of sec seconds since the epoch, to the millisecond.
func msTime(sec float64) time.Time { return time.UnixMilli(int64(math.Round(sec * 1000))) }

// toMeasure returns the counts of p in a measure.Histogram, each bin of p's counted at its
// highest value: the same bins for a log of measure's geometry, and percentiles that are p's
// for any geometry of coarser bins.
func toMeasure(p *hdrhistogram.PackedHistogram) *measure.Histogram {
	g := newGeometry(p.LowestTrackableValue(), p.SignificantFigures())
	h := measure.NewHistogram()
	p.ForEachBucket(func(value, count int64) bool {
		h.RecordN(g.highestEquivalent(value), count)
		return true
	})
	return h
}

// geometry is the part of an HdrHistogram's geometry that sizes its bins.
type geometry struct {
	unitMag, halfMag int
	mask             uint64
}

// newGeometry returns the geometry of an HdrHistogram of lowest discernible value lowest and
// sig significant digits, as HdrHistogram computes it.
func newGeometry(lowest, sig int64) geometry {
	countMag := int(math.Ceil(math.Log2(2 * math.Pow10(int(sig)))))
	g := geometry{halfMag: max(countMag, 1) - 1, unitMag: max(bits.Len64(uint64(max(lowest, 1)))-1, 0)}
	g.mask = (uint64(1)<<(g.halfMag+1) - 1) << g.unitMag
	return g
}

// highestEquivalent returns the highest value in the bin whose lowest value is v.
func (g geometry) highestEquivalent(v int64) int64 {
	bucket := bits.Len64(uint64(v)|g.mask) - g.unitMag - (g.halfMag + 1)
	return v + int64(1)<<(g.unitMag+bucket) - 1
}

// countsIndex returns the index of the bin of value v (>= 0) in an HdrHistogram's counts.
func (g geometry) countsIndex(v int64) int {
	bucket := bits.Len64(uint64(v)|g.mask) - g.unitMag - (g.halfMag + 1)
	return (bucket+1)<<g.halfMag + int(v>>(bucket+g.unitMag)) - 1<<g.halfMag
}
