//go:build rocksdb && cgo

package rocksdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestCapDefaults: direct IO is on, and the block cache and the memtables fit the cap
// (kvtest.CheckCapDefaults).
func TestCapDefaults(t *testing.T) {
	kvtest.CheckCapDefaults(t, Driver(), func(cd map[string]string) (int64, error) {
		c, err := parseConfig(cd)
		if err == nil && (!c.directReads || !c.directFlush) {
			err = fmt.Errorf("%v: no direct IO", cd)
		}
		return int64(c.cacheMB+c.maxWriteBufferNumber*c.memtableMB) << 20, err
	})
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
	for k, v := range map[string]string{settingCacheMB: "64", settingMemtableMB: "8", settingDirectReads: "true", settingDirectFlush: "true", settingPartitionIndex: "true"} {
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
		"use_direct_io_for_flush_and_compaction=true", "cache_index_and_filter_blocks=true",
		"index_type=kTwoLevelIndexSearch", "partition_filters=true", "metadata_block_size=4096"} {
		if !strings.Contains(string(opts), "\n  "+want+"\n") {
			t.Errorf("OPTIONS lacks %s", want)
		}
	}
}
