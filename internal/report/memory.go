package report

import (
	"fmt"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// warningPrefix starts a header line that the HTML page shows as a warning.
const warningPrefix = "WARNING: "

// memoryTitle is the title of the memory cap table.
const memoryTitle = "Memory cap"

// memoryTable has a row per configuration that ran under a memory cap: the cap, the cgroup and
// what ran in it, the group's peak, its usage and page cache after the last step, the OOM kills
// and the harness's peak. It has no rows (and is left out) when no configuration had a cap.
func memoryTable(r *result.Run) Table {
	t := Table{Title: memoryTitle, Header: []string{"config", "cap", "cgroup", "scope", "peak",
		"usage", "page cache", "cache share", "OOM kills", "harness peak"}}
	for _, c := range r.Configs {
		m := c.Memory
		if m == nil {
			continue
		}
		share := missing
		if m.UsageBytes > 0 {
			share = numfmt.Num(100*float64(m.CacheBytes)/float64(m.UsageBytes)) + "%"
		}
		oomClass := ""
		if m.OOMKills > 0 {
			oomClass = ClassBad
		}
		t.Rows = append(t.Rows, []string{c.Name, bytesCell(m.LimitBytes), orMissing(m.Cgroup), orMissing(m.Scope),
			optBytes(m.PeakBytes), bytesCell(m.UsageBytes), bytesCell(m.CacheBytes), share,
			fmt.Sprint(m.OOMKills), optBytes(m.HarnessPeakBytes)})
		t.Class = append(t.Class, []string{"", "", "", "", "", "", "", "", oomClass, ""})
	}
	return t
}

// memoryLines are the header lines of a configuration with a cap: the cap, and a warning when
// the kernel's OOM killer killed processes in its group.
func memoryLines(c result.Config) []string {
	m := c.Memory
	if m == nil {
		return nil
	}
	lines := []string{fmt.Sprintf("%s: memory cap %s (cgroup %s, scope %s)", c.Name, bytesCell(m.LimitBytes), orMissing(m.Cgroup), orMissing(m.Scope))}
	if m.OOMKills > 0 {
		procs := "processes"
		if m.OOMKills == 1 {
			procs = "process"
		}
		lines = append(lines, fmt.Sprintf("%s%s: the kernel's OOM killer killed %d %s in the memory cap's group: the engine ran out of memory under its cap of %s, and its figures are not those of a healthy run",
			warningPrefix, c.Name, m.OOMKills, procs, bytesCell(m.LimitBytes)))
	}
	return lines
}

// capCell is a configuration's cap in a few words: "2 GiB (v1, server)", or that it had none.
func capCell(c *result.Config) string {
	switch {
	case c == nil:
		return missing
	case c.Memory == nil:
		return "no cap"
	}
	m := c.Memory
	return fmt.Sprintf("%s (%s, %s)", bytesCell(m.LimitBytes), orMissing(m.Cgroup), orMissing(m.Scope))
}

// memoryLegend explains the memory cap table, for a run that has one.
func memoryLegend(r *result.Run) []string {
	if len(memoryTable(r).Rows) == 0 {
		return nil
	}
	return []string{
		"Memory cap (docs/memory.md): the cap a kernel cgroup enforced on the configuration; scope server: a managed server's processes, process: the enginebench process with the embedded engine (the harness counts against the cap).",
		"  peak: the group's peak usage (\"-\": the kernel does not keep it); usage and page cache: after the last step, with the page cache's share of the usage; OOM kills: processes the kernel killed in the group; harness peak: enginebench's own peak resident memory (scope process: counted in the cap; scope server: the client's, outside it).",
	}
}

// bytesCell formats a byte count.
func bytesCell(n int64) string { return numfmt.Bytes(float64(n)) }

// optBytes formats a byte count, or shows it missing.
func optBytes(n *int64) string {
	if n == nil {
		return missing
	}
	return bytesCell(*n)
}
