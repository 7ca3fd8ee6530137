//go:build rocksdb && cgo

package rocksdb

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// TestCapDefaults: at caps of 256 MiB, 1 GiB and 4 GiB, CapDefaults pass the registry's check,
// turn direct IO on, and the block cache and the memtables take between a quarter and three
// quarters of the cap (the rest is the harness's and the page cache's of the WAL).
func TestCapDefaults(t *testing.T) {
	d := Driver()
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, capBytes := range []int64{256 << 20, 1 << 30, 4 << 30} {
		cd := d.CapDefaults(capBytes)
		if err := reg.Check(engine.Config{Engine: d.Name, Settings: cd}); err != nil {
			t.Fatalf("cap of %d MiB: %v", capBytes>>20, err)
		}
		c, err := parseConfig(cd)
		if err != nil {
			t.Fatal(err)
		}
		if !c.directReads || !c.directFlush {
			t.Errorf("cap of %d MiB: %v: no direct IO", capBytes>>20, cd)
		}
		if mem := int64(c.cacheMB+c.maxWriteBufferNumber*c.memtableMB) << 20; mem < capBytes/4 || mem > capBytes*3/4 {
			t.Errorf("cap of %d MiB: cache and memtables of %d MiB", capBytes>>20, mem>>20)
		}
	}
}

// TestOpenUnderCapDefaults opens the engine with the CapDefaults of a 256 MiB cap and finds
// them in force in its settings and in the OPTIONS file RocksDB writes.
func TestOpenUnderCapDefaults(t *testing.T) {
	dir := t.TempDir()
	cd := Driver().CapDefaults(256 << 20)
	d := openTest(t, dir, cd)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	s := d.Settings()
	for k, v := range map[string]string{settingCacheMB: "64", settingMemtableMB: "8", settingDirectReads: "true", settingDirectFlush: "true"} {
		if s[k] != v || cd[k] != v {
			t.Errorf("%s: CapDefaults %q, in force %q, want %q", k, cd[k], s[k], v)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s (%v)", dir, err)
	}
	opts, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"write_buffer_size=" + strconv.Itoa(8<<20), "use_direct_reads=true",
		"use_direct_io_for_flush_and_compaction=true"} {
		if !strings.Contains(string(opts), "\n  "+want+"\n") {
			t.Errorf("OPTIONS lacks %s", want)
		}
	}
}
