package bbolt

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/enginebench/enginebench/internal/engine"
)

// The settings of the bbolt engine.
const (
	settingSync          = "sync"
	settingFreelist      = "freelist"
	settingFreelistSync  = "freelist_sync"
	settingFillPercent   = "fill_percent"
	settingInitialMmapMB = "initial_mmap_mb"
	settingPageSize      = "page_size"
	// defaultInitialMmapMiB is 1 TiB of address space: the map never grows, and so never waits
	// for readers, below that size (see iter.go).
	defaultInitialMmapMiB = 1 << 20
)

// settings is the documented list of settings with their defaults.
func settings() []engine.Setting {
	return []engine.Setting{
		{Name: settingSync, Default: "false",
			Doc: "fsync the file at every commit; false leaves the writes to the OS (durable against a crash of the process, not of the machine, as pebble's sync=write)"},
		{Name: settingFreelist, Default: "map",
			Doc: "how bbolt keeps its free pages: map (hash map, fast on large files) or array (bbolt's historic default)"},
		{Name: settingFreelistSync, Default: "false",
			Doc: "write the freelist at every commit; false rebuilds it by scanning the file at open (bbolt's NoFreelistSync)"},
		{Name: settingFillPercent, Default: "50",
			Doc: "how full (percent) bbolt fills a page before it splits it (bbolt's default 50); appends in key order pack best at 90-100"},
		{Name: settingInitialMmapMB, Default: strconv.Itoa(defaultInitialMmapMiB),
			Doc: "address space mapped at open, in MiB (1 TiB: address space only, no memory); past it the map grows and the writer waits for every open reader, which deadlocks a client that commits while it iterates"},
		{Name: settingPageSize, Default: "4096",
			Doc: "page size of a new database file in bytes (a power of two, 1024 to 65536)"},
	}
}

// config is the parsed, validated form of the settings.
type config struct {
	sync          bool
	freelist      string
	freelistSync  bool
	fillPercent   int
	initialMmapMB int
	pageSize      int
}

// parseConfig merges overrides over the defaults and validates every value. Names are not
// checked here: the registry rejects unknown names before Open.
func parseConfig(overrides map[string]string) (config, error) {
	m := engine.MergeSettings(settings(), overrides)
	var c config
	var err error
	if err := engine.BoolSettings("bbolt", m, []engine.BoolField{
		{Name: settingSync, Dst: &c.sync}, {Name: settingFreelistSync, Dst: &c.freelistSync}}); err != nil {
		return c, err
	}
	if c.freelist, err = engine.EnumSetting("bbolt", m, settingFreelist, []string{"map", "array"}); err != nil {
		return c, err
	}
	if err := engine.IntSettings("bbolt", m, []engine.IntField{
		{Name: settingFillPercent, Dst: &c.fillPercent, Min: 10, Max: 100},
		{Name: settingInitialMmapMB, Dst: &c.initialMmapMB, Min: 1, Max: 1 << 27},
		{Name: settingPageSize, Dst: &c.pageSize, Min: 1024, Max: 65536},
	}); err != nil {
		return c, err
	}
	if c.pageSize&(c.pageSize-1) != 0 {
		return c, fmt.Errorf("bbolt: setting %s: %d is not a power of two", settingPageSize, c.pageSize)
	}
	return c, nil
}

// settings returns the effective settings in the normalized form of their values.
func (c config) settings() map[string]string {
	return map[string]string{
		settingSync:          strconv.FormatBool(c.sync),
		settingFreelist:      c.freelist,
		settingFreelistSync:  strconv.FormatBool(c.freelistSync),
		settingFillPercent:   strconv.Itoa(c.fillPercent),
		settingInitialMmapMB: strconv.Itoa(c.initialMmapMB),
		settingPageSize:      strconv.Itoa(c.pageSize),
	}
}

// options returns bbolt's options for c.
func (c config) options() *bolt.Options {
	o := &bolt.Options{
		NoSync:          !c.sync,
		NoFreelistSync:  !c.freelistSync,
		FreelistType:    bolt.FreelistMapType,
		InitialMmapSize: c.initialMmapMB << 20,
		PageSize:        c.pageSize,
	}
	if c.freelist == "array" {
		o.FreelistType = bolt.FreelistArrayType
	}
	return o
}
