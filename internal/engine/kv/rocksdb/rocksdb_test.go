//go:build rocksdb && cgo

package rocksdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// openTest opens the engine on dir through the registry, as the command does.
func openTest(t testing.TB, dir string, settings map[string]string) *db {
	t.Helper()
	return enginetest.Open(t, context.Background(), Driver(), "", settings, dir).(*db)
}

// TestConformance runs the suite with the defaults, with 1 MiB memtables, no block cache,
// zstd and fsync, so that flushes and compactions run during the tests, and with direct IO.
func TestConformance(t *testing.T) {
	kvtest.RunDriver(t, Driver(), map[string]map[string]string{
		"SmallMemtable": {"memtable_mb": "1", "cache_mb": "0", "compression": "zstd",
			"sync": "true", "l0_compaction_trigger": "2", "bloom_bits_per_key": "0"},
		"DirectIO": {"memtable_mb": "1", "direct_reads": "true", "direct_io_for_flush_and_compaction": "true"},
	})
}

// TestDirectIO: the direct IO settings reach RocksDB, as the OPTIONS file it writes in the
// data directory records them; they are off by default.
func TestDirectIO(t *testing.T) {
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{nil, "false"},
		{map[string]string{"direct_reads": "true", "direct_io_for_flush_and_compaction": "true"}, "true"},
	} {
		dir := t.TempDir()
		d := openTest(t, dir, c.settings)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no OPTIONS file in %s (%v)", dir, err)
		}
		opts, err := os.ReadFile(files[len(files)-1])
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"use_direct_reads", "use_direct_io_for_flush_and_compaction"} {
			if !strings.Contains(string(opts), "\n  "+key+"="+c.want+"\n") {
				t.Errorf("settings %v: OPTIONS lacks %s=%s", c.settings, key, c.want)
			}
		}
	}
}

func TestSettings(t *testing.T) {
	drv := Driver()
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"compression": "brotli"}, "compression"},
		{map[string]string{"l0_stop_writes_trigger": "2"}, "<="},
		{map[string]string{"memtable_mb": "0"}, "memtable_mb"},
	} {
		if err := drv.CheckSettings(c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error about %s", c.settings, err, c.want)
		}
	}
	d := openTest(t, t.TempDir(), map[string]string{"compression": "zstd"})
	if s := d.Settings(); s["compression"] != "zstd" || s["sync"] != "false" || len(s) != len(settings()) {
		t.Errorf("effective settings %v", s)
	}
	if v := d.Version(); !strings.HasPrefix(v, "7.") && !strings.HasPrefix(v, "8.") && !strings.HasPrefix(v, "9.") {
		t.Errorf("version %q, want librocksdb's", v)
	}
}

// TestStatsAndCleanup writes enough through 1 MiB memtables to flush and compact, then checks
// the debt counters and that cleanup leaves no memtable data and no compaction pending.
func TestStatsAndCleanup(t *testing.T) {
	d := openTest(t, t.TempDir(), map[string]string{"memtable_mb": "1", "l0_compaction_trigger": "2"})
	b := d.NewBatch()
	for i := range 40000 {
		b.Set(fmt.Appendf(nil, "k%08d", (i*7919)%40000), make([]byte, 100))
		if b.Len() == 1000 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := errors.Join(b.Commit(), b.Close()); err != nil {
		t.Fatal(err)
	}
	kvtest.Cleanup(t, d, "flush the memtables")
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pending_compaction_bytes", "l0_files", "stall_micros", "flush_bytes_written", "compaction_bytes_written", "wal_bytes", "memtable_bytes"} {
		if _, ok := st[k]; !ok {
			t.Errorf("stats lack %s: %v", k, st)
		}
	}
	if st["flush_bytes_written"] <= 0 || st["compaction_bytes_written"] <= 0 || st["wal_bytes"] <= 0 ||
		st["compactions_running"] != 0 || st["pending_compaction_bytes"] != 0 {
		t.Errorf("after 4 MB through 1 MiB memtables and a cleanup: %v", st)
	}
	if n, err := kv.Count(context.Background(), d, nil, nil); err != nil || n != 40000 {
		t.Errorf("count %d, %v", n, err)
	}
	checkMemoryStats(t, d)
	kvtest.CheckClose(t, d)
}

// checkMemoryStats: after a scan of the whole database, the block cache holds its blocks, the
// memtables counted with those iterators pin are at least the current ones, and malloc has
// handed out at least the block cache.
func checkMemoryStats(t *testing.T, d *db) {
	t.Helper()
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"block_cache_bytes", "block_cache_pinned_bytes", "memtables_all_bytes", "table_readers_bytes", "malloc_in_use_bytes", "malloc_free_bytes"} {
		if _, ok := st[k]; !ok {
			t.Errorf("stats lack %s: %v", k, st)
		}
	}
	if st["block_cache_bytes"] <= 0 || st["memtables_all_bytes"] < st["memtable_bytes"] ||
		st["malloc_in_use_bytes"] < st["block_cache_bytes"] {
		t.Errorf("memory stats after a scan: %v", st)
	}
}

// TestNoLeakOverReopens opens and closes the database 100 times, writing, reading and iterating
// each time, and checks that resident memory stays bounded: the engine frees the options,
// cache, batches and iterators it takes from the C library.
func TestNoLeakOverReopens(t *testing.T) {
	// Each open takes a 4 MiB memtable, 2 MB of data in the block cache and its options:
	// leaking them would add hundreds of MiB.
	kvtest.CheckReopens(t, Driver(), kvtest.Reopens{Settings: map[string]string{"cache_mb": "8", "memtable_mb": "4"},
		Keys: 2000, ValueBytes: 1000, Warmup: 10, Rounds: 100, LimitMB: 64})
}

// TestBuild checks that Build records the library's version as the OPTIONS file (Version) has
// it, and the compressions the engine's settings use.
func TestBuild(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := enginetest.CheckBuild(t, d, "rocksdb", d.Version(), grocksdbModule)
	comps := " " + b[engine.BuildCompressions] + " "
	for _, c := range []string{"kSnappyCompression", "kLZ4Compression", "kZSTD"} {
		if !strings.Contains(comps, " "+c+" ") {
			t.Errorf("compressions %q lack %s", comps, c)
		}
	}
}
