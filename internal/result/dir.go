package result

import (
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
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	err = errors.Join(werr, cerr)
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

// WriteIntervals (re)writes intervals.csv from every step's per-second series: one row per
// (config, step, second). A cell that was not measured in that second is empty, never 0.
func (d *Dir) WriteIntervals(r *Run) error {
	ops, metrics := intervalNames(r)
	header := []string{"config", "step", "second", "time"}
	for _, op := range ops {
		for _, col := range intervalOpColumns {
			header = append(header, op+"_"+col)
		}
	}
	header = append(header, metrics...)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(header)
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			prev := s.StartedAt
			for _, iv := range s.Intervals {
				w.Write(intervalRow(c.Name, s.Name, iv, iv.Time.Sub(prev).Seconds(), ops, metrics))
				prev = iv.Time
			}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("encode intervals.csv: %w", err)
	}
	return d.WriteFile("intervals.csv", buf.Bytes())
}

// intervalNames returns the operations and the metrics of every interval of r, sorted.
func intervalNames(r *Run) (ops, metrics []string) {
	for _, c := range r.Configs {
		for _, s := range c.Steps {
			for _, iv := range s.Intervals {
				for op := range iv.Ops {
					if !slices.Contains(ops, op) {
						ops = append(ops, op)
					}
				}
				for m := range iv.Metrics {
					if !slices.Contains(metrics, m) {
						metrics = append(metrics, m)
					}
				}
			}
		}
	}
	slices.Sort(ops)
	slices.Sort(metrics)
	return ops, metrics
}

// intervalRow is the row of intervals.csv of interval iv, which lasted secs, of step step of
// configuration config: the operations' columns of ops, then the metrics, empty where not
// measured.
func intervalRow(config, step string, iv Interval, secs float64, ops, metrics []string) []string {
	row := []string{config, step, strconv.Itoa(iv.Second), iv.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	for _, op := range ops {
		o, ok := iv.Ops[op]
		if !ok {
			row = append(row, make([]string, len(intervalOpColumns))...)
			continue
		}
		row = appendOpCells(row, o, secs)
	}
	for _, m := range metrics {
		if v, ok := iv.Metrics[m]; ok {
			row = append(row, formatCell(v))
		} else {
			row = append(row, "")
		}
	}
	return row
}

// appendOpCells appends the intervalOpColumns of operation o in an interval of secs: the rate
// is empty without a duration, the latencies without an operation, and the response times
// when none was measured.
func appendOpCells(row []string, o IntervalOp, secs float64) []string {
	perSec := ""
	if secs > 0 {
		perSec = formatCell(float64(o.Units) / secs)
	}
	lat := func(v float64) string {
		if o.Count == 0 {
			return ""
		}
		return formatCell(v)
	}
	rt := func(v float64) string {
		if o.RtMax == 0 {
			return ""
		}
		return formatCell(v)
	}
	return append(row, strconv.FormatInt(o.Count, 10), perSec, lat(o.P50), lat(o.P99),
		lat(o.Max), rt(o.RtP99), rt(o.RtMax), strconv.FormatInt(o.Errors, 10))
}

// formatCell formats a number of intervals.csv: the shortest form that reads back exactly.
func formatCell(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

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
// empty cell was not measured: its op field stays 0 and its metric is absent.
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
	prev := map[*Step]time.Time{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		s := steps[[2]string{rec[0], rec[1]}]
		if s == nil {
			continue
		}
		start, ok := prev[s]
		if !ok {
			start = s.StartedAt
		}
		iv, err := ir.interval(rec, line, start)
		if err != nil {
			return err
		}
		prev[s] = iv.Time
		s.Intervals = append(s.Intervals, iv)
	}
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

// interval parses row rec, at line of the file, of a step whose previous interval ended at
// start (or which started then).
func (ir *intervalReader) interval(rec []string, line int, start time.Time) (Interval, error) {
	second, err := strconv.Atoi(rec[2])
	if err != nil {
		return Interval{}, ir.bad(line, 2, err)
	}
	at, err := time.Parse(time.RFC3339Nano, rec[3])
	if err != nil {
		return Interval{}, ir.bad(line, 3, err)
	}
	iv := Interval{Second: second, Time: at, Ops: make(map[string]IntervalOp, len(ir.ops))}
	for _, g := range ir.ops {
		if rec[g.col] == "" {
			continue // the op does not run in this step
		}
		o, err := ir.op(rec, line, g.col)
		if err != nil {
			return Interval{}, err
		}
		if secs := at.Sub(start).Seconds(); secs > 0 {
			o.Units = int64(math.Round(o.PerSec * secs))
		}
		iv.Ops[g.name] = o
	}
	for col, name := range ir.metrics {
		if rec[col] == "" {
			continue
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil {
			return Interval{}, ir.bad(line, col, err)
		}
		if iv.Metrics == nil {
			iv.Metrics = map[string]float64{}
		}
		iv.Metrics[name] = v
	}
	return iv, nil
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
