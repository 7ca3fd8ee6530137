//go:build wiredtiger && cgo

package wiredtiger

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// TestCapDefaults: at caps of 256 MiB, 1 GiB and 4 GiB, CapDefaults pass the registry's check,
// turn direct IO on for the data files and checkpoints, and give the cache half the cap (the
// rest is the harness's, WiredTiger's own beyond its cache and the page cache's of the log).
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
		if strings.Join(c.directIO, ",") != "data,checkpoint" {
			t.Errorf("cap of %d MiB: direct_io %v", capBytes>>20, c.directIO)
		}
		if mem := int64(c.cacheMB) << 20; mem < capBytes/4 || mem > capBytes*3/4 {
			t.Errorf("cap of %d MiB: cache of %d MiB", capBytes>>20, mem>>20)
		}
	}
}

// TestOpenUnderCapDefaults opens the engine with the CapDefaults of a 256 MiB cap and finds
// them in force: the cache's size in WiredTiger's statistics, direct IO in the base
// configuration it writes.
func TestOpenUnderCapDefaults(t *testing.T) {
	dir := t.TempDir()
	cd := Driver().CapDefaults(256 << 20)
	d := openTest(t, dir, cd)
	st, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st["cache_max_bytes"] != 128<<20 || cd[settingCacheMB] != "128" {
		t.Errorf("cache: CapDefaults %q MiB, WiredTiger's cache_max_bytes %v, want 128 MiB", cd[settingCacheMB], st["cache_max_bytes"])
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(dir, "WiredTiger.basecfg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(base), "direct_io=[data,checkpoint]\n") {
		t.Errorf("WiredTiger.basecfg lacks direct_io=[data,checkpoint]:\n%s", base)
	}
}
