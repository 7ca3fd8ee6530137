package lmdb

import "github.com/enginebench/enginebench/internal/engine"

// The settings of the lmdb engine.
const (
	settingMapSizeMB  = "map_size_mb"
	settingSync       = "sync"
	settingMaxReaders = "max_readers"
	settingWriteMap   = "write_map"
)

// settings is the documented list of settings with their defaults.
func settings() []engine.Setting {
	return []engine.Setting{
		{Name: settingMapSizeMB, Default: "65536",
			Doc: "size of the memory map in MiB, the most the database file can hold (address space, not memory); a write past it fails with \"the map is full\""},
		{Name: settingSync, Default: "false",
			Doc: "fsync at every commit; false leaves the writes to the OS (MDB_NOSYNC: durable against a crash of the process, not of the machine, as pebble's sync=write)"},
		{Name: settingMaxReaders, Default: "1024",
			Doc: "read transactions open at once (each Get and each open iterator holds one)"},
		{Name: settingWriteMap, Default: "false",
			Doc: "write through a writable memory map (MDB_WRITEMAP) instead of write(2)"},
	}
}

// config is the parsed, validated form of the settings.
type config struct {
	mapSizeMB  int
	sync       bool
	maxReaders int
	writeMap   bool
}

// parseConfig merges overrides over the defaults and validates every value. Names are not
// checked here: the registry rejects unknown names before Open.
func parseConfig(overrides map[string]string) (config, error) {
	m := engine.MergeSettings(settings(), overrides)
	var c config
	var err error
	if c.mapSizeMB, err = engine.IntSetting("lmdb", m, settingMapSizeMB, 1, 1<<27); err != nil {
		return c, err
	}
	if c.maxReaders, err = engine.IntSetting("lmdb", m, settingMaxReaders, 1, 1<<20); err != nil {
		return c, err
	}
	return c, engine.BoolSettings("lmdb", m, []engine.BoolField{
		{Name: settingSync, Dst: &c.sync}, {Name: settingWriteMap, Dst: &c.writeMap}})
}
