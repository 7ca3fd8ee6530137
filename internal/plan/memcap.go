package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	units "github.com/docker/go-units"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/workload"
)

// MemoryLimitSetting is the setting every engine takes for its configuration's memory cap; the
// plan takes it out of the settings the engine sees and into engine.Config.MemoryLimit.
const MemoryLimitSetting = "memory_limit"

// minMemoryLimit is the smallest cap accepted: below it no engine here starts.
const minMemoryLimit = 64 << 20

// parseMemoryLimit reads a cap: a size with a binary unit as the kernel reads it (256M, 1G,
// 1.5GiB: powers of 1024), or none (also 0) for no cap.
func parseMemoryLimit(s string) (int64, error) {
	if v := strings.ToLower(strings.TrimSpace(s)); v == "none" || v == "0" {
		return 0, nil
	}
	n, err := units.RAMInBytes(s)
	if err != nil {
		return 0, fmt.Errorf("memory limit %q: want a size such as 256M or 2G (powers of 1024), or none", s)
	}
	if n < minMemoryLimit {
		return 0, fmt.Errorf("memory limit %q: at least %s", s, numfmt.Bytes(minMemoryLimit))
	}
	return n, nil
}

// applyMemoryLimits sets each configuration's MemoryLimit from its memory_limit setting, else
// from --memory-limit (flag, when given), else from the workload's preset, and merges its
// engine's CapDefaults under the settings the configuration gives itself.
func applyMemoryLimits(reg *engine.Registry, cps []Config, flag *string, w workload.Workload) error {
	run, from := int64(0), ""
	if c, ok := w.(workload.Capped); ok {
		run, from = c.MemoryLimit(), "the "+w.Scale()+" preset"
	}
	if flag != nil {
		var err error
		if run, err = parseMemoryLimit(*flag); err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
	}
	for i := range cps {
		c := &cps[i]
		c.MemoryLimit, c.capFrom = run, from
		if flag != nil {
			c.capFrom = "--memory-limit"
		}
		if v, ok := c.Settings[MemoryLimitSetting]; ok {
			n, err := parseMemoryLimit(v)
			if err != nil {
				return fmt.Errorf("%sconfiguration %s: %w", c.at, c.Name, err)
			}
			delete(c.Settings, MemoryLimitSetting)
			c.MemoryLimit, c.capFrom = n, "its "+MemoryLimitSetting+" setting"
		}
		if c.MemoryLimit == 0 {
			continue
		}
		if c.DSN != "" {
			return fmt.Errorf("%sconfiguration %s: a memory cap (%s, from %s) applies to an engine enginebench runs, "+
				"not to an existing server (--dsn): give memory_limit=none or run a managed server", c.at, c.Name,
				numfmt.Bytes(float64(c.MemoryLimit)), c.capFrom)
		}
		if d, err := reg.Lookup(c.Engine); err == nil && d.CapDefaults != nil {
			merged := d.CapDefaults(c.MemoryLimit)
			maps.Copy(merged, c.Settings)
			c.Settings = merged
		}
	}
	return nil
}

// checkMemoryCaps refuses a run with a cap where none can be applied, with the reason, before
// anything starts: a run never goes on without the cap it was asked for.
func checkMemoryCaps(cps []Config) error {
	i := slices.IndexFunc(cps, func(c Config) bool { return c.MemoryLimit > 0 })
	if i < 0 {
		return nil
	}
	if err := cgroup.Check(); err != nil {
		c := cps[i]
		return fmt.Errorf("configuration %s: the memory cap of %s (from %s) cannot be applied here: %v; "+
			"run as root on a host with the cgroup memory controller, or without a cap (--memory-limit none)",
			c.Name, numfmt.Bytes(float64(c.MemoryLimit)), c.capFrom, err)
	}
	return nil
}
