package rocksdb

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/engine"
)

// The settings of the rocksdb engine.
const (
	settingCacheMB              = "cache_mb"
	settingMemtableMB           = "memtable_mb"
	settingCompression          = "compression"
	settingSync                 = "sync"
	settingMaxBackgroundJobs    = "max_background_jobs"
	settingL0CompactionTrigger  = "l0_compaction_trigger"
	settingL0SlowdownWritesTrig = "l0_slowdown_writes_trigger"
	settingL0StopWritesTrigger  = "l0_stop_writes_trigger"
	settingBytesPerSync         = "bytes_per_sync"
	settingBloomBitsPerKey      = "bloom_bits_per_key"
	settingDynamicLevelBytes    = "level_compaction_dynamic_level_bytes"
	settingMaxWriteBufferNumber = "max_write_buffer_number"
	settingDirectReads          = "direct_reads"
	settingDirectFlush          = "direct_io_for_flush_and_compaction"
	settingCacheIndexFilter     = "cache_index_and_filter_blocks"
	settingPartitionIndex       = "partition_index_and_filters"
)

// compressionNames are the accepted values of the compression setting.
func compressionNames() []string { return []string{"lz4", "snappy", "zstd", "none"} }

// settings is the documented list of settings with their defaults: those of the MyRocks
// configuration of this project where they exist, so that the two compare.
func settings() []engine.Setting {
	return []engine.Setting{
		{Name: settingCacheMB, Default: "64", Doc: "block cache in MiB (LRU, uncompressed blocks)"},
		{Name: settingMemtableMB, Default: "64", Doc: "memtable (write buffer) size in MiB"},
		{Name: settingMaxWriteBufferNumber, Default: "2", Doc: "memtables at most, full ones waiting for their flush included; writes stall when all are full"},
		{Name: settingCompression, Default: "lz4", Doc: "block compression of every level: " + strings.Join(compressionNames(), ", ")},
		{Name: settingSync, Default: "false", Doc: "fsync the WAL at every commit; false writes the WAL to the OS at every commit without fsync (as pebble's sync=write)"},
		{Name: settingMaxBackgroundJobs, Default: "2", Doc: "flushes and compactions that may run at once"},
		{Name: settingL0CompactionTrigger, Default: "4", Doc: "L0 files that trigger a compaction out of L0 (RocksDB's default)"},
		{Name: settingL0SlowdownWritesTrig, Default: "20", Doc: "L0 files at which writes slow down (RocksDB's default)"},
		{Name: settingL0StopWritesTrigger, Default: "36", Doc: "L0 files at which writes stop until compactions catch up (RocksDB's default)"},
		{Name: settingBytesPerSync, Default: "1048576", Doc: "sync sstables being written every this many bytes, to smooth out writeback; no effect on durability"},
		{Name: settingBloomBitsPerKey, Default: "10", Doc: "bits per key of each sstable's bloom filter; 0 disables"},
		{Name: settingDynamicLevelBytes, Default: "true", Doc: "size the levels from the last one up (as MyRocks is configured here)"},
		{Name: settingDirectReads, Default: "false", Doc: "read sstables with O_DIRECT, past the OS page cache (RocksDB's use_direct_reads): only the block cache caches"},
		{Name: settingDirectFlush, Default: "false", Doc: "write flushes and compactions with O_DIRECT (RocksDB's use_direct_io_for_flush_and_compaction)"},
		{Name: settingPartitionIndex, Default: "false", Doc: "partitioned index and filter blocks (RocksDB's kTwoLevelIndexSearch with partition_filters, 4 KiB partitions, the top level pinned in the block cache): a lookup reads one partition of each instead of an sstable's whole index and filter block, which matters where they do not fit in the block cache"},
		{Name: settingCacheIndexFilter, Default: "false", Doc: "keep the sstables' index and filter blocks in the block cache, within cache_mb, instead of in memory beside it for every open sstable (RocksDB's cache_index_and_filter_blocks; MyRocks' rocksdb_cache_index_and_filter_blocks, ON by default there)"},
	}
}

