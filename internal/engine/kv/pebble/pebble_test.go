package pebble

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// openTest opens the engine on dir through the registry, as the command does.
func openTest(t *testing.T, dir string, settings map[string]string) *db {
	t.Helper()
	reg, err := engine.NewRegistry(Driver())
	if err != nil {
		t.Fatal(err)
	}
	e, err := reg.Open(context.Background(), engine.Config{Name: "pebble", Engine: "pebble", Settings: settings, DataDir: dir})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return e.(*db)
}

// closeAtEnd closes d when the test ends unless the test closed it.
func closeAtEnd(t *testing.T, d *db) {
	t.Cleanup(func() {
		if d.CheckOpen("close") == nil {
			if err := d.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		}
	})
}

// TestConformance runs the suite with the defaults, and with 1 MiB memtables and no block cache,
// so that flushes and compactions run during the tests, and with zstd.
func TestConformance(t *testing.T) {
	kvtest.RunDriver(t, Driver(), map[string]map[string]string{
		"SmallMemtable": {"memtable_mb": "1", "cache_mb": "0", "compression": "zstd",
			"l0_compaction_threshold": "2", "l0_stop_writes_threshold": "4", "bloom_bits_per_key": "0"},
	})
}

func TestSettingsDefaults(t *testing.T) {
	c, err := parseConfig(nil)
	if err != nil {
		t.Fatalf("defaults: %v", err)
	}
	want := config{cacheMB: 64, memtableMB: 64, compression: "snappy", sync: syncOff, maxConcurrentCompactions: 1,
		l0CompactionThreshold: 4, l0StopWritesThreshold: 12, bytesPerSync: 512 << 10, bloomBitsPerKey: 10}
	if c != want {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	// Every documented setting has a default and a doc, and Settings reports every one of them.
	eff := c.settings()
	for _, s := range Driver().Settings {
		if s.Default == "" || s.Doc == "" || strings.Contains(s.Doc, "\n") {
			t.Errorf("setting %s: default %q, doc %q", s.Name, s.Default, s.Doc)
		}
		if eff[s.Name] != s.Default {
			t.Errorf("setting %s: effective %q, default %q", s.Name, eff[s.Name], s.Default)
		}
	}
	if len(eff) != len(Driver().Settings) {
		t.Errorf("%d effective settings, %d documented", len(eff), len(Driver().Settings))
	}
}

func TestSettingsParse(t *testing.T) {
	good := []struct {
		in   map[string]string
		name string
		want string
	}{
		{map[string]string{"compression": " ZSTD "}, "compression", "zstd"},
		{map[string]string{"compression": "none"}, "compression", "none"},
		{map[string]string{"sync": "1"}, "sync", "true"},
		{map[string]string{"sync": "TRUE"}, "sync", "true"},
		{map[string]string{"sync": " Write "}, "sync", "write"},
		{map[string]string{"sync": "0"}, "sync", "false"},
		{map[string]string{"cache_mb": " 0"}, "cache_mb", "0"},
		{map[string]string{"l0_compaction_threshold": "12", "l0_stop_writes_threshold": "12"}, "l0_stop_writes_threshold", "12"},
		{map[string]string{"max_concurrent_compactions": "2"}, "max_concurrent_compactions", "2"},
		{map[string]string{"bytes_per_sync": "1048576"}, "bytes_per_sync", "1048576"},
		{map[string]string{"bloom_bits_per_key": "0"}, "bloom_bits_per_key", "0"},
	}
	for _, g := range good {
		c, err := parseConfig(g.in)
		if err != nil {
			t.Errorf("%v: %v", g.in, err)
			continue
		}
		if got := c.settings()[g.name]; got != g.want {
			t.Errorf("%v: %s = %q, want %q", g.in, g.name, got, g.want)
		}
	}

	bad := []struct {
		name, value, want string
	}{
		{"cache_mb", "x", `pebble: setting cache_mb: "x" is not an integer`},
		{"cache_mb", "lots", `setting cache_mb: "lots" is not an integer`},
		{"cache_mb", "-1", "cache_mb: -1 is out of range"},
		{"cache_mb", "1.5", "is not an integer"},
		{"memtable_mb", "0", "memtable_mb: 0 is out of range [1, 4095]"},
		{"memtable_mb", "4096", "out of range"},
		{"memtable_mb", "", `memtable_mb: "" is not an integer`},
		{"compression", "lz4", `compression: "lz4" is not one of snappy, zstd, none`},
		{"sync", "sometimes", `pebble: setting sync: "sometimes" is not true, write or false`},
		{"max_concurrent_compactions", "0", "out of range"},
		{"l0_compaction_threshold", "0", "out of range"},
		{"l0_stop_writes_threshold", "3", "l0_stop_writes_threshold: 3 is below l0_compaction_threshold (4)"},
		{"bytes_per_sync", "0", "out of range"},
		{"bloom_bits_per_key", "-1", "out of range"},
	}
	reg, err := engine.NewRegistry(Driver())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		o := map[string]string{b.name: b.value}
		if _, err := parseConfig(o); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s=%q: error %v, want %q", b.name, b.value, err, b.want)
		}
		// The registry refuses the value before opening anything, and so does Open.
		cfg := engine.Config{Name: "pebble", Engine: "pebble", Settings: o, DataDir: t.TempDir()}
		if err := reg.Check(cfg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("registry check %s=%q: error %v, want %q", b.name, b.value, err, b.want)
		}
		if e, err := Driver().Open(context.Background(), cfg); err == nil {
			e.Close()
			t.Errorf("open with %s=%q succeeded", b.name, b.value)
		}
	}
	if err := reg.Check(engine.Config{Engine: "pebble", Settings: map[string]string{"cache": "1"}}); err == nil {
		t.Error("unknown setting accepted")
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Driver().Open(context.Background(), engine.Config{Engine: "pebble"}); err == nil {
		t.Error("open without a data directory succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Driver().Open(ctx, engine.Config{Engine: "pebble", DataDir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("open with a canceled context: %v", err)
	}
	// A second engine on a directory in use fails on pebble's lock.
	dir := t.TempDir()
	d := openTest(t, dir, nil)
	closeAtEnd(t, d)
	if e, err := Driver().Open(context.Background(), engine.Config{Engine: "pebble", DataDir: dir}); err == nil {
		e.Close()
		t.Error("second open of a directory in use succeeded")
	} else if !strings.Contains(err.Error(), dir) {
		t.Errorf("open error does not name the directory: %v", err)
	}
}

func TestEffectiveSettingsAndVersion(t *testing.T) {
	d := openTest(t, t.TempDir(), map[string]string{"compression": "Zstd", "sync": "true", "cache_mb": "8"})
	closeAtEnd(t, d)
	s := d.Settings()
	if s["compression"] != "zstd" || s["sync"] != "true" || s["cache_mb"] != "8" || s["memtable_mb"] != "64" {
		t.Errorf("effective settings %v", s)
	}
	if len(s) != len(Driver().Settings) {
		t.Errorf("%d effective settings, want %d", len(s), len(Driver().Settings))
	}
	if d.Family() != engine.FamilyKV {
		t.Errorf("family %q", d.Family())
	}
	v := d.Version()
	if v == "" || (v != unknownVersion && !strings.HasPrefix(v, "v1.")) {
		t.Errorf("version %q", v)
	}
	t.Logf("version %s", v)
	// A synchronous commit is readable, and survives a reopen.
	b := d.NewBatch()
	b.Set([]byte("k"), []byte("v"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
}

func TestUseAfterClose(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := d.NewBatch()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b.Set([]byte("k"), []byte("v"))
	checks := map[string]error{
		"second close": d.Close(),
		"commit":       b.Commit(),
		"cleanup":      d.Cleanup(context.Background(), engine.CleanupHooks{}),
	}
	_, _, checks["get"] = d.Get([]byte("k"), nil)
	_, checks["new iter"] = d.NewIter(nil, nil)
	_, checks["stats"] = d.Stats(context.Background())
	for op, err := range checks {
		if !errors.Is(err, errClosed) {
			t.Errorf("%s after close: %v, want an error wrapping %v", op, err, errClosed)
		}
	}
	if err := b.Close(); err != nil {
		t.Errorf("batch close after close: %v", err)
	}
}

// load writes n random keys with values of size bytes, in batches of 100.
func load(t *testing.T, d kv.DB, seed int64, n, size int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	b := d.NewBatch()
	defer b.Close()
	val := make([]byte, size)
	var key []byte
	for i := 0; i < n; i++ {
		rng.Read(val[:size/2]) // half random: compressible, but not trivially
		key = kv.AppendUint64(key[:0], rng.Uint64()%uint64(4*n))
		b.Set(key, val)
		if b.Len() == 100 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestCleanupPaysTheDebt(t *testing.T) {
	// With l0_compaction_threshold 1 every L0 file is compacted, so once the LSM has settled
	// pebble's estimated debt is 0.
	d := openTest(t, t.TempDir(), map[string]string{"memtable_mb": "1", "l0_compaction_threshold": "1",
		"l0_stop_writes_threshold": "8", "max_concurrent_compactions": "2"})
	closeAtEnd(t, d)
	load(t, d, 1, 40000, 200)
	before, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	if err := d.Cleanup(ctx, engine.CleanupHooks{}); err != nil {
		t.Fatalf("cleanup: %v", err)
	}
	after, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cleanup took %v\nbefore %v\nafter %v", time.Since(start).Round(time.Millisecond), before, after)
	m := d.pdb.Metrics()
	if m.Compact.NumInProgress != 0 || m.Flush.NumInProgress != 0 {
		t.Errorf("after cleanup: %d compactions and %d flushes running", m.Compact.NumInProgress, m.Flush.NumInProgress)
	}
	if after["pending_compaction_bytes"] != 0 || m.Compact.EstimatedDebt != 0 {
		t.Errorf("after cleanup: estimated compaction debt %d bytes, want 0", m.Compact.EstimatedDebt)
	}
	if after["memtable_bytes"] > before["memtable_bytes"] || after["flush_bytes_written"] == 0 || after["compaction_bytes_written"] == 0 {
		t.Errorf("after cleanup: stats %v", after)
	}
	if after["l0_files"] != 0 {
		t.Errorf("after cleanup: %v files in L0", after["l0_files"])
	}
	// The data is all there.
	it, err := d.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n > 40000 {
		t.Errorf("%d keys after cleanup", n)
	}
}

func TestCleanupDefaultThresholds(t *testing.T) {
	// With the default thresholds, L0 can keep a few files after Cleanup; the LSM is settled.
	d := openTest(t, t.TempDir(), map[string]string{"memtable_mb": "1"})
	closeAtEnd(t, d)
	for round := int64(0); round < 3; round++ {
		load(t, d, round, 15000, 200)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		err := d.Cleanup(ctx, engine.CleanupHooks{})
		cancel()
		if err != nil {
			t.Fatalf("round %d: cleanup: %v", round, err)
		}
		m := d.pdb.Metrics()
		if !settled(m) {
			t.Fatalf("round %d: not settled after cleanup:\n%s", round, m)
		}
		if m.Levels[0].Sublevels >= 4 {
			t.Errorf("round %d: %d L0 sublevels after cleanup", round, m.Levels[0].Sublevels)
		}
		t.Logf("round %d: L0 %d files, debt %d bytes", round, m.Levels[0].NumFiles, m.Compact.EstimatedDebt)
	}
}

func TestCleanupHonoursContext(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	closeAtEnd(t, d)
	load(t, d, 1, 1000, 100)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Cleanup(ctx, engine.CleanupHooks{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cleanup with a canceled context: %v", err)
	}
	// An empty database settles at once.
	e := openTest(t, t.TempDir(), nil)
	closeAtEnd(t, e)
	if err := e.Cleanup(context.Background(), engine.CleanupHooks{}); err != nil {
		t.Errorf("cleanup of an empty database: %v", err)
	}
}

func TestStats(t *testing.T) {
	d := openTest(t, t.TempDir(), map[string]string{"memtable_mb": "1"})
	closeAtEnd(t, d)
	keys := []string{"l0_files", "l0_sublevels", "pending_compaction_bytes", "write_stalls", "write_stall_seconds",
		"flush_bytes_written", "compaction_bytes_written", "memtable_bytes", "wal_bytes"}
	check := func(when string) map[string]float64 {
		t.Helper()
		st, err := d.Stats(context.Background())
		if err != nil {
			t.Fatalf("%s: stats: %v", when, err)
		}
		for _, k := range keys {
			if _, ok := st[k]; !ok {
				t.Errorf("%s: stats lack %s", when, k)
			}
		}
		for k, v := range st {
			if v < 0 || v != v {
				t.Errorf("%s: stat %s = %v", when, k, v)
			}
			if strings.ToLower(k) != k || strings.ContainsAny(k, " -.") {
				t.Errorf("%s: stat name %q is not snake_case", when, k)
			}
		}
		return st
	}
	check("empty")
	load(t, d, 1, 5000, 100)
	st := check("loaded")
	if st["wal_bytes"] == 0 || st["memtable_bytes"] == 0 {
		t.Errorf("after writes: wal_bytes %v memtable_bytes %v", st["wal_bytes"], st["memtable_bytes"])
	}
	kvtest.Cleanup(t, d, "flush the memtables")
	if st = check("after cleanup"); st["flush_bytes_written"] == 0 || st["disk_bytes"] == 0 {
		t.Errorf("after cleanup: %v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Stats(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("stats with a canceled context: %v", err)
	}
}

func TestStallCounter(t *testing.T) {
	var clock time.Duration
	s := stallCounter{elapsed: func() time.Duration { return clock }}
	if s.seconds() != 0 || s.count.Load() != 0 {
		t.Fatal("new counter not zero")
	}
	s.begin()
	clock += 20 * time.Millisecond
	if got := s.seconds(); got != 0.02 {
		t.Errorf("during a stall: %v s, want 0.02", got)
	}
	s.end()
	s.end() // an unpaired end changes nothing
	got := s.seconds()
	if got != 0.02 || s.count.Load() != 1 {
		t.Errorf("after one stall: %d stalls, %v s, want 1 stall, 0.02 s", s.count.Load(), got)
	}
	clock += 5 * time.Millisecond
	if s.seconds() != got {
		t.Errorf("stall time grows outside a stall: %v -> %v", got, s.seconds())
	}
}

// TestWriteStallsCounted drives writes into a tiny LSM that stops writes at once and checks that
// the listener counted the stalls pebble reported.
func TestWriteStallsCounted(t *testing.T) {
	d := openTest(t, t.TempDir(), map[string]string{"memtable_mb": "1", "l0_compaction_threshold": "1",
		"l0_stop_writes_threshold": "1", "compression": "none"})
	closeAtEnd(t, d)
	load(t, d, 3, 30000, 400)
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("write_stalls %v, write_stall_seconds %v", st["write_stalls"], st["write_stall_seconds"])
	if st["write_stalls"] > 0 && st["write_stall_seconds"] <= 0 {
		t.Errorf("%v stalls took no time", st["write_stalls"])
	}
}

func TestIterCopiesBounds(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	closeAtEnd(t, d)
	long := strings.Repeat("x", 100) // bounds too long for the inline buffer
	for _, pre := range []string{"", long} {
		b := d.NewBatch()
		for i := 0; i < 10; i++ {
			b.Set([]byte(fmt.Sprintf("%sk%d", pre, i)), nil)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		lo, hi := []byte(pre+"k2"), []byte(pre+"k5")
		it, err := d.NewIter(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		copy(lo, "zz")
		copy(hi, "aa")
		var got []string
		for ok := it.First(); ok; ok = it.Next() {
			got = append(got, strings.TrimPrefix(string(it.Key()), pre))
		}
		if strings.Join(got, ",") != "k2,k3,k4" {
			t.Errorf("prefix of %d bytes: keys %q after the caller changed its bounds, want k2, k3, k4", len(pre), got)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGetAllocations(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	closeAtEnd(t, d)
	b := d.NewBatch()
	b.Set([]byte("key"), []byte("value"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	key := []byte("key")
	buf := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(200, func() {
		v, ok, err := d.Get(key, buf[:0])
		if err != nil || !ok || string(v) != "value" {
			t.Fatalf("get: %q %v %v", v, ok, err)
		}
		b.Set(key, v)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per Get and Commit", allocs)
	b.Close()
}

func TestSettled(t *testing.T) {
	var busy, flushing, debtNoScore, debtScore, marked, clean pebble.Metrics
	busy.Compact.NumInProgress = 1
	flushing.Flush.NumInProgress = 1
	// L0 below the compaction threshold: debt that no compaction will pay.
	debtNoScore.Compact.EstimatedDebt = 1 << 20
	debtNoScore.Levels[0].Score = 0.5
	debtScore.Compact.EstimatedDebt = 1 << 20
	debtScore.Levels[3].Score = 1.2
	marked.Compact.EstimatedDebt = 1 << 20
	marked.Compact.MarkedFiles = 1
	cases := []struct {
		name string
		m    *pebble.Metrics
		want bool
	}{
		{"compaction running", &busy, false},
		{"flush running", &flushing, false},
		{"debt, no level to compact", &debtNoScore, true},
		{"debt, a level to compact", &debtScore, false},
		{"debt, files marked for compaction", &marked, false},
		{"no debt", &clean, true},
	}
	for _, c := range cases {
		if got := settled(c.m); got != c.want {
			t.Errorf("%s: settled %v, want %v", c.name, got, c.want)
		}
	}
}

// TestBuild checks that Build records the version Version reports, and leaves it out where the
// binary carries none (a test binary).
func TestBuild(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	closeAtEnd(t, d)
	version := d.Version()
	if version == unknownVersion {
		version = ""
	}
	enginetest.CheckBuild(t, d, "pebble", version, modulePath)
}
