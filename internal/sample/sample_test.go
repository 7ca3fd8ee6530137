package sample

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/runner"
)

// fakeSampler counts its samples: each returns cpu_s = the sample's number, and db_cpu_s
// only on even ones; it tells the test when Begin and each Sample ran.
type fakeSampler struct {
	began   chan time.Time
	sampled chan time.Time
	n       int
}

func newFake() *fakeSampler {
	return &fakeSampler{began: make(chan time.Time, 1), sampled: make(chan time.Time, 100)}
}

func (f *fakeSampler) Begin(_ context.Context, now time.Time) { f.began <- now }

func (f *fakeSampler) Sample(_ context.Context, now time.Time) map[string]float64 {
	f.n++
	m := map[string]float64{measure.KeyCPU: float64(f.n), measure.KeySeconds: 0.5}
	if f.n%2 == 0 {
		m[measure.KeyDBCPU] = 0.25
	}
	f.sampled <- now
	return m
}

// run starts Run in dir with the fake sampler and a manual clock at start, and returns the
// clock, the sampler, a channel of the rows written and one of Run's result.
func run(ctx context.Context, dir string, start time.Time, d time.Duration, alive func() error) (*runner.ManualClock, *fakeSampler, chan int, chan error) {
	clock := runner.NewManualClock(start)
	fs := newFake()
	rows, done := make(chan int, 100), make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Dir: dir, Meta: Meta{DataDir: "/data", DBMSPID: 42}, Keys: []string{measure.KeyCPU, measure.KeyDBCPU, measure.KeySeconds},
			Sampler: fs, Clock: clock, Duration: d, Alive: alive, Row: func(n int) { rows <- n }})
		done <- err
	}()
	<-fs.began
	return clock, fs, rows, done
}

// readRows returns samples.csv's lines of dir, failing the test unless every line ends with a
// newline and has the header's number of fields.
func readRows(t *testing.T, dir string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "\n") {
		t.Fatalf("samples.csv does not end with a newline: %q", b)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		rows = append(rows, strings.Split(l, ","))
		if len(rows[len(rows)-1]) != len(rows[0]) {
			t.Fatalf("line %q: %d fields, the header has %d", l, len(rows[len(rows)-1]), len(rows[0]))
		}
	}
	return rows
}

func readMeta(t *testing.T, dir string) Meta {
	t.Helper()
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Rows end at whole seconds of the clock (the first covers the rest of its second), each is
// written as it is taken, an unmeasured key is an empty cell, and a cancel ends the sampling
// with a last row up to that moment and sample.json's ended.
func TestRunWritesEachSecondAndALastRowAtTheCancel(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 24, 16, 0, 0, 400_000_000, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	clock, fs, rows, done := run(ctx, dir, start, 0, nil)
	if m := readMeta(t, dir); m.Kind != Kind || m.Version != Version || !m.Started.Equal(start) || m.Ended != nil || m.DBMSPID != 42 {
		t.Errorf("sample.json while sampling: %+v", m)
	}
	var times []time.Time
	for i, d := range []time.Duration{600 * time.Millisecond, time.Second, time.Second} {
		clock.Advance(d)
		times = append(times, <-fs.sampled)
		<-rows
		// Each row is in the file as soon as it is taken.
		if n := len(readRows(t, dir)); n != i+2 {
			t.Fatalf("after row %d, samples.csv has %d lines, want %d", i+1, n, i+2)
		}
	}
	clock.Advance(300 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	times = append(times, <-fs.sampled)
	want := []time.Time{start.Truncate(time.Second).Add(time.Second), start.Truncate(time.Second).Add(2 * time.Second),
		start.Truncate(time.Second).Add(3 * time.Second), start.Add(2900 * time.Millisecond)}
	if !slices.EqualFunc(times, want, time.Time.Equal) {
		t.Errorf("sampled at %v, want %v", times, want)
	}
	got := readRows(t, dir)
	if h := strings.Join(got[0], ","); h != "time_unix_ms,cpu_s,db_cpu_s,usage_s" {
		t.Errorf("header %q", h)
	}
	wantRows := [][]string{
		{"1795536001000", "1", "", "0.5"}, {"1795536002000", "2", "0.25", "0.5"},
		{"1795536003000", "3", "", "0.5"}, {"1795536003300", "4", "0.25", "0.5"},
	}
	if !slices.EqualFunc(got[1:], wantRows, slices.Equal) {
		t.Errorf("rows %v, want %v", got[1:], wantRows)
	}
	m := readMeta(t, dir)
	if m.Ended == nil || !m.Ended.Equal(want[3]) {
		t.Errorf("sample.json's ended %v, want %v", m.Ended, want[3])
	}
}

// --duration ends the sampling at its end, with a row up to it; a DBMS that goes away ends it
// with an error, its rows written.
func TestRunEndsAtTheDurationOrWithTheDBMS(t *testing.T) {
	start := time.Date(2026, 11, 24, 16, 0, 0, 0, time.UTC)
	t.Run("duration", func(t *testing.T) {
		dir := t.TempDir()
		clock, fs, _, done := run(context.Background(), dir, start, 1500*time.Millisecond, nil)
		clock.Advance(time.Second)
		<-fs.sampled
		clock.Advance(500 * time.Millisecond)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got := readRows(t, dir)
		if len(got) != 3 || got[1][0] != "1795536001000" || got[2][0] != "1795536001500" {
			t.Errorf("rows %v, want ends at 1 s and 1.5 s", got)
		}
		if m := readMeta(t, dir); m.Ended == nil || !m.Ended.Equal(start.Add(1500*time.Millisecond)) {
			t.Errorf("ended %v", m.Ended)
		}
	})
	t.Run("dbms gone", func(t *testing.T) {
		dir := t.TempDir()
		gone := errors.New("the DBMS process 42 ended")
		alive := func() error { return gone }
		clock, _, _, done := run(context.Background(), dir, start, 0, alive)
		clock.Advance(time.Second)
		if err := <-done; !errors.Is(err, gone) {
			t.Fatalf("Run: %v, want %v", err, gone)
		}
		if got := readRows(t, dir); len(got) != 2 {
			t.Errorf("rows %v, want the one before the DBMS went", got)
		}
		if m := readMeta(t, dir); m.Ended == nil {
			t.Error("sample.json has no ended")
		}
	})
}

// A second sampler into a directory that already has samples.csv fails at once and leaves the
// first's sample.json as it was.
func TestRunRefusesAnotherSamplesFile(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 24, 16, 0, 0, 0, time.UTC)
	clock, fs, _, done := run(context.Background(), dir, start, time.Second, nil)
	before, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Dir: dir, Keys: []string{measure.KeyCPU}, Sampler: newFake(), Clock: runner.NewManualClock(start)})
	if !errors.Is(err, os.ErrExist) {
		t.Errorf("second Run: %v, want the file exists", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, MetaFile)); string(after) != string(before) {
		t.Errorf("sample.json changed by the second Run:\n%s", after)
	}
	clock.Advance(time.Second)
	<-fs.sampled
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
