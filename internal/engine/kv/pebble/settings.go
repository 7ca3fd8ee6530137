package pebble

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/enginebench/enginebench/internal/engine"
)

// The settings of the pebble engine.
const (
	settingCacheMB                  = "cache_mb"
	settingMemtableMB               = "memtable_mb"
	settingCompression              = "compression"
	settingSync                     = "sync"
	settingMaxConcurrentCompactions = "max_concurrent_compactions"
	settingL0CompactionThreshold    = "l0_compaction_threshold"
	settingL0StopWritesThreshold    = "l0_stop_writes_threshold"
	settingBytesPerSync             = "bytes_per_sync"
	settingBloomBitsPerKey          = "bloom_bits_per_key"
)

// compressionNames returns the accepted values of the compression setting, in the order error
// messages list them.
func compressionNames() []string { return []string{"snappy", "zstd", "none"} }

// compressionOf returns pebble's block compression called name (a validated setting value).
func compressionOf(name string) pebble.Compression {
	switch name {
	case "zstd":
		return pebble.ZstdCompression
	case "none":
		return pebble.NoCompression
	}
	return pebble.SnappyCompression
}

// Fixed options, the same for every configuration.
const (
	// numLevels is the number of levels of pebble's LSM (L0 to L6).
	numLevels = 7
	// l0TargetFileSize is the target size of the sstables of L0; it doubles with every level
	// below (L6: 128 MiB), as in CockroachDB.
	l0TargetFileSize = 2 << 20
)

// settings is the documented list of settings with their defaults.
func settings() []engine.Setting {
	return []engine.Setting{
		{Name: settingCacheMB, Default: "64",
			Doc: "block cache in MiB (uncompressed sstable blocks, shared by all levels); 0 caches nothing"},
		{Name: settingMemtableMB, Default: "64",
			Doc: "memtable size in MiB; writes stall while two full memtables wait for their flush"},
		{Name: settingCompression, Default: "snappy",
			Doc: "block compression of every level: " + strings.Join(compressionNames(), ", ")},
		{Name: settingSync, Default: "false",
			Doc: "what a commit waits for: true, the WAL's fsync; write, the WAL written to the OS without fsync " +
				"(durable against a crash of the process, not of the machine, as SQLite's synchronous=normal in WAL mode); " +
				"false, nothing: the commit waits in pebble's WAL buffer in process memory until a 32 KiB block fills, " +
				"so a crash of the process loses up to that much of acknowledged commits"},
		{Name: settingMaxConcurrentCompactions, Default: "1",
			Doc: "compactions that may run at once (flushes run apart); 1 leaves a core of a 2-core machine to the clients"},
		{Name: settingL0CompactionThreshold, Default: "4",
			Doc: "L0 read amplification (sublevels) that triggers a compaction out of L0 (pebble's default)"},
		{Name: settingL0StopWritesThreshold, Default: "12",
			Doc: "L0 sublevels at which writes stop until compactions catch up (pebble's default); at least l0_compaction_threshold"},
		{Name: settingBytesPerSync, Default: "524288",
			Doc: "sync sstables being written every this many bytes, to smooth out writeback (pebble's default, 512 KiB); no effect on durability"},
		{Name: settingBloomBitsPerKey, Default: "10",
			Doc: "bits per key of the bloom filter of every sstable (about 1% false positives at 10), which spares point reads of absent keys; 0 disables"},
	}
}

// syncMode is what a commit waits for (the sync setting).
type syncMode int

const (
	// syncOff waits for nothing: the commit is in the WAL writer's buffer, in process memory
	// (pebble.NoSync).
	syncOff syncMode = iota
	// syncWrite waits until the WAL writer has written the commit to the WAL file, without
	// fsync (pebble.Sync on walWriteFS).
	syncWrite
	// syncFsync waits for the WAL's fsync (pebble.Sync).
	syncFsync
)

// String returns the setting's value of m.
func (m syncMode) String() string {
	switch m {
	case syncWrite:
		return "write"
	case syncFsync:
		return "true"
	}
	return "false"
}

// parseSync parses the sync setting of m: write, or a boolean (true, false, 1, 0).
func parseSync(m map[string]string) (syncMode, error) {
	v := strings.TrimSpace(m[settingSync])
	if strings.EqualFold(v, "write") {
		return syncWrite, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return syncOff, fmt.Errorf("pebble: setting %s: %q is not true, write or false", settingSync, m[settingSync])
	}
	if on {
		return syncFsync, nil
	}
	return syncOff, nil
}

// config is the parsed, validated form of the settings.
type config struct {
	cacheMB                  int
	memtableMB               int
	compression              string
	sync                     syncMode
	maxConcurrentCompactions int
	l0CompactionThreshold    int
	l0StopWritesThreshold    int
	bytesPerSync             int
	bloomBitsPerKey          int
}

