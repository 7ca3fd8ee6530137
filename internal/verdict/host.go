package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// The host checks judge settings, not figures: each flags what the reference's author turns
// off or sets before he measures (his reports say so in prose: SMT off, the performance
// governor, turbo off), or what changes what a figure means (THP always, a fairness IO
// scheduler, fsync without a cache flush, online discard), passes the others, and is
// unmeasured where the host does not show the setting (no cpufreq on a virtual machine). They
// have no threshold.
const (
	CheckGovernor   = "governor"
	CheckBoost      = "boost"
	CheckSMT        = "smt"
	CheckTHP        = "thp"
	CheckScheduler  = "scheduler"
	CheckWriteCache = "write_cache"
	CheckDiscard    = "discard"
)

// HostChecks are the host checks, in the order their verdicts are listed, with what each
// flags (docs/results.md, Verdicts).
func HostChecks() []Check {
	return []Check{
		{Name: CheckGovernor, Flags: "a cpufreq scaling governor other than performance: the CPUs' frequency follows the load, so a figure depends on how busy the step kept them"},
		{Name: CheckBoost, Flags: "boost (turbo) on: the CPUs run above their base frequency while they stay cool and few are busy, so a figure depends on temperature and concurrency"},
		{Name: CheckSMT, Flags: "SMT on: two threads share a core, so a figure depends on what runs on the sibling"},
		{Name: CheckTHP, Flags: "transparent huge pages always: the kernel compacts memory and backs allocations with huge pages at its pace, which moves latency and memory use"},
		{Name: CheckScheduler, Flags: "a fairness IO scheduler (bfq, cfq) on the data device: it idles and reorders requests per process, which adds latency to the engine's IO"},
		{Name: CheckWriteCache, Flags: `a data device whose write cache the kernel takes as "write through": fsync sends no cache flush, so commits are cheap, and durable only where the device has power-loss protection`},
		{Name: CheckDiscard, Flags: "the data directory mounted with online discard on a device that takes discards: every file delete (compaction, checkpoints, WAL recycling) sends a TRIM in the write path, which can stall writes"},
	}
}

// fairSchedulers are the IO schedulers the scheduler check flags.
var fairSchedulers = []string{"bfq", "cfq"}

// hostSettings returns the verdicts of h's settings.
func hostSettings(h *result.Host, _ Thresholds) []result.Verdict {
	return []result.Verdict{governor(h), boost(h), smt(h), thp(h), scheduler(h), writeCache(h), discard(h)}
}

// setting returns the verdict of a setting: flagged with msg when bad, else ok.
func setting(check string, bad bool, msg string) result.Verdict {
	if bad {
		return result.Verdict{Check: check, State: result.VerdictFlag, Message: msg}
	}
	return result.Verdict{Check: check, State: result.VerdictOK}
}

func governor(h *result.Host) result.Verdict {
	if len(h.Governors) == 0 {
		return unmeasured(CheckGovernor, "no cpufreq governor in /sys (a virtual machine, or a kernel without cpufreq)")
	}
	other := slices.DeleteFunc(slices.Clone(h.Governors), func(g string) bool { return g == "performance" })
	return setting(CheckGovernor, len(other) > 0, fmt.Sprintf("cpufreq governor %s, not performance: the CPUs' frequency follows the load, so figures may vary with it",
		strings.Join(other, ", ")))
}

func boost(h *result.Host) result.Verdict {
	if h.CPUBoost == nil {
		return unmeasured(CheckBoost, "no cpufreq/boost or intel_pstate/no_turbo in /sys")
	}
	return setting(CheckBoost, *h.CPUBoost, "CPU boost (turbo) on: the frequency depends on temperature and how many CPUs are busy, so figures may vary with them")
}

func smt(h *result.Host) result.Verdict {
	if h.SMT == "" {
		return unmeasured(CheckSMT, "no SMT control in /sys (devices/system/cpu/smt/control)")
	}
	return setting(CheckSMT, h.SMT == "on", "SMT on: threads share cores with what runs on their siblings, so figures may be noisy")
}

func thp(h *result.Host) result.Verdict {
	if h.THPEnabled == "" {
		return unmeasured(CheckTHP, "no transparent huge pages setting in /sys")
	}
	return setting(CheckTHP, h.THPEnabled == "always", "transparent huge pages always: compaction and huge-page faults may move latency and memory use")
}

func scheduler(h *result.Host) result.Verdict {
	if h.DeviceScheduler == "" {
		return unmeasured(CheckScheduler, noDevice(h, "its IO scheduler"))
	}
	return setting(CheckScheduler, slices.Contains(fairSchedulers, h.DeviceScheduler),
		fmt.Sprintf("IO scheduler %s on %s: it idles and reorders requests per process, which adds latency to the engine's IO", h.DeviceScheduler, h.DataDevice))
}

func writeCache(h *result.Host) result.Verdict {
	if h.DeviceWriteCache == "" {
		return unmeasured(CheckWriteCache, noDevice(h, "its write cache"))
	}
	return setting(CheckWriteCache, h.DeviceWriteCache == "write through",
		fmt.Sprintf("%s's write cache is write through: fsync sends no cache flush, so commits are cheap, and durable only with power-loss protection", h.DataDevice))
}

func discard(h *result.Host) result.Verdict {
	if h.MountOptions == nil || h.DeviceDiscardMaxBytes == nil {
		return unmeasured(CheckDiscard, noDevice(h, "its discard support and mount options"))
	}
	online := slices.Contains(h.MountOptions, "discard")
	return setting(CheckDiscard, online && *h.DeviceDiscardMaxBytes > 0,
		fmt.Sprintf("the data directory's file system (%s on %s) is mounted with discard: file deletes send TRIMs in the write path, which can stall writes", h.Filesystem, h.DataDevice))
}

// noDevice says why a setting of the data device is unmeasured.
func noDevice(h *result.Host, what string) string {
	if h.DataDevice == "" {
		return "no block device under the data directory: " + what + " is unknown"
	}
	return h.DataDevice + ": /sys does not show " + what
}
