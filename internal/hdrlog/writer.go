// Package hdrlog writes and reads latency histograms as HdrHistogram interval logs (the format
// of HdrHistogram's HistogramLogWriter, read by its HistogramLogProcessor and by
// hdrhistogram-go's HistogramLogReader): a run directory's hdr/<configuration>/<step>/<op>.hlog,
// one line per second, which `enginebench merge` merges bin by bin (docs/results.md).
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
// its histogram (compressed, base64), in nanoseconds with measure's geometry (1 ns to an hour,
// 3 significant digits). It converts each measure.Histogram through one reused
// hdrhistogram-go histogram of the sparse kind, a few KB, never a dense 270 KB one.
type Writer struct {
	bw *bufio.Writer
	lw *hdrhistogram.HistogramLogWriter
	h  *hdrhistogram.PackedHistogram
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
	return &Writer{bw: bw, lw: lw, h: newHist()}, nil
}

// newHist returns an empty sparse hdrhistogram-go histogram of measure's geometry.
func newHist() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(measure.LowestNs, measure.HighestNs, measure.SigFigs)
}

// Write writes the line of the interval from start to end with histogram h (tag "" for none,
// TagResponse for response times) and flushes it to the underlying writer. Its timestamps are
// in whole milliseconds; its maximum is at the histogram's resolution (0.1%) as the format
// has it.
func (w *Writer) Write(tag string, start, end time.Time, h *measure.Histogram) error {
	w.h.Reset()
	var err error
	h.EachBin(func(lowest, _, n int64) bool {
		err = w.h.RecordValues(lowest, n)
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("hdr log: %w", err)
	}
	w.h.SetTag(tag)
	w.h.SetStartTimeMs(start.UnixMilli())
	w.h.SetEndTimeMs(end.UnixMilli())
	if err := w.lw.OutputIntervalPackedHistogram(w.h); err != nil {
		return fmt.Errorf("hdr log: %w", err)
	}
	return w.bw.Flush()
}
