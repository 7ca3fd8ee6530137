package merge

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// Sample is an `enginebench sample` directory: the database host's CPU, IO and sizes, a row
// per second (docs/scale-out.md).
type Sample struct {
	Dir  string
	Host result.Host
	rows []sampleRow
}

// sampleRow is one second of a sample: its end (the sampling host's clock) and the deltas of
// that second (the levels at its end for levelKeys), only those measured.
type sampleRow struct {
	end  time.Time
	vals map[string]float64
}

// levelKeys are the sample's keys that are levels at a row's time, not deltas over its second.
var levelKeys = map[string]bool{measure.KeyDBGB1: true, measure.KeyDBGB2: true, measure.KeyRSSMB: true, measure.KeyFreqMHz: true}

// sampleMeta is sample.json.
type sampleMeta struct {
	Kind    string      `json:"kind"`
	Version int         `json:"version"`
	Host    result.Host `json:"host"`
}

// LoadSample reads the sample directory dir; errors are *badinput.Error.
func LoadSample(dir string) (*Sample, error) {
	b, err := os.ReadFile(filepath.Join(dir, "sample.json"))
	if err != nil {
		return nil, badinput.Errorf("--sample %s is not an enginebench sample directory: %v", dir, err)
	}
	var m sampleMeta
	if err := json.Unmarshal(b, &m); err != nil || m.Kind != "enginebench-sample" {
		return nil, badinput.Errorf("--sample %s: sample.json is not an enginebench sample's (kind %q, %v)", dir, m.Kind, err)
	}
	if m.Version != 1 {
		return nil, badinput.Errorf("--sample %s: sample version %d; this enginebench reads version 1", dir, m.Version)
	}
	rows, err := readSamples(filepath.Join(dir, "samples.csv"))
	if err != nil {
		return nil, badinput.Errorf("--sample %s: %v", dir, err)
	}
	return &Sample{Dir: dir, Host: m.Host, rows: rows}, nil
}

// readSamples reads samples.csv: time_unix_ms, then a column per key; an empty cell was not
// measured.
func readSamples(path string) ([]sampleRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	header, err := cr.Read()
	if err != nil || len(header) == 0 || header[0] != "time_unix_ms" {
		return nil, fmt.Errorf("%s: not a samples file (its header must start with time_unix_ms)", path)
	}
	var rows []sampleRow
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ms, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: time_unix_ms: %w", path, line, err)
		}
		r := sampleRow{end: time.UnixMilli(ms), vals: map[string]float64{}}
		for j := 1; j < len(rec); j++ {
			if rec[j] == "" {
				continue
			}
			if r.vals[header[j]], err = strconv.ParseFloat(rec[j], 64); err != nil {
				return nil, fmt.Errorf("%s line %d, %s: %w", path, line, header[j], err)
			}
		}
		rows = append(rows, r)
	}
}

// between returns the rows whose end lies in (from, to].
func (s *Sample) between(from, to time.Time) []sampleRow {
	var out []sampleRow
	for _, r := range s.rows {
		if r.end.After(from) && !r.end.After(to) {
			out = append(out, r)
		}
	}
	return out
}

// usage sets the merged step's usage and what derives from it: the database host's figures
// from the sample's seconds of the step (none without a sample: they are absent, never a
// client host's), and the shards' client CPU summed.
func usage(st *result.Step, active []part, smp *Sample) {
	u := map[string]float64{}
	if smp != nil {
		index := map[int]int{}
		for i := range st.Intervals.Len() {
			index[st.Intervals.Second(i)] = i
		}
		for _, r := range smp.between(st.StartedAt, stepEnd(st)) {
			for k, v := range r.vals {
				if levelKeys[k] {
					u[k] = v // the last row's level
				} else {
					u[k] += v
				}
			}
			if i, ok := index[secondOf(st.StartedAt, r.end)]; ok {
				for k, v := range r.vals {
					st.Intervals.SetMetric(i, k, v)
				}
			}
		}
		setSize(st, u)
	}
	if cpu, ok := clientCPU(active); ok {
		u[measure.KeyClientCPU] = cpu
	}
	if len(u) == 0 {
		return
	}
	st.Usage = u
	b := measure.Basis{PerOp: st.Primary}
	if op := st.Ops["insert"]; op != nil && op.Units > 0 {
		b.PerWrite = "insert"
	}
	measure.Derive(st, b)
	if st.Resources != nil {
		// The client's share of a host's CPUs: the shards' clients ran on other hosts.
		st.Resources.ClientCPUPct = nil
	}
}

// setSize sets the step's sizes from the sample's levels at its end.
func setSize(st *result.Step, u map[string]float64) {
	gb1, ok1 := u[measure.KeyDBGB1]
	gb2, ok2 := u[measure.KeyDBGB2]
	if !ok1 && !ok2 {
		return
	}
	st.Size = &result.Size{}
	if ok1 {
		st.Size.DBGB1 = &gb1
	}
	if ok2 {
		st.Size.DBGB2 = &gb2
	}
}

// clientCPU returns the shards' client CPU seconds summed; ok is false when a shard did not
// measure its own.
func clientCPU(active []part) (float64, bool) {
	var sum float64
	for _, p := range active {
		v, ok := p.st.Usage[measure.KeyClientCPU]
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, true
}