// config is the parsed, validated form of the settings.
type config struct {
	cacheMB, memtableMB, maxWriteBufferNumber int
	compression                               string
	sync, dynamicLevelBytes                   bool
	directReads, directFlush, cacheIndex      bool
	partitionIndex                            bool
	maxBackgroundJobs                         int
	l0Compaction, l0Slowdown, l0Stop          int
	bytesPerSync, bloomBitsPerKey             int
}

// parseConfig merges overrides over the defaults and validates every value. Names are not
// checked here: the registry rejects unknown names before Open.
func parseConfig(overrides map[string]string) (config, error) {
	m := engine.MergeSettings(settings(), overrides)
	var c config
	if err := engine.IntSettings("rocksdb", m, []engine.IntField{
		{Name: settingCacheMB, Dst: &c.cacheMB, Min: 0, Max: 1 << 20},
		{Name: settingMemtableMB, Dst: &c.memtableMB, Min: 1, Max: 1 << 16},
		{Name: settingMaxWriteBufferNumber, Dst: &c.maxWriteBufferNumber, Min: 2, Max: 64},
		{Name: settingMaxBackgroundJobs, Dst: &c.maxBackgroundJobs, Min: 1, Max: 64},
		{Name: settingL0CompactionTrigger, Dst: &c.l0Compaction, Min: 1, Max: 1000},
		{Name: settingL0SlowdownWritesTrig, Dst: &c.l0Slowdown, Min: 1, Max: 1000},
		{Name: settingL0StopWritesTrigger, Dst: &c.l0Stop, Min: 1, Max: 1000},
		{Name: settingBytesPerSync, Dst: &c.bytesPerSync, Min: 0, Max: 1 << 30},
		{Name: settingBloomBitsPerKey, Dst: &c.bloomBitsPerKey, Min: 0, Max: 64},
	}); err != nil {
		return c, err
	}
	if c.l0Stop < c.l0Slowdown || c.l0Slowdown < c.l0Compaction {
		return c, fmt.Errorf("rocksdb: settings: want %s (%d) <= %s (%d) <= %s (%d)", settingL0CompactionTrigger, c.l0Compaction,
			settingL0SlowdownWritesTrig, c.l0Slowdown, settingL0StopWritesTrigger, c.l0Stop)
	}
	var err error
	if c.compression, err = engine.EnumSetting("rocksdb", m, settingCompression, compressionNames()); err != nil {
		return c, err
	}
	return c, engine.BoolSettings("rocksdb", m, []engine.BoolField{
		{Name: settingSync, Dst: &c.sync},
		{Name: settingDynamicLevelBytes, Dst: &c.dynamicLevelBytes},
		{Name: settingDirectReads, Dst: &c.directReads},
		{Name: settingDirectFlush, Dst: &c.directFlush},
		{Name: settingCacheIndexFilter, Dst: &c.cacheIndex},
		{Name: settingPartitionIndex, Dst: &c.partitionIndex},
	})
}

// capDefaults returns the settings of the engine under a memory cap of capBytes
// (engine.Driver.CapDefaults), as the seed's IO-bound MyRocks ran (docs/engines.md): sstables
// read and written with O_DIRECT, so that the block cache is the only cache of the data, a block
// cache of max(C/4, C/2 - 128 MiB), and memtables of C/32 (at most the default 64 MiB, two of
// them), which also holds the sstables' index and filter blocks (else they take memory beside it
// that grows with the data: about 10 bits a key for the filters), partitioned (whole, those of
// the iobound data outgrew the cache and every point query read them: about 25 MB of reads for
// 10 keys); the rest of the cap C is the harness's and the page cache's of the WAL.
func capDefaults(capBytes int64) map[string]string {
	return map[string]string{
		settingCacheIndexFilter: "true",
		settingPartitionIndex:   "true",
		settingCacheMB:          strconv.FormatInt(max(engine.CapMiB(capBytes, 4, 1), engine.CapMiB(capBytes, 2, 0)-128), 10),
		settingMemtableMB:       strconv.FormatInt(min(engine.CapMiB(capBytes, 32, 1), 64), 10),
		settingDirectReads:      "true",
		settingDirectFlush:      "true",
	}
}
