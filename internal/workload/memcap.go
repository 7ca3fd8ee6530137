package workload

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/prometheus/procfs"

	"github.com/enginebench/enginebench/internal/cgroup"
	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// memCap is a configuration's memory cap while the configuration runs (docs/memory.md): a
// managed server's process tree is born in the group; an embedded engine runs in the
// enginebench process, which joins the group for the configuration.
type memCap struct {
	g     *cgroup.Group
	scope string // result.Memory's Scope
}

// openCap makes the group of a configuration with a MemoryLimit and says where it applies: in
// cfg.Cgroup for a managed server, else it moves this process into it. It returns nil for a
// configuration without a cap. The command checked before the run that a cap can be applied
// (cgroup.Check); failing here fails the configuration, never runs it without its cap.
func openCap(reg *engine.Registry, cfg *engine.Config) (*memCap, error) {
	if cfg.MemoryLimit <= 0 {
		return nil, nil
	}
	d, err := reg.Lookup(cfg.Engine)
	if err != nil {
		return nil, err
	}
	if cfg.DSN != "" {
		return nil, fmt.Errorf("memory cap: an existing server (DSN) cannot be capped by enginebench")
	}
	g, err := cgroup.New(groupName(cfg.Name), cfg.MemoryLimit)
	if err != nil {
		return nil, fmt.Errorf("memory cap: %w", err)
	}
	if d.Server {
		cfg.Cgroup = g
		return &memCap{g: g, scope: "server"}, nil
	}
	if err := g.Add(os.Getpid()); err != nil {
		return nil, errors.Join(fmt.Errorf("memory cap: put enginebench in %s: %w", g.Dir(), err), g.Close())
	}
	return &memCap{g: g, scope: "process"}, nil
}

// groupName makes a configuration's name fit for a cgroup's directory name.
func groupName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, name)
}

// record writes the group's figures into rc.Memory; a figure that cannot be read leaves the
// earlier one and adds a note once.
func (c *memCap) record(rc *result.Config) {
	if c == nil {
		return
	}
	st, err := c.g.Stats()
	if err != nil {
		noteOnce(rc, "memory cap: cannot read the group's figures: "+err.Error())
		return
	}
	m := &result.Memory{LimitBytes: st.Limit, Cgroup: fmt.Sprintf("v%d", c.g.Version()), Scope: c.scope,
		UsageBytes: st.Usage, CacheBytes: st.Cache, OOMKills: st.OOMKills}
	if st.OOMKills == cgroup.NotMeasured { // v1 before Linux 4.13
		m.OOMKills = 0
		noteOnce(rc, "memory cap: this kernel does not count OOM kills; oom_kills is 0 unmeasured")
	}
	if st.Peak != cgroup.NotMeasured {
		m.PeakBytes = &st.Peak
	}
	if p, err := procfs.Self(); err == nil {
		if s, err := p.NewStatus(); err == nil {
			hwm := int64(s.VmHWM)
			m.HarnessPeakBytes = &hwm
		}
	}
	rc.Memory = m
}

// oomKilled says how many processes the kernel's OOM killer killed in the group, or "" when
// none (or no cap): a step that failed for it says so before the error its clients saw.
func (c *memCap) oomKilled() string {
	if c == nil {
		return ""
	}
	st, err := c.g.Stats()
	if err != nil || st.OOMKills <= 0 {
		return ""
	}
	return fmt.Sprintf("the kernel's OOM killer killed %d process(es) of the memory cap's group (cap %s): "+
		"the cap is too small for the engine's memory; give its caches less (docs/memory.md)",
		st.OOMKills, numfmt.Bytes(float64(st.Limit)))
}

// noteOnce adds note to rc's notes unless it is there.
func noteOnce(rc *result.Config, note string) {
	if !slices.Contains(rc.Notes, note) {
		rc.Notes = append(rc.Notes, note)
	}
}

// close removes the group, moving this process back out of it.
func (c *memCap) close() error {
	if c == nil {
		return nil
	}
	if err := c.g.Close(); err != nil {
		return fmt.Errorf("memory cap: %w", err)
	}
	return nil
}
