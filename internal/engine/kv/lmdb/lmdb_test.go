//go:build lmdb && cgo

package lmdb

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
func openTest(t testing.TB, dir string, settings map[string]string) *db {
	t.Helper()
	return enginetest.Open(t, context.Background(), Driver(), "", settings, dir).(*db)
}

// TestConformance runs the suite with the defaults, and with fsync at every commit and a
// writable map.
func TestConformance(t *testing.T) {
	kvtest.RunDriver(t, Driver(), map[string]map[string]string{
		"SyncWriteMap": {"sync": "true", "write_map": "true"},
	})
}

// TestMapFull fills a 1 MiB map: the commit fails with LMDB's message and the setting to raise,
// and what was committed before is still there.
func TestMapFull(t *testing.T) {
	d := openTest(t, t.TempDir(), map[string]string{"map_size_mb": "1"})
	b := d.NewBatch()
	var err error
	committed := 0
	for i := 0; i < 1000 && err == nil; i++ {
		for j := range 10 {
			b.Set(fmt.Appendf(nil, "k%04d-%d", i, j), make([]byte, 1000))
		}
		if err = b.Commit(); err == nil {
			committed++
		}
	}
	var le *Error
	if !errors.As(err, &le) || le.Code != mapFull || !strings.Contains(err.Error(), "MDB_MAP_FULL") ||
		!strings.Contains(err.Error(), "raise map_size_mb") {
		t.Fatalf("filling the map: %v", err)
	}
	if n, cerr := kv.Count(context.Background(), d, nil, nil); cerr != nil || n != int64(10*committed) {
		t.Errorf("%d keys after the full map (%v), want the %d committed", n, cerr, 10*committed)
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
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st["entries"] != 5000 || st["write_txs"] != 1 || st["leaf_pages"] <= 0 || st["tree_depth"] < 2 ||
		st["map_size_bytes"] != 65536<<20 || st["pages_in_use"]*st["page_size"] < 5000*100 {
		t.Errorf("stats after 5000 keys: %v", st)
	}
	kvtest.Cleanup(t, d, "mdb_env_sync")
	if !d.IsDataFile("data.mdb") || d.IsDataFile("lock.mdb") {
		t.Error("IsDataFile")
	}
	if v := d.Version(); !strings.HasPrefix(v, "0.9.") {
		t.Errorf("version %q", v)
	}
	kvtest.CheckClose(t, d)
	if _, err := os.Stat(dir + "/data.mdb"); err != nil {
		t.Error(err)
	}
}

// TestNoLeakOverReopens opens and closes the environment 1000 times, writing, reading and
// iterating each time, and checks that the process's resident memory stays bounded: the binding
// frees what liblmdb allocates.
func TestNoLeakOverReopens(t *testing.T) {
	// An environment's reader table alone is 64 KiB (1024 slots): leaking it, or the map of
	// the lock file, on every close would add 64 MiB.
	kvtest.CheckReopens(t, Driver(), kvtest.Reopens{Settings: map[string]string{"map_size_mb": "64"},
		Keys: 200, ValueBytes: 200, Warmup: 20, Rounds: 1000, LimitMB: 16})
}

// TestAvailable checks that the engine is available when built in: the linked liblmdb has the
// major and minor version of the lmdb.h it was compiled against.
func TestAvailable(t *testing.T) {
	if err := Driver().Available(); err != nil {
		t.Fatal(err)
	}
}

// TestBuild checks that Build records the version the engine reports, and LMDB's version
// string, which names it.
func TestBuild(t *testing.T) {
	d := openTest(t, t.TempDir(), nil)
	b := enginetest.CheckBuild(t, d, "lmdb", d.Version(), "")
	if banner := b[engine.BuildLibraryBanner]; !strings.HasPrefix(banner, "LMDB "+d.Version()) {
		t.Errorf("version string %q does not name LMDB %s", banner, d.Version())
	}
}
