// Package sample records a database server's resource series on its own host, beside a
// server that benchmark shards reach over the network: host CPU, the DBMS's CPU, IO and memory,
// the data device's IO and the data directory's size, one row a second, into a sample
// directory (sample.json and samples.csv) that `enginebench merge` joins to the shards' runs by
// time (docs/scale-out.md).
package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// The sample directory's files and sample.json's kind and version.
const (
	MetaFile    = "sample.json"
	SamplesFile = "samples.csv"
	Kind        = "enginebench-sample"
	Version     = 1
	// TimeColumn is samples.csv's first column: the end of each row's second, Unix ms.
	TimeColumn = "time_unix_ms"
)

// Meta is sample.json: what was sampled, where and when.
type Meta struct {
	Kind    string      `json:"kind"`
	Version int         `json:"version"`
	Host    result.Host `json:"host"`
	// DBMSPID is the root of the DBMS's process tree; 0 (absent) when not known.
	DBMSPID int    `json:"dbms_pid,omitempty"`
	DataDir string `json:"data_dir"`
	// Device is the data directory's block device ("" when it has none, e.g. tmpfs).
	Device  string    `json:"device"`
	Started time.Time `json:"started"`
	// Ended is set when the sampling ends; absent while it runs (or after kill -9).
	Ended *time.Time `json:"ended,omitempty"`
	Notes []string   `json:"notes,omitempty"`
}

// Columns are the raw keys of measure.OS a sample records, in samples.csv's order (after
// TimeColumn). The sampler's own CPU (measure.KeyClientCPU) and the peak memory of a step
// are not among them; dbgb1, the benchmark database's own files, is measured only by the
// shards, which reach the database (see Keys).
var Columns = []string{
	measure.KeyCPU, measure.KeyCPUUsSy, measure.KeyCPUAll, measure.KeyCS, measure.KeyDBCPU,
	measure.KeyReads, measure.KeyReadKB, measure.KeyWrites, measure.KeyWriteKB,
	measure.KeyReadMs, measure.KeyWriteMs, measure.KeyIOMs, measure.KeyQueueMs,
	measure.KeyDBReadKB, measure.KeyDBWriteKB, measure.KeyRSSMB, measure.KeyDBGB1, measure.KeyDBGB2,
	measure.KeySeconds,
}

// Keys returns the columns of a sample of a DBMS process (dbms) with a data directory
// (dataDir) on a block device (device): the keys that can be measured, in Columns' order.
func Keys(dbms, dataDir, device bool) []string {
	var out []string
	for _, k := range Columns {
		switch k {
		case measure.KeyDBCPU, measure.KeyDBReadKB, measure.KeyDBWriteKB, measure.KeyRSSMB:
			if !dbms {
				continue
			}
		case measure.KeyReads, measure.KeyReadKB, measure.KeyWrites, measure.KeyWriteKB,
			measure.KeyReadMs, measure.KeyWriteMs, measure.KeyIOMs, measure.KeyQueueMs:
			if !device {
				continue
			}
		case measure.KeyDBGB1:
			continue // the whole directory is not the benchmark database: only with a DSN
		case measure.KeyDBGB2:
			if !dataDir {
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

// Sampler takes the readings: measure.OS.
type Sampler interface {
	Begin(ctx context.Context, now time.Time)
	Sample(ctx context.Context, now time.Time) map[string]float64
}

// Options configures Run.
type Options struct {
	// Dir is the sample directory; it exists and is empty.
	Dir string
	// Meta is written to sample.json at the start, and again with Ended at the end.
	Meta Meta
	// Keys are samples.csv's columns after TimeColumn (Keys()).
	Keys    []string
	Sampler Sampler
	Clock   runner.Clock
	// Duration ends the sampling after that long; 0: when ctx ends.
	Duration time.Duration
	// Alive, when set, is asked after each row whether the DBMS is still running; the sampling
	// ends with an error when it is not.
	Alive func() error
	// Row, when set, is called after each row is written, with its number (1 for the first).
	Row func(n int)
}

// Run samples every second until ctx ends or Duration has passed, writing each row to
// samples.csv as it is taken, and returns the number of rows. Rows end at whole seconds of
// the clock (the first and the last cover what is left of theirs; usage_s says how long each
// is); the sampling ends with a last row up to the moment it stops, and sample.json gets Ended.
// An error is a file that could not be written or a DBMS that went away; what was sampled
// until then stays written.
func Run(ctx context.Context, o Options) (rows int, err error) {
	// samples.csv first, and only if it is new: a second sampler into the same directory
	// fails here, before it touches the first's sample.json.
	f, err := os.OpenFile(filepath.Join(o.Dir, SamplesFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, fmt.Errorf("sample: %w", err)
	}
	o.Meta.Kind, o.Meta.Version, o.Meta.Ended = Kind, Version, nil
	o.Meta.Started = o.Clock.Now()
	if err := writeMeta(o.Dir, o.Meta); err != nil {
		return 0, errors.Join(err, f.Close())
	}
	defer func() {
		err = errors.Join(err, f.Close())
		ended := o.Clock.Now()
		o.Meta.Ended = &ended
		err = errors.Join(err, writeMeta(o.Dir, o.Meta))
	}()
	if _, err := f.WriteString(TimeColumn + "," + strings.Join(o.Keys, ",") + "\n"); err != nil {
		return 0, fmt.Errorf("sample: %w", err)
	}
	return loop(ctx, o, f)
}

// loop takes the rows and writes each to f at once.
func loop(ctx context.Context, o Options, f *os.File) (int, error) {
	keep := context.WithoutCancel(ctx) // the last row is read after ctx ended
	start := o.Meta.Started
	o.Sampler.Begin(keep, start)
	var end time.Time
	if o.Duration > 0 {
		end = start.Add(o.Duration)
	}
	last, rows := start, 0
	buf := make([]byte, 0, 256)
	for next := start.Truncate(time.Second).Add(time.Second); ; next = next.Add(time.Second) {
		if !end.IsZero() && next.After(end) {
			next = end
		}
		stopped := o.Clock.WaitUntil(ctx, next) != nil
		now := o.Clock.Now()
		if now.After(last) || rows == 0 {
			buf = appendRow(buf[:0], now, o.Keys, o.Sampler.Sample(keep, now))
			if _, err := f.Write(buf); err != nil {
				return rows, fmt.Errorf("sample: %w", err)
			}
			rows++
			last = now
			if o.Row != nil {
				o.Row(rows)
			}
		}
		if stopped || next.Equal(end) {
			return rows, nil
		}
		if o.Alive != nil {
			if err := o.Alive(); err != nil {
				return rows, err
			}
		}
		if now.After(next) { // a late row covers the seconds it missed; the next ends at a whole one
			next = now.Truncate(time.Second)
		}
	}
}

// appendRow appends samples.csv's row of m, taken at now, to buf: an empty cell for a key
// that was not measured.
func appendRow(buf []byte, now time.Time, keys []string, m map[string]float64) []byte {
	buf = strconv.AppendInt(buf, now.UnixMilli(), 10)
	for _, k := range keys {
		buf = append(buf, ',')
		if v, ok := m[k]; ok {
			buf = strconv.AppendFloat(buf, v, 'f', -1, 64)
		}
	}
	return append(buf, '\n')
}

// writeMeta writes sample.json in dir, atomically.
func writeMeta(dir string, m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	if err := result.WriteFile(filepath.Join(dir, MetaFile), append(b, '\n')); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	return nil
}