// parseConfig merges overrides over the defaults and validates every value. Names are not
// checked here: the registry rejects unknown names before Open.
func parseConfig(overrides map[string]string) (config, error) {
	m := engine.MergeSettings(settings(), overrides)
	var c config
	if err := engine.IntSettings("pebble", m, []engine.IntField{
		{Name: settingCacheMB, Dst: &c.cacheMB, Min: 0, Max: 1 << 20},
		// pebble requires a memtable below 4 GiB.
		{Name: settingMemtableMB, Dst: &c.memtableMB, Min: 1, Max: 4095},
		{Name: settingMaxConcurrentCompactions, Dst: &c.maxConcurrentCompactions, Min: 1, Max: 64},
		{Name: settingL0CompactionThreshold, Dst: &c.l0CompactionThreshold, Min: 1, Max: 1000},
		{Name: settingL0StopWritesThreshold, Dst: &c.l0StopWritesThreshold, Min: 1, Max: 1000},
		{Name: settingBytesPerSync, Dst: &c.bytesPerSync, Min: 1, Max: 1 << 30},
		{Name: settingBloomBitsPerKey, Dst: &c.bloomBitsPerKey, Min: 0, Max: 64},
	}); err != nil {
		return c, err
	}
	if c.l0StopWritesThreshold < c.l0CompactionThreshold {
		return c, fmt.Errorf("pebble: setting %s: %d is below %s (%d)", settingL0StopWritesThreshold,
			c.l0StopWritesThreshold, settingL0CompactionThreshold, c.l0CompactionThreshold)
	}
	var err error
	if c.compression, err = engine.EnumSetting("pebble", m, settingCompression, compressionNames()); err != nil {
		return c, err
	}
	if c.sync, err = parseSync(m); err != nil {
		return c, err
	}
	return c, nil
}

// settings returns the effective settings in the normalized form of their values.
func (c config) settings() map[string]string {
	return map[string]string{
		settingCacheMB:                  strconv.Itoa(c.cacheMB),
		settingMemtableMB:               strconv.Itoa(c.memtableMB),
		settingCompression:              c.compression,
		settingSync:                     c.sync.String(),
		settingMaxConcurrentCompactions: strconv.Itoa(c.maxConcurrentCompactions),
		settingL0CompactionThreshold:    strconv.Itoa(c.l0CompactionThreshold),
		settingL0StopWritesThreshold:    strconv.Itoa(c.l0StopWritesThreshold),
		settingBytesPerSync:             strconv.Itoa(c.bytesPerSync),
		settingBloomBitsPerKey:          strconv.Itoa(c.bloomBitsPerKey),
	}
}

// writeOptions returns the options of every commit: a WAL sync, unless sync=false. With
// sync=write the file system (options) turns the sync into a write to the OS.
func (c config) writeOptions() *pebble.WriteOptions {
	return &pebble.WriteOptions{Sync: c.sync != syncOff}
}

// options returns pebble's options for c. The caller sets Cache, EventListener and FS
// (fileSystem).
func (c config) options() *pebble.Options {
	n := c.maxConcurrentCompactions
	opts := &pebble.Options{
		MemTableSize:             uint64(c.memtableMB) << 20,
		MaxConcurrentCompactions: func() int { return n },
		L0CompactionThreshold:    c.l0CompactionThreshold,
		L0StopWritesThreshold:    c.l0StopWritesThreshold,
		BytesPerSync:             c.bytesPerSync,
		// A new database gets the newest format (the default is the oldest, for compatibility).
		FormatMajorVersion: pebble.FormatNewest,
		Levels:             make([]pebble.LevelOptions, numLevels),
	}
	for i := range opts.Levels {
		l := &opts.Levels[i]
		l.Compression = compressionOf(c.compression)
		l.TargetFileSize = int64(l0TargetFileSize) << i
		if c.bloomBitsPerKey > 0 {
			l.FilterPolicy = bloom.FilterPolicy(c.bloomBitsPerKey)
			l.FilterType = pebble.TableFilter
		}
		l.EnsureDefaults()
	}
	return opts
}

// fileSystem returns the file system pebble runs on, over base: every write watched for a full
// disk (space.go), and with sync=write, WAL syncs that do nothing while the file is written
// (walfs.go).
func (c config) fileSystem(base vfs.FS, sp *space) vfs.FS {
	if c.sync == syncWrite {
		base = walWriteFS{FS: base}
	}
	return vfs.OnDiskFull(spaceFS{FS: base, s: sp}, sp.release)
}

// capDefaults returns the settings of the engine under a memory cap of capBytes
// (engine.Driver.CapDefaults): a block cache of a quarter of the cap, and memtables of C/32 (at
// most the default 64 MiB; writes stall at two full ones). Pebble has no direct IO: its reads
// go through the page cache, which the cap charges and which has the rest of the cap with the
// harness.
func capDefaults(capBytes int64) map[string]string {
	return map[string]string{
		settingCacheMB:    strconv.FormatInt(engine.CapMiB(capBytes, 4, 1), 10),
		settingMemtableMB: strconv.FormatInt(min(engine.CapMiB(capBytes, 32, 1), 64), 10),
	}
}
