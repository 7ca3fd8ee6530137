// Package hdrlog writes and reads latency histograms as HdrHistogram interval logs (the format
// of HdrHistogram's HistogramLogWriter, read by its HistogramLogProcessor and by
// hdrhistogram-go's HistogramLogReader): a run directory's hdr/<configuration>/<step>/<op>.hlog,
// one line per second, which `enginebench merge` merges bin by bin (docs/results.md).
//
// hdrhistogram-go writes the logs' headers and decodes the histograms Reader reads; the
// interval lines are encoded here (encoder), from measure's bins, because the library's
// encoder costs about 0.5 ms of CPU, 862 KB and 2,961 allocations per line
// (BenchmarkLibraryWrite: an operation's second of 2,000 latencies; 0.8 to 3.3 ms of wall
// time on a loaded 2-core machine): a new zlib compressor at its best level and a slice per
// varint, for each line. LinkBench writes up to 20 lines a second, on the runner's goroutine,
// charged to the client. The encoder writes the same V2 encoding (the library's, byte for
// byte, before compression) with buffers and a zlib compressor it reuses: about 35 us of CPU
// per line, nothing allocated (BenchmarkWriterWrite; docs/performance.md, "A line of the hdr
// logs").
package hdrlog

import (
	"bufio"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/enginebench/enginebench/internal/measure"
)

// TagResponse tags the lines of response times (from an open-loop operation's intended start);
// the lines of service times have no tag, so that the HdrHistogram tools, which read untagged
// lines unless told a tag, show service time.
const TagResponse = "rt"

// Writer writes one HdrHistogram interval log: a header, then a line per interval with its
// start (seconds since the epoch, absolute), its length, its maximum (in milliseconds) and
// its histogram (V2, compressed, base64), in nanoseconds with measure's geometry (1 ns to an
// hour, 3 significant digits). It encodes each measure.Histogram's bins directly, in the
// reused buffers and zlib compressor of its encoder (shared by the logs of a step).
type Writer struct {
	w   io.Writer
	enc *encoder
}

// NewWriter writes the log's header to w: the format version, each of comments as a comment
// line, the start time (start), a base time of 0 (the intervals' timestamps are absolute, so
// that the logs of several hosts line up) and the legend.
func NewWriter(w io.Writer, start time.Time, comments ...string) (*Writer, error) {
	bw := bufio.NewWriter(w)
	lw := hdrhistogram.NewHistogramLogWriter(bw)
	err := lw.OutputLogFormatVersion()
	for _, c := range comments {
		if err == nil {
			err = lw.OutputComment(c)
		}
	}
	if err == nil {
		err = lw.OutputStartTime(start.UnixMilli())
	}
	if err == nil {
		err = lw.OutputBaseTime(0)
	}
	if err == nil {
		err = lw.OutputLegend()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("hdr log header: %w", err)
	}
	enc, err := newEncoder(compression)
	if err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	return &Writer{w: w, enc: enc}, nil
}

// Write writes the line of the interval from start to end with histogram h (tag "" for none,
// TagResponse for response times) to the underlying writer. Its timestamps are in whole
// milliseconds; its maximum is at the histogram's resolution (0.1%) as the format has it.
func (w *Writer) Write(tag string, start, end time.Time, h *measure.Histogram) error {
	line, err := w.enc.interval(tag, start, end, h)
	if err == nil {
		_, err = w.w.Write(line)
	}
	if err != nil {
		return fmt.Errorf("hdr log: %w", err)
	}
	return nil
}
