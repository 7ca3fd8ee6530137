package wiredtiger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

// The settings of the wiredtiger engine.
const (
	settingTableType       = "table_type"
	settingIndexType       = "index_type"
	settingCacheMB         = "cache_mb"
	settingSync            = "sync"
	settingCompression     = "compression"
	settingCheckpointSecs  = "checkpoint_seconds"
	settingLSMChunkMB      = "lsm_chunk_mb"
	settingEvictionThreads = "eviction_threads"
	settingEvictionTarget  = "eviction_target"
	settingEvictionTrigger = "eviction_trigger"
	settingDirtyTarget     = "eviction_dirty_target"
	settingDirtyTrigger    = "eviction_dirty_trigger"
	settingDirectIO        = "direct_io"
)

// directIOFiles are the kinds of file WiredTiger's direct_io may name here. Its third, log,
// makes Debian's WiredTiger 3.2 panic at open, so it is refused.
func directIOFiles() []string { return []string{"data", "checkpoint"} }

// settings is the documented list of settings with their defaults.
func settings() []engine.Setting {
	return []engine.Setting{
		{Name: settingTableType, Default: "btree", Doc: "the tables' structure: btree, or lsm (an LSM tree of B-tree chunks)"},
		{Name: settingIndexType, Default: "", Doc: "the secondary indexes' structure: btree or lsm; empty: as table_type (btree tables with lsm indexes is the published iiBench setup)"},
		{Name: settingCacheMB, Default: "1024", Doc: "WiredTiger's cache in MiB; below a step's working set, writes wait for eviction (see docs/engines.md)"},
		{Name: settingSync, Default: "false", Doc: "fsync the log at every commit; false writes the log to the OS at every commit (transaction_sync off: durable against a crash of the process, not of the machine)"},
		{Name: settingCompression, Default: "snappy", Doc: "block compression: snappy, zlib or none (WiredTiger's compressors: libwiredtiger0's modules, or linked into make release's binary)"},
		{Name: settingCheckpointSecs, Default: "60", Doc: "seconds between checkpoints (0: only at cleanup and close)"},
		{Name: settingLSMChunkMB, Default: "16", Doc: "size of an LSM tree's in-memory chunk in MiB (table_type=lsm)"},
		{Name: settingEvictionThreads, Default: "2", Doc: "eviction worker threads at most"},
		{Name: settingEvictionTarget, Default: "80", Doc: "percent of the cache in use that eviction works down to (WiredTiger's default)"},
		{Name: settingEvictionTrigger, Default: "95", Doc: "percent of the cache in use at which the application's threads help evict (WiredTiger's default)"},
		{Name: settingDirtyTarget, Default: "5", Doc: "percent of the cache dirty that eviction works down to (WiredTiger's default)"},
		{Name: settingDirtyTrigger, Default: "20", Doc: "percent of the cache dirty at which the application's threads help evict (WiredTiger's default)"},
		{Name: settingDirectIO, Default: "", Doc: "files read and written with O_DIRECT, past the OS page cache: a comma-separated list of data, checkpoint (WiredTiger's direct_io; its log panics in WiredTiger 3.2); empty: none"},
	}
}

// config is the parsed, validated form of the settings.
type config struct {
	tableType       string
	indexType       string
	cacheMB         int
	sync            bool
	compression     string
	checkpointSecs  int
	lsmChunkMB      int
	evictionThreads int
	evictionTarget  int
	evictionTrigger int
	dirtyTarget     int
	dirtyTrigger    int
	directIO        []string
}

// parseConfig merges overrides over the defaults and validates every value. Names are not
// checked here: the registry rejects unknown names before Open.
func parseConfig(overrides map[string]string) (config, error) {
	m := engine.MergeSettings(settings(), overrides)
	var c config
	var err error
	if c.tableType, err = engine.EnumSetting("wiredtiger", m, settingTableType, []string{"btree", "lsm"}); err != nil {
		return c, err
	}
	if m[settingIndexType] == "" {
		m[settingIndexType] = c.tableType
	}
	if c.indexType, err = engine.EnumSetting("wiredtiger", m, settingIndexType, []string{"btree", "lsm"}); err != nil {
		return c, err
	}
	if c.compression, err = engine.EnumSetting("wiredtiger", m, settingCompression, []string{"snappy", "zlib", "none"}); err != nil {
		return c, err
	}
	if c.sync, err = engine.BoolSetting("wiredtiger", m, settingSync); err != nil {
		return c, err
	}
	if err := engine.IntSettings("wiredtiger", m, []engine.IntField{
		{Name: settingCacheMB, Dst: &c.cacheMB, Min: 1, Max: 1 << 20},
		{Name: settingCheckpointSecs, Dst: &c.checkpointSecs, Min: 0, Max: 1 << 20},
		{Name: settingLSMChunkMB, Dst: &c.lsmChunkMB, Min: 1, Max: 1 << 12},
		{Name: settingEvictionThreads, Dst: &c.evictionThreads, Min: 1, Max: 20},
		{Name: settingEvictionTarget, Dst: &c.evictionTarget, Min: 10, Max: 99},
		{Name: settingEvictionTrigger, Dst: &c.evictionTrigger, Min: 10, Max: 99},
		{Name: settingDirtyTarget, Dst: &c.dirtyTarget, Min: 1, Max: 99},
		{Name: settingDirtyTrigger, Dst: &c.dirtyTrigger, Min: 1, Max: 99},
	}); err != nil {
		return c, err
	}
	if c.directIO, err = directIOSetting(m[settingDirectIO]); err != nil {
		return c, err
	}
	switch {
	case c.evictionTarget >= c.evictionTrigger:
		return c, fmt.Errorf("wiredtiger: %s (%d) must be below %s (%d)", settingEvictionTarget, c.evictionTarget, settingEvictionTrigger, c.evictionTrigger)
	case c.dirtyTarget >= c.dirtyTrigger:
		return c, fmt.Errorf("wiredtiger: %s (%d) must be below %s (%d)", settingDirtyTarget, c.dirtyTarget, settingDirtyTrigger, c.dirtyTrigger)
	case c.dirtyTrigger > c.evictionTrigger:
		return c, fmt.Errorf("wiredtiger: %s (%d) must not be above %s (%d)", settingDirtyTrigger, c.dirtyTrigger, settingEvictionTrigger, c.evictionTrigger)
	}
	return c, nil
}

// directIOSetting parses the direct_io setting: a comma-separated list of directIOFiles, each
// at most once.
func directIOSetting(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var files []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(directIOFiles(), f) || slices.Contains(files, f) {
			return nil, fmt.Errorf("wiredtiger: %s %q: want a list of distinct %s", settingDirectIO, v, strings.Join(directIOFiles(), ", "))
		}
		files = append(files, f)
	}
	return files, nil
}

// capDefaults returns the settings of the engine under a memory cap of capBytes
// (engine.Driver.CapDefaults): a cache of a quarter of the cap, and the data files and checkpoints
// read and written with O_DIRECT, so that the cache is the only cache of the data; the rest of
// the cap is the harness's, WiredTiger's own beyond its cache, and the page cache's of the log.
func capDefaults(capBytes int64) map[string]string {
	return map[string]string{
		settingCacheMB:  strconv.FormatInt(engine.CapMiB(capBytes, 4, 1), 10),
		settingDirectIO: strings.Join(directIOFiles(), ","),
	}
}
