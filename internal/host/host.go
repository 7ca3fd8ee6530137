// Package host reads the fingerprint of the machine a run runs on (CPU, cores, SMT, cpufreq
// governors and boost, transparent huge pages, kernel, memory, and the file system, its mount
// options and the block device under the data directory) from /proc and /sys, and runs a short calibration probe (a fixed
// CPU loop, fsync latency in the data directory). What cannot be read is left out, never
// guessed.
package host

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"github.com/prometheus/procfs/sysfs"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// Reader reads a fingerprint from a proc and a sys file system mounted at Proc and Sys
// (/proc and /sys on a live host; a directory of samples in tests).
type Reader struct {
	Proc, Sys string
}

// Read returns the fingerprint of this host, with the device of dataDir ("" for none).
func Read(dataDir string) result.Host {
	return Reader{Proc: procfs.DefaultMountPoint, Sys: sysfs.DefaultMountPoint}.Read(dataDir)
}

// Read returns the fingerprint under r's file systems, with the device of dataDir ("" for
// none). The logical CPUs, the hostname and the Go version are this process's.
func (r Reader) Read(dataDir string) result.Host {
	h := result.Host{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	h.Kernel = readLine(filepath.Join(r.Proc, "sys/kernel/osrelease"))
	r.readProc(&h)
	h.PhysicalCores, h.Sockets = r.topology()
	h.SMT = readLine(filepath.Join(r.Sys, "devices/system/cpu/smt/control"))
	h.Governors = r.governors()
	h.CPUBoost = r.boost()
	h.THPEnabled = selected(readLine(filepath.Join(r.Sys, "kernel/mm/transparent_hugepage/enabled")))
	h.THPDefrag = selected(readLine(filepath.Join(r.Sys, "kernel/mm/transparent_hugepage/defrag")))
	if dataDir != "" {
		r.readDevice(&h, dataDir)
	}
	return h
}

// readProc reads the memory total and the CPU model from /proc.
func (r Reader) readProc(h *result.Host) {
	fs, err := procfs.NewFS(r.Proc)
	if err != nil {
		return
	}
	if mi, err := fs.Meminfo(); err == nil && mi.MemTotal != nil {
		h.MemoryBytes = *mi.MemTotal * 1024
	}
	if b, err := os.ReadFile(filepath.Join(r.Proc, "cpuinfo")); err == nil {
		h.CPUModel = cpuModel(string(b))
	}
}

// cpuModel returns the first CPU's model in the text of /proc/cpuinfo: its "model name"
// (x86), else its "Processor" (32-bit ARM); "" when it has neither (arm64 names only part
// numbers). procfs parses cpuinfo by the build's architecture; this reads any.
func cpuModel(cpuinfo string) string {
	var fallback string
	for line := range strings.Lines(cpuinfo) {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.Join(strings.Fields(val), " ")
		switch strings.TrimSpace(key) {
		case "model name":
			return val
		case "Processor":
			if fallback == "" {
				fallback = val
			}
		}
	}
	return fallback
}

// topology counts the distinct physical cores (package, core id) and packages of the online
// CPUs; 0 where the topology cannot be read.
func (r Reader) topology() (cores, sockets int) {
	fs, err := sysfs.NewFS(r.Sys)
	if err != nil {
		return 0, 0
	}
	cpus, err := fs.CPUs()
	if err != nil {
		return 0, 0
	}
	coreSet, pkgSet := map[[2]string]bool{}, map[string]bool{}
	for _, c := range cpus {
		if on, err := c.Online(); err == nil && !on {
			continue
		}
		t, err := c.Topology()
		if err != nil {
			return 0, 0 // a CPU of unknown topology: no count rather than a wrong one
		}
		coreSet[[2]string{t.PhysicalPackageID, t.CoreID}] = true
		pkgSet[t.PhysicalPackageID] = true
	}
	return len(coreSet), len(pkgSet)
}

// governors returns the distinct cpufreq scaling governors of the online CPUs, sorted; none
// without cpufreq (many virtual machines).
func (r Reader) governors() []string {
	paths, _ := filepath.Glob(filepath.Join(r.Sys, "devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
	var out []string
	for _, p := range paths {
		if g := readLine(p); g != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

// boost tells whether the CPUs may boost above their base frequency: cpufreq/boost (acpi-cpufreq,
// amd-pstate) where it is there, else intel_pstate/no_turbo inverted; nil without either.
func (r Reader) boost() *bool {
	switch readLine(filepath.Join(r.Sys, "devices/system/cpu/cpufreq/boost")) {
	case "1":
		return new(true)
	case "0":
		return new(false)
	}
	switch readLine(filepath.Join(r.Sys, "devices/system/cpu/intel_pstate/no_turbo")) {
	case "0":
		return new(true)
	case "1":
		return new(false)
	}
	return nil
}

// readDevice finds the file system and the block device under dir and reads the device's
// model, whether it rotates, its scheduler, write cache and discard, and the mount's options.
func (r Reader) readDevice(h *result.Host, dir string) {
	pfs, err := procfs.NewFS(r.Proc)
	if err != nil {
		return
	}
	bfs, err := blockdevice.NewFS(r.Proc, r.Sys)
	if err != nil {
		return
	}
	dev, _ := measure.FindDevice(pfs, bfs, dir) // without a device, the configs' notes say why
	h.DataDevice, h.Filesystem, h.MountOptions = dev.Name, dev.Filesystem, dev.MountOptions
	if dev.Name != "" {
		d := r.Device(dev.Name)
		h.DeviceModel, h.DeviceRotational, h.DeviceScheduler = d.Model, d.Rotational, d.Scheduler
		h.DeviceWriteCache, h.DeviceDiscardMaxBytes = d.WriteCache, d.DiscardMaxBytes
	}
}

// readLine returns the first line of a file, trimmed; "" when it cannot be read.
func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// selected returns the selected choice of a sysfs choice list ("always [madvise] never":
// madvise), or the only word of a list of one; "" otherwise.
func selected(s string) string {
	words := strings.Fields(s)
	for _, w := range words {
		if len(w) > 2 && strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
			return w[1 : len(w)-1]
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return ""
}
