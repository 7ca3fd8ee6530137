package hdrlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// DirName is the directory of a run directory that holds its logs; Ext the extension of a
// log's file.
const (
	DirName = "hdr"
	Ext     = ".hlog"
)

// Dir writes a run's HdrHistogram interval logs under its root (a run directory's hdr/):
// <configuration>/<step>/<op>.hlog, a file per operation type that measured a latency, each
// written a line at a time as the step runs. It implements runner.HistogramLog.
type Dir struct {
	root string
}

// NewDir returns the logs under root, which is created when the first log is.
func NewDir(root string) *Dir { return &Dir{root: root} }

// Path returns the log of operation op of step of configuration config under root.
func Path(root, config, step, op string) string {
	return filepath.Join(root, result.FileName(config), result.FileName(step), result.FileName(op)+Ext)
}

// Step implements runner.HistogramLog: the logs of one step, created as its operation types
// first measure a latency.
func (d *Dir) Step(config, step string, start time.Time) (runner.StepLog, error) {
	return &stepLogs{root: d.root, config: config, step: step, start: start, files: map[string]*opLog{}}, nil
}

// stepLogs are the logs of one step, one per operation type.
type stepLogs struct {
	root, config, step string
	start              time.Time
	files              map[string]*opLog
	// w is the last log opened: every log of the step encodes with the encoder of the first
	// (its zlib compressor holds about 800 KB).
	w *Writer
}

// opLog is one operation type's open log.
type opLog struct {
	f *os.File
	w *Writer
}

// Interval implements runner.StepLog: a line of service time and, for an open-loop
// operation, a line of response time (TagResponse).
func (s *stepLogs) Interval(op string, start, end time.Time, svc, rt *measure.Histogram) error {
	l, err := s.open(op)
	if err != nil {
		return err
	}
	if svc != nil && svc.Count() > 0 {
		err = l.w.Write("", start, end, svc)
	}
	if err == nil && rt != nil && rt.Count() > 0 {
		err = l.w.Write(TagResponse, start, end, rt)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", l.f.Name(), err)
	}
	return nil
}

// open returns op's log, created with its header when op first measures a latency. Every
// log of the step encodes with the first one's encoder.
func (s *stepLogs) open(op string) (*opLog, error) {
	if l := s.files[op]; l != nil {
		return l, nil
	}
	path := Path(s.root, s.config, s.step, op)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, s.start, fmt.Sprintf("enginebench: configuration %s, step %s, operation %s; values in nanoseconds; "+
		"untagged lines: service time, Tag=%s: response time from the intended start", s.config, s.step, op, TagResponse))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.w != nil {
		w.enc = s.w.enc
	}
	s.w = w
	l := &opLog{f: f, w: w}
	s.files[op] = l
	return l, nil
}

// Close implements runner.StepLog: it closes every log of the step.
func (s *stepLogs) Close() error {
	var errs []error
	for _, l := range s.files {
		if err := l.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.f.Name(), err))
		}
	}
	s.files = nil
	return errors.Join(errs...)
}
