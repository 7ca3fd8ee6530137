package pebble

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestCapDefaults: the block cache with the two memtables at which writes stall fit the cap
// (kvtest.CheckCapDefaults).
func TestCapDefaults(t *testing.T) {
	kvtest.CheckCapDefaults(t, Driver(), func(cd map[string]string) (int64, error) {
		c, err := parseConfig(cd)
		return int64(c.cacheMB+2*c.memtableMB) << 20, err
	})
}

// TestOpenUnderCapDefaults opens the engine with the CapDefaults of a 256 MiB cap and finds
// them in force in its settings and in the OPTIONS file pebble writes.
func TestOpenUnderCapDefaults(t *testing.T) {
	dir := t.TempDir()
	cd := Driver().CapDefaults(256 << 20)
	d := openTest(t, dir, cd)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	s := d.Settings()
	if s[settingCacheMB] != "64" || s[settingMemtableMB] != "8" || cd[settingCacheMB] != "64" || cd[settingMemtableMB] != "8" {
		t.Errorf("CapDefaults %v, settings %v: want a 64 MiB cache and 8 MiB memtables", cd, s)
	}
	files, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file in %s (%v)", dir, err)
	}
	opts, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cache_size=" + strconv.Itoa(64<<20), "mem_table_size=" + strconv.Itoa(8<<20)} {
		if !strings.Contains(string(opts), "\n  "+want+"\n") {
			t.Errorf("OPTIONS lacks %s:\n%s", want, opts)
		}
	}
}
