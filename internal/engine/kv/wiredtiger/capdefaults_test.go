//go:build wiredtiger && cgo

package wiredtiger

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestCapDefaults: direct IO is on for the data files and checkpoints, and the cache fits the
// cap (kvtest.CheckCapDefaults; the rest is WiredTiger's own beyond its cache, the harness's and
// the page cache's of the log).
func TestCapDefaults(t *testing.T) {
	kvtest.CheckCapDefaults(t, Driver(), func(cd map[string]string) (int64, error) {
		c, err := parseConfig(cd)
		if err == nil && strings.Join(c.directIO, ",") != "data,checkpoint" {
			err = fmt.Errorf("direct_io %v", c.directIO)
		}
		return int64(c.cacheMB) << 20, err
	})
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
	if st["cache_max_bytes"] != 64<<20 || cd[settingCacheMB] != "64" {
		t.Errorf("cache: CapDefaults %q MiB, WiredTiger's cache_max_bytes %v, want 64 MiB", cd[settingCacheMB], st["cache_max_bytes"])
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
