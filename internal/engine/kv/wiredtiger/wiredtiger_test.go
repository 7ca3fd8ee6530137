//go:build wiredtiger && cgo

package wiredtiger

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

// TestConformance runs the suite on a B-tree table with the defaults, and on an LSM table with
// 1 MiB chunks, zlib and fsync.
func TestConformance(t *testing.T) {
	kvtest.RunDriver(t, Driver(), map[string]map[string]string{
		"LSM":      {"table_type": "lsm", "lsm_chunk_mb": "1", "compression": "zlib", "sync": "true"},
		"DirectIO": {"direct_io": "data,checkpoint", "cache_mb": "8"},
	})
}

// TestDirectIO: the direct_io setting reaches WiredTiger, as the base configuration it writes
// when it creates the database records it; none by default; a bad list is refused.
func TestDirectIO(t *testing.T) {
	for _, c := range []struct {
		setting, want string
	}{
		{"", ""},
		{"data", "direct_io=[data]\n"},
		{" checkpoint, data", "direct_io=[checkpoint,data]\n"},
	} {
		dir := t.TempDir()
		if err := openTest(t, dir, map[string]string{"direct_io": c.setting}).Close(); err != nil {
			t.Fatal(err)
		}
		base, err := os.ReadFile(filepath.Join(dir, "WiredTiger.basecfg"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(base), "direct_io="); got != (c.want != "") || !strings.Contains(string(base), c.want) {
			t.Errorf("direct_io %q: WiredTiger.basecfg:\n%s\nwant %q", c.setting, base, c.want)
		}
	}
	for _, bad := range []string{"log", "data,data", "data,index"} {
		if err := Driver().CheckSettings(map[string]string{"direct_io": bad}); err == nil || !strings.Contains(err.Error(), "direct_io") {
			t.Errorf("direct_io %q: %v, want an error naming it", bad, err)
		}
	}
}

// TestStatsCleanupClose writes through a small cache, checks the statistics and the checkpoint
// of the cleanup, and that Close refuses to run under an iterator.
func TestStatsCleanupClose(t *testing.T) {
	for _, typ := range []string{"btree", "lsm"} {
		t.Run(typ, func(t *testing.T) {
			d := openTest(t, t.TempDir(), map[string]string{"table_type": typ, "cache_mb": "8", "lsm_chunk_mb": "1", "checkpoint_seconds": "0"})
			b := d.NewBatch()
			for i := range 20000 {
				b.Set(fmt.Appendf(nil, "k%08d", (i*7919)%20000), make([]byte, 100))
				if b.Len() == 500 {
					if err := b.Commit(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			before, err := d.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			kvtest.Cleanup(t, d, "checkpoint")
			after, err := d.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if after["checkpoints"] != before["checkpoints"]+1 || before["txn_commits"] < 40 || before["log_bytes_written"] <= 0 ||
				before["cache_max_bytes"] != 8<<20 {
				t.Errorf("stats before %v, after %v", before, after)
			}
			if typ == "lsm" && after["lsm_work_units_done"] <= 0 {
				t.Errorf("no LSM work after 2 MB through 1 MiB chunks: %v", after)
			}
			if n, err := kv.Count(context.Background(), d, nil, nil); err != nil || n != 20000 {
				t.Errorf("count %d, %v", n, err)
			}
			kvtest.CheckClose(t, d)
		})
	}
}

func TestSettingsAndErrors(t *testing.T) {
	drv := Driver()
	for _, bad := range []map[string]string{{"table_type": "hash"}, {"index_type": "hash"}, {"compression": "lz4"}, {"cache_mb": "0"},
		{"eviction_dirty_target": "20"}, {"eviction_target": "96"}, {"eviction_dirty_trigger": "96"}, {"eviction_trigger": "100"}} {
		if err := drv.CheckSettings(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	d := openTest(t, t.TempDir(), map[string]string{"table_type": "lsm", "eviction_dirty_target": "30", "eviction_dirty_trigger": "60"})
	if s := d.Settings(); s["table_type"] != "lsm" || s["index_type"] != "lsm" || s["eviction_dirty_trigger"] != "60" || len(s) != len(settings()) {
		t.Errorf("effective settings %v", s)
	}
	if v := d.Version(); !strings.HasPrefix(v, "3.") && !strings.HasPrefix(v, "10.") && !strings.HasPrefix(v, "11.") {
		t.Errorf("version %q", v)
	}
	// An error of the library comes back with its message: a key of a wrong kind cannot be
	// made here, so open a second connection on the same directory, which WiredTiger refuses.
	reg, _ := engine.NewRegistry(Driver())
	_, err := reg.Open(context.Background(), engine.Config{Name: "w", Engine: "wiredtiger", DataDir: d.dir})
	var we *Error
	if !errors.As(err, &we) || we.Msg == "" {
		t.Errorf("second open of the same directory: %v, want WiredTiger's error", err)
	}
}

// TestNoLeakOverReopens opens and closes the connection 40 times, writing, reading and
// iterating each time, and checks that resident memory stays bounded.
func TestNoLeakOverReopens(t *testing.T) {
	// Each connection allocates a 16 MiB cache and fills it with 2 MB: leaking the cache, a
	// connection or the sessions would add 100 to 640 MiB. Below that the resident size still
	// grows: glibc's per-thread arenas keep freed memory (WiredTiger starts its threads with each
	// connection), and with MALLOC_ARENA_MAX=1 libwiredtiger 3.2 was measured to grow about
	// 0.15 MiB per open; hence the bound.
	kvtest.CheckReopens(t, Driver(), kvtest.Reopens{Settings: map[string]string{"cache_mb": "16"},
		Keys: 2000, ValueBytes: 1000, Warmup: 5, Rounds: 40, LimitMB: 160})
}

// TestLongScansRenewSnapshots scans 3500 keys forwards and backwards, across three snapshot
// renewals each, while the keys behind the scan are deleted and new keys are written before
// it: every key is seen once, in order, and the scan ends.
func TestLongScansRenewSnapshots(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := d.NewBatch()
	const n = 3500
	for i := range n {
		b.Set(fmt.Appendf(nil, "k%06d", i), []byte("v"))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	it, err := d.NewIter([]byte("k"), []byte("l"))
	if err != nil {
		t.Fatal(err)
	}
	var prev []byte
	seen := 0
	for ok := it.First(); ok; ok = it.Next() {
		if prev != nil && string(it.Key()) <= string(prev) {
			t.Fatalf("key %q after %q", it.Key(), prev)
		}
		prev = append(prev[:0], it.Key()...)
		seen++
		b.Delete(it.Key())                   // behind the scan
		b.Set([]byte("a"+string(prev)), nil) // before its range
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil || seen != n {
		t.Fatalf("forward scan saw %d keys (%v), want %d", seen, err, n)
	}
	it, _ = d.NewIter([]byte("a"), []byte("b"))
	seen, prev = 0, nil
	for ok := it.Last(); ok; ok = it.Prev() {
		if prev != nil && string(it.Key()) >= string(prev) {
			t.Fatalf("key %q before %q", it.Key(), prev)
		}
		prev = append(prev[:0], it.Key()...)
		seen++
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil || seen != n {
		t.Fatalf("backward scan saw %d keys (%v), want %d", seen, err, n)
	}
}

// testRanges split the conformance suite's keys over tables of both kinds.
var testRanges = []kv.Range{
	{Name: "k3", Prefix: []byte("k3")},
	{Name: "k6", Prefix: []byte("k6"), Secondary: true},
	{Name: "acct", Prefix: []byte("acct/")},
	{Name: "mark", Prefix: []byte("mark/"), Secondary: true},
	{Name: "r01", Prefix: []byte("r01/")},
	{Name: "w1", Prefix: []byte("w1/"), Secondary: true},
}

// TestConformanceRanges runs the suite with key ranges declared, B-tree tables and LSM
// indexes, so that gets, batches and iterators cross tables.
func TestConformanceRanges(t *testing.T) {
	kvtest.Run(t, func(t *testing.T, dir string) kv.DB {
		d := openTest(t, dir, map[string]string{"index_type": "lsm", "lsm_chunk_mb": "1"})
		if err := kv.DeclareRanges(d, testRanges); err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// TestRangesTables checks that each declared range is a table of its kind (B-tree table, LSM
// index: the published iiBench setup), that a batch across tables is one transaction, and that
// a reopen finds the tables without a new declaration.
func TestRangesTables(t *testing.T) {
	dir := t.TempDir()
	settings := map[string]string{"index_type": "lsm", "lsm_chunk_mb": "1", "checkpoint_seconds": "0"}
	d := openTest(t, dir, settings)
	if s := d.Settings(); s["table_type"] != "btree" || s["index_type"] != "lsm" {
		t.Errorf("settings %v", s)
	}
	ranges := []kv.Range{{Name: "pk", Prefix: []byte{0}}, {Name: "by_price", Prefix: []byte{1}, Secondary: true}}
	if err := kv.DeclareRanges(d, ranges); err != nil {
		t.Fatal(err)
	}
	if err := kv.DeclareRanges(d, ranges[:1]); err != nil { // again: nothing changes
		t.Fatal(err)
	}
	if err := kv.DeclareRanges(d, []kv.Range{{Name: "other", Prefix: []byte{0}}}); err == nil {
		t.Error("a declared prefix was declared again under another name")
	}
	b := d.NewBatch()
	for i := range 30000 {
		b.Set(kv.AppendInt64([]byte{0}, int64(i)), make([]byte, 50))
		b.Set(kv.AppendInt64(kv.AppendInt64([]byte{1}, int64(i%97)), int64(i)), nil)
		if b.Len() == 1000 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.Set([]byte{7}, []byte("outside"))
	// A batch that fails in its second table leaves the first untouched: an empty key is
	// refused by WiredTiger.
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Set([]byte{0, 'x'}, []byte("never"))
	b.Set([]byte{}, []byte("bad"))
	if err := b.Commit(); err == nil {
		t.Error("a batch with an empty key committed")
	}
	if _, ok, _ := d.Get([]byte{0, 'x'}, nil); ok {
		t.Error("half of a failed batch is visible")
	}
	if err := d.Cleanup(context.Background(), engine.CleanupHooks{}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "kv_*"))
	var btree, lsm bool
	for _, f := range files {
		base := filepath.Base(f)
		btree = btree || base == "kv_00_table_pk.wt"
		lsm = lsm || strings.HasPrefix(base, "kv_01_index_by_price-") && strings.HasSuffix(base, ".lsm")
	}
	if !btree || !lsm {
		t.Errorf("files %v: want the table as a B-tree file and the index as LSM chunks", files)
	}
	d = openTest(t, dir, settings)
	defer d.Close()
	ctx := context.Background()
	for _, c := range []struct {
		lo, hi []byte
		want   int64
	}{{[]byte{0}, []byte{1}, 30000}, {[]byte{1}, []byte{2}, 30000}, {nil, nil, 60001}, {[]byte{0, 0x80}, []byte{2}, 60000}, {[]byte{0, 0x80}, []byte{1, 0x80}, 30000}} {
		if n, err := kv.Count(ctx, d, c.lo, c.hi); err != nil || n != c.want {
			t.Errorf("after reopen, count [%x, %x) = %d, %v, want %d", c.lo, c.hi, n, err, c.want)
		}
	}
	if v, ok, err := d.Get(kv.AppendInt64([]byte{0}, 12345), nil); err != nil || !ok || len(v) != 50 {
		t.Errorf("after reopen, get from the table: %v %v", ok, err)
	}
	if v, ok, _ := d.Get([]byte{7}, nil); !ok || string(v) != "outside" {
		t.Errorf("after reopen, get outside the ranges: %q %v", v, ok)
	}
	if st, err := d.Stats(ctx); err != nil {
		t.Fatal(err)
	} else if st["lsm_work_units_done"] <= 0 {
		t.Errorf("no LSM work for the index: %v", st)
	}
}

// TestBuild checks that Build records the version the engine reports, and WiredTiger's version
// string, which names it.
func TestBuild(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := enginetest.CheckBuild(t, d, "wiredtiger", d.Version(), "")
	if banner := b[engine.BuildLibraryBanner]; !strings.HasPrefix(banner, "WiredTiger "+d.Version()) {
		t.Errorf("version string %q does not name WiredTiger %s", banner, d.Version())
	}
}
