package bbolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// openTest opens the engine on dir through the registry, as the command does.
func openTest(t *testing.T, dir string, settings map[string]string) *db {
	t.Helper()
	return enginetest.Open(t, context.Background(), Driver(), "", settings, dir).(*db)
}

// TestConformance runs the suite with the defaults, and with the array freelist written at every
// commit, fsync, 1 KiB pages that split often, and full pages.
func TestConformance(t *testing.T) {
	kvtest.RunDriver(t, Driver(), map[string]map[string]string{
		"OtherSettings": {"freelist": "array", "sync": "true", "page_size": "1024",
			"freelist_sync": "true", "fill_percent": "100"},
	})
}

// TestCommitWhileIterating commits batches that grow the file to 40 MB while an iterator over
// the same keys is open, as index creation does: if the map had to grow, bbolt's writer would
// wait for the iterator's read transaction, that is for itself, forever.
func TestCommitWhileIterating(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := d.NewBatch()
	for i := range 1000 {
		b.Set(fmt.Appendf(nil, "a%06d", i), []byte("x"))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	it, err := d.NewIter([]byte("a"), []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	val := make([]byte, 4000)
	for ok := it.First(); ok; ok = it.Next() {
		b.Set(append([]byte("b"), it.Key()...), val)
		if n++; n%100 == 0 {
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := errors.Join(it.Err(), it.Close(), b.Commit()); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Errorf("iterated %d keys, want 1000", n)
	}
	if got, err := kv.Count(context.Background(), d, []byte("b"), []byte("c")); err != nil || got != 1000 {
		t.Errorf("%d keys written under the iterator (%v), want 1000", got, err)
	}
	// The iterator saw its snapshot: the keys written under it were not in its range anyway,
	// and the file grew past the few MiB a default map would have started with.
	if st, err := os.Stat(d.path); err != nil || st.Size() < 4<<20 {
		t.Errorf("file %v, %v: want it grown past 4 MiB", st, err)
	}
}

func TestSettings(t *testing.T) {
	reg, err := engine.NewRegistry(Driver())
	if err != nil {
		t.Fatal(err)
	}
	drv, _ := reg.Lookup("bbolt")
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"freelist": "tree"}, "freelist"},
		{map[string]string{"page_size": "3000"}, "power of two"},
		{map[string]string{"fill_percent": "5"}, "fill_percent"},
		{map[string]string{"sync": "maybe"}, "sync"},
	} {
		if err := drv.CheckSettings(c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error about %s", c.settings, err, c.want)
		}
	}
	d := openTest(t, t.TempDir(), map[string]string{"fill_percent": "90", "freelist": "array"})
	s := d.Settings()
	if s["fill_percent"] != "90" || s["freelist"] != "array" || s["sync"] != "false" || len(s) != len(settings()) {
		t.Errorf("effective settings %v", s)
	}
	if v := d.Version(); v != "v1 (unknown)" && !strings.HasPrefix(v, "v1.") {
		t.Errorf("version %q", d.Version())
	}
}

func TestStatsCleanupAndDataFile(t *testing.T) {
	dir := t.TempDir()
	d := openTest(t, dir, nil)
	b := d.NewBatch()
	for i := range 5000 {
		b.Set(fmt.Appendf(nil, "k%06d", i), make([]byte, 100))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		b.Delete(fmt.Appendf(nil, "k%06d", i))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get([]byte("k004999"), nil); err != nil {
		t.Fatal(err)
	}
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st["write_txs"] != 2 || st["pages_written"] <= 0 || st["read_txs"] < 1 || st["file_bytes"] <= 0 || st["pending_pages"] <= 0 {
		t.Errorf("stats after 2 batches and a delete of half the keys: %v", st)
	}
	kvtest.Cleanup(t, d, "fsync")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !d.IsDataFile(e.Name()) {
			t.Errorf("%s in the data directory is not a data file", e.Name())
		}
	}
	if !d.IsDataFile(fileName) || d.IsDataFile("other") {
		t.Error("IsDataFile")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Stats(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("stats after close: %v", err)
	}
	if err := d.Close(); !errors.Is(err, errClosed) {
		t.Errorf("second close: %v", err)
	}
}

// TestNoCapDefaults: bbolt has no cache to size under a memory cap (its file is memory-mapped:
// the page cache, which the cap charges, is its cache).
func TestNoCapDefaults(t *testing.T) {
	if Driver().CapDefaults != nil {
		t.Errorf("bbolt has CapDefaults")
	}
}

// TestBuild checks that Build records the version Version reports, and leaves it out where the
// binary carries none (a test binary).
func TestBuild(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	version := d.Version()
	if version == unknownVersion {
		version = ""
	}
	enginetest.CheckBuild(t, d, "bbolt", version, modulePath)
}
