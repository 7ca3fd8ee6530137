package result

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/enginebench/enginebench/internal/runlock"
)

// Dir is a run directory: run.json, intervals.csv, summary.md and the report.
type Dir struct {
	path string
}

// MinFreeBytes is the free space CreateDir asks of a results directory's filesystem: room for
// the run.json, intervals.csv and report of a long run.
const MinFreeBytes = 8 << 20

// probeBytes is the size of the file CreateDir writes to check that results can be written.
const probeBytes = 1 << 20

// CreateDir creates the run directory path (and its parents) and checks that results can be
// written in it: a file of 1 MiB is written and removed, and its filesystem has MinFreeBytes
// free. An existing directory that holds anything but a run's lock file is an error: results
// are never mixed or overwritten. Errors wrap the system's (errors.Is sees ENOSPC, EIO, ...).
func CreateDir(path string) (*Dir, error) {
	if entries, err := os.ReadDir(path); err == nil && slices.ContainsFunc(entries, notLock) {
		return nil, fmt.Errorf("results directory %s is not empty", path)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("results directory %s cannot be created: %w", path, err)
	}
	if err := ProbeWrite(path, probeBytes); err != nil {
		return nil, fmt.Errorf("results directory %s is not writable: %w", path, err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return nil, fmt.Errorf("results directory %s: %w", path, err)
	}
	if free := int64(st.Bavail) * int64(st.Bsize); free < MinFreeBytes {
		return nil, fmt.Errorf("results directory %s has %.1f MiB free; results need at least %d MiB (choose another --out)",
			path, float64(free)/(1<<20), MinFreeBytes>>20)
	}
	return &Dir{path: path}, nil
}

// notLock reports whether e is anything but a run's lock file (package runlock).
func notLock(e os.DirEntry) bool { return !strings.HasPrefix(e.Name(), runlock.FileName) }

// ProbeWrite checks that files can be written in dir: it creates a file there, writes size
// bytes to it and syncs them, and removes it. Errors are the system's.
func ProbeWrite(dir string, size int) error {
	f, err := os.CreateTemp(dir, ".enginebench-probe-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(make([]byte, size))
	err = errors.Join(werr, f.Sync(), f.Close())
	return errors.Join(err, os.Remove(f.Name()))
}

// OpenDir returns the existing run directory path, to rewrite its files.
func OpenDir(path string) *Dir { return &Dir{path: path} }

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// WriteFile writes name in the directory atomically (see WriteFile).
func (d *Dir) WriteFile(name string, data []byte) error {
	return WriteFile(filepath.Join(d.path, name), data)
}

// WriteFile writes the file at path atomically: a temporary file beside it, renamed into place,
// so an interrupt never leaves half a file. The file is readable by all (0644): results hold
// no credentials.
func WriteFile(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic writes the file at path as WriteFile does, with what write writes to it through
// a buffer.
func writeAtomic(path string, write func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	err = errors.Join(werr, f.Close())
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteRun writes run.json.
func (d *Dir) WriteRun(r *Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run.json: %w", err)
	}
	return d.WriteFile("run.json", append(b, '\n'))
}

// intervalOpColumns are the per-operation columns of intervals.csv, after "<op>_".
var intervalOpColumns = []string{"count", "per_sec", "p50_us", "p99_us", "max_us", "rt_p99_us", "rt_max_us", "errors"}

// absentOpCells are the intervalOpColumns of an operation absent from an interval: all empty.
var absentOpCells = strings.Repeat(",", len(intervalOpColumns))

// WriteIntervals (re)writes intervals.csv from every step's per-second series: one row per
// (config, step, second). A cell that was not measured in that second is empty, never 0. The
// file is written a row at a time, never whole in memory.
func (d *Dir) WriteIntervals(r *Run) error {
	ops, metrics := intervalNames(r)
	return writeAtomic(filepath.Join(d.path, "intervals.csv"), func(w io.Writer) error {
		header := []string{"config", "step", "second", "time"}
		for _, op := range ops {
			for _, col := range intervalOpColumns {
				header = append(header, op+"_"+col)
			}
		}
		if err := writeCSV(w, append(header, metrics...)); err != nil {
			return err
		}
		var row []byte
		for _, c := range r.Configs {
			for si := range c.Steps {
				sw, err := newStepRows(c.Name, &c.Steps[si], ops, metrics)
				if err != nil {
					return err
				}
				for i := range c.Steps[si].Intervals.Len() {
					row = sw.row(row[:0], i)
					if _, err := w.Write(row); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// writeCSV writes one record to w as encoding/csv does.
func writeCSV(w io.Writer, rec []string) error {
	cw := csv.NewWriter(w)
	cw.Write(rec)
	cw.Flush()
	return cw.Error()
}

// intervalNames returns the operations and the metrics of every interval of r, sorted.
func intervalNames(r *Run) (ops, metrics []string) {
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			ops = append(ops, s.Intervals.OpNames()...)
			metrics = append(metrics, s.Intervals.MetricNames()...)
		}
	}
	slices.Sort(ops)
	slices.Sort(metrics)
	return slices.Compact(ops), slices.Compact(metrics)
}

// stepRows writes the rows of intervals.csv of one step.
type stepRows struct {
	step *Step
	// prefix is the first two cells, the configuration and the step, as encoding/csv writes
	// them (quoted where they need it); the other cells are numbers, which never need it.
	prefix []byte
	// ops and metrics are the step's columns of the file's operations and metrics, in the
	// file's order; nil for those the step does not have.
	ops     []*opSeries
	metrics []*column
}

// newStepRows prepares the rows of step s of configuration config, in a file of the
// operations ops and the metrics metrics.
func newStepRows(config string, s *Step, ops, metrics []string) (*stepRows, error) {
	var b bytes.Buffer
	if err := writeCSV(&b, []string{config, s.Name}); err != nil {
		return nil, err
	}
	sw := &stepRows{step: s, prefix: bytes.TrimSuffix(b.Bytes(), []byte("\n"))}
	if sr := s.Intervals; sr != nil {
		for _, op := range ops {
			sw.ops = append(sw.ops, sr.op(op))
		}
		for _, m := range metrics {
			var col *column
			if k, ok := sr.metricIndex[m]; ok {
				col = &sr.metrics[k].col
			}
			sw.metrics = append(sw.metrics, col)
		}
	}
	return sw, nil
}

// row appends the row of interval i to b: the operations' columns, then the metrics, empty
// where not measured.
func (sw *stepRows) row(b []byte, i int) []byte {
	sr := sw.step.Intervals
	prev := sw.step.StartedAt
	if i > 0 {
		prev = sr.Time(i - 1)
	}
	// The rate is over the interval as the file shows its times (to the millisecond), so
	// that the rate times that length is the interval's units again (ReadIntervals).
	secs := sr.Time(i).Truncate(time.Millisecond).Sub(prev.Truncate(time.Millisecond)).Seconds()
	b = append(append(b, sw.prefix...), ',')
	b = strconv.AppendInt(b, int64(sr.Second(i)), 10)
	b = sr.Time(i).UTC().AppendFormat(append(b, ','), "2006-01-02T15:04:05.000Z07:00")
	for _, op := range sw.ops {
		o, ok := IntervalOp{}, false
		if op != nil {
			o, ok = op.at(i)
		}
		b = appendOpCells(b, o, ok, secs)
	}
	for _, col := range sw.metrics {
		b = append(b, ',')
		if col != nil {
			if v := col.at(i, math.NaN()); !math.IsNaN(v) {
				b = appendCell(b, v)
			}
		}
	}
	return append(b, '\n')
}

// appendOpCells appends the intervalOpColumns of operation o in an interval of secs, each
// after a comma: all empty when the interval does not have o (!ok); else the rate is empty
// without a duration, the latencies without an operation, and the response times when none
// was measured.
func appendOpCells(b []byte, o IntervalOp, ok bool, secs float64) []byte {
	if !ok {
		return append(b, absentOpCells...)
	}
	cell := func(v float64, measured bool) {
		b = append(b, ',')
		if measured {
			b = appendCell(b, v)
		}
	}
	b = strconv.AppendInt(append(b, ','), o.Count, 10)
	cell(float64(o.Units)/secs, secs > 0)
	cell(o.P50, o.Count != 0)
	cell(o.P99, o.Count != 0)
	cell(o.Max, o.Count != 0)
	cell(o.RtP99, o.RtMax != 0)
	cell(o.RtMax, o.RtMax != 0)
	return strconv.AppendInt(append(b, ','), o.Errors, 10)
}

// appendCell appends a number of intervals.csv: the shortest form that reads back exactly.
func appendCell(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }

// Load reads run.json from a run directory or from the file itself.
func Load(path string) (*Run, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "run.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read run: %w", err)
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read run %s: malformed: %w", path, err)
	}
	return &r, nil
}

// LoadDir reads a run directory: run.json and, when the directory has one, intervals.csv into
// each step's Intervals.
func LoadDir(dir string) (*Run, error) {
	r, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	if err := ReadIntervals(filepath.Join(dir, "intervals.csv"), r); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return r, nil
}

// ReadIntervals reads intervals.csv (as WriteIntervals writes it) into the Intervals of r's
// steps, matched by configuration and step name; rows of steps r does not have are skipped. An
// empty cell was not measured: its op field stays 0 and its metric is absent; an operation
// whose cells are all empty is absent from the interval.
func ReadIntervals(path string, r *Run) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read intervals: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.ReuseRecord = true
	ir, err := readIntervalHeader(cr, path)
	if err != nil {
		return err
	}
	steps := map[[2]string]*Step{}
	for ci := range r.Configs {
		c := &r.Configs[ci]
		for si := range c.Steps {
			c.Steps[si].Intervals = nil
			steps[[2]string{c.Name, c.Steps[si].Name}] = &c.Steps[si]
		}
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		s := steps[[2]string{rec[0], rec[1]}]
		if s == nil {
			continue
		}
		if s.Intervals == nil {
			s.Intervals = &Series{}
		}
		if err := ir.interval(rec, line, s); err != nil {
			return err
		}
	}
	for _, s := range steps {
		s.Intervals.Trim()
	}
	return nil
}

// intervalReader reads the rows of an intervals.csv by the columns its header names.
type intervalReader struct {
	path   string
	header []string
	// ops are the operations' groups of intervalOpColumns, each at its first column; the
	// columns after the first four that are in none are metrics.
	ops     []intervalOpGroup
	metrics map[int]string
}

// intervalOpGroup is an operation's intervalOpColumns in intervals.csv, from column col.
type intervalOpGroup struct {
	name string
	col  int
}

// readIntervalHeader reads the header of the intervals.csv at path and finds its columns.
func readIntervalHeader(cr *csv.Reader, path string) (*intervalReader, error) {
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(header) < 4 || !slices.Equal(header[:4], []string{"config", "step", "second", "time"}) {
		return nil, fmt.Errorf("read %s: not an intervals file (header %q)", path, strings.Join(header[:min(4, len(header))], ","))
	}
	ir := &intervalReader{path: path, header: slices.Clone(header), metrics: map[int]string{}}
	for i := 4; i < len(header); {
		if op, ok := strings.CutSuffix(header[i], "_"+intervalOpColumns[0]); ok && i+len(intervalOpColumns) <= len(header) {
			group := true
			for j, c := range intervalOpColumns {
				group = group && header[i+j] == op+"_"+c
			}
			if group {
				ir.ops = append(ir.ops, intervalOpGroup{op, i})
				i += len(intervalOpColumns)
				continue
			}
		}
		ir.metrics[i] = header[i]
		i++
	}
	return ir, nil
}

// bad is the error of the cell of line and column col.
func (ir *intervalReader) bad(line, col int, err error) error {
	return fmt.Errorf("read %s: line %d, column %s: %w", ir.path, line, ir.header[col], err)
}

// interval parses row rec, at line of the file, into a new interval of step s.
func (ir *intervalReader) interval(rec []string, line int, s *Step) error {
	second, err := strconv.Atoi(rec[2])
	if err != nil {
		return ir.bad(line, 2, err)
	}
	at, err := time.Parse(time.RFC3339Nano, rec[3])
	if err != nil {
		return ir.bad(line, 3, err)
	}
	start := s.StartedAt.Truncate(time.Millisecond) // as the writer took it
	if n := s.Intervals.Len(); n > 0 {
		start = s.Intervals.Time(n - 1)
	}
	i := s.Intervals.Append(second, at)
	for _, g := range ir.ops {
		if rec[g.col] == "" {
			continue // the op does not run in this step
		}
		o, err := ir.op(rec, line, g.col)
		if err != nil {
			return err
		}
		if secs := at.Sub(start).Seconds(); secs > 0 {
			o.Units = int64(math.Round(o.PerSec * secs))
		}
		s.Intervals.SetOp(i, g.name, o)
	}
	for col, name := range ir.metrics {
		if rec[col] == "" {
			continue
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil {
			return ir.bad(line, col, err)
		}
		s.Intervals.SetMetric(i, name, v)
	}
	return nil
}

// op parses the operation's intervalOpColumns of row rec from column col; empty cells are 0.
func (ir *intervalReader) op(rec []string, line, col int) (IntervalOp, error) {
	var v [8]float64
	for j := range intervalOpColumns {
		if cell := rec[col+j]; cell != "" {
			var err error
			if v[j], err = strconv.ParseFloat(cell, 64); err != nil {
				return IntervalOp{}, ir.bad(line, col+j, err)
			}
		}
	}
	return IntervalOp{Count: int64(v[0]), PerSec: v[1], P50: v[2], P99: v[3], Max: v[4],
		RtP99: v[5], RtMax: v[6], Errors: int64(v[7])}, nil
}
