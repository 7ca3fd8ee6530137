package host

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
)

// sample returns a Reader of the /proc and /sys samples in testdata/name.
func sample(name string) Reader {
	return Reader{Proc: filepath.Join("testdata", name, "proc"), Sys: filepath.Join("testdata", name, "sys")}
}

func TestReadSamples(t *testing.T) {
	cases := []struct {
		name string
		want result.Host
	}{
		// Two sockets of two cores of two threads, cpu7 offline (its stale topology would add
		// a core and a socket), one CPU on another governor, turbo on (intel_pstate).
		{"xeon", result.Host{CPUModel: "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", MemoryBytes: 394915584 * 1024,
			Kernel: "5.15.0-91-generic", PhysicalCores: 4, Sockets: 2, SMT: "on", Governors: []string{"performance", "powersave"},
			CPUBoost: new(true), THPEnabled: "always", THPDefrag: "madvise"}},
		// An arm64 virtual machine: no model name, no cpufreq (so no boost), no SMT, THP off.
		{"arm64-vm", result.Host{MemoryBytes: 8024516 * 1024, Kernel: "6.1.0-18-arm64", PhysicalCores: 2, Sockets: 1,
			SMT: "notsupported", THPEnabled: "never", THPDefrag: "never"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sample(c.name).Read("")
			if got.CPUs != runtime.NumCPU() || got.GoVersion != runtime.Version() {
				t.Errorf("cpus %d, go %s: want this process's %d, %s", got.CPUs, got.GoVersion, runtime.NumCPU(), runtime.Version())
			}
			got.CPUs, got.GoVersion, got.Hostname = 0, "", ""
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestReadMountOptions reads the options of the data directory's mount from a sample
// mountinfo: the test directory is under its only file system, "/", whose device number is
// not in the sample's diskstats, so there is no device, but the file system and its options
// are the mount's.
func TestReadMountOptions(t *testing.T) {
	got := sample("xeon").Read(t.TempDir())
	want := []string{"attr2", "discard", "inode64", "logbsize=32k", "noatime", "noquota", "rw"}
	if got.Filesystem != "xfs" || !reflect.DeepEqual(got.MountOptions, want) || got.DataDevice != "" {
		t.Errorf("file system %q, device %q, options %q: want xfs, no device, %q", got.Filesystem, got.DataDevice, got.MountOptions, want)
	}
}

// TestBoost reads boost from cpufreq/boost first, else from intel_pstate/no_turbo inverted.
func TestBoost(t *testing.T) {
	cases := []struct {
		boost, noTurbo string // "" for no file
		want           *bool
	}{
		{"1", "", new(true)}, {"0", "", new(false)},
		{"", "0", new(true)}, {"", "1", new(false)},
		{"0", "0", new(false)}, // cpufreq/boost wins
		{"", "", nil}, {"x", "", nil},
	}
	for _, c := range cases {
		sys := t.TempDir()
		for file, v := range map[string]string{"cpufreq/boost": c.boost, "intel_pstate/no_turbo": c.noTurbo} {
			if v == "" {
				continue
			}
			p := filepath.Join(sys, "devices/system/cpu", file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := (Reader{Sys: sys}).boost(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("boost %q, no_turbo %q: %v, want %v", c.boost, c.noTurbo, ptr(got), ptr(c.want))
		}
	}
}

func TestReadNothingReadable(t *testing.T) {
	got := Reader{Proc: t.TempDir(), Sys: t.TempDir()}.Read(t.TempDir())
	got.CPUs, got.GoVersion, got.Hostname = 0, "", ""
	if !reflect.DeepEqual(got, result.Host{}) {
		t.Errorf("from empty /proc and /sys: %+v, want every field absent", got)
	}
}

func TestDeviceSamples(t *testing.T) {
	r := sample("xeon")
	tb := uint64(2199023255040)
	cases := []struct {
		name, model, scheduler, writeCache string
		rotational                         *bool
		discardMax                         *uint64
	}{
		{"sda1", "ST4000NM0035-1V4", "mq-deadline", "write through", new(true), new(uint64(0))}, // a partition: its disk's
		{"sda", "ST4000NM0035-1V4", "mq-deadline", "write through", new(true), new(uint64(0))},
		{"nvme0n1p1", "Samsung SSD 980 PRO 1TB", "none", "write back", new(false), &tb},
		{"md0", "ST4000NM0035-1V4 + Samsung SSD 980 PRO 1TB", "none", "", new(false), nil},  // the disks under it
		{"dm-0", "ST4000NM0035-1V4 + Samsung SSD 980 PRO 1TB", "none", "", new(false), nil}, // on md0
		{"sdz", "", "", "", nil, nil}, // no such device
	}
	for _, c := range cases {
		d := r.Device(c.name)
		if d.Model != c.model || d.Scheduler != c.scheduler || !reflect.DeepEqual(d.Rotational, c.rotational) {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.name, d.Model, d.Scheduler, ptr(d.Rotational), c.model, c.scheduler, ptr(c.rotational))
		}
		if d.WriteCache != c.writeCache || !reflect.DeepEqual(d.DiscardMaxBytes, c.discardMax) {
			t.Errorf("%s: write cache %q, discard_max_bytes %v, want %q, %v", c.name, d.WriteCache, d.DiscardMaxBytes, c.writeCache, c.discardMax)
		}
	}
	vda := sample("arm64-vm").Device("vda") // virtio: no model
	if vda.Model != "" || vda.Scheduler != "mq-deadline" || vda.Rotational == nil || !*vda.Rotational {
		t.Errorf("vda: %+v", vda)
	}
}

func ptr(b *bool) string {
	if b == nil {
		return "nil"
	}
	return map[bool]string{true: "true", false: "false"}[*b]
}

func TestCPUModel(t *testing.T) {
	arm32, err := os.ReadFile("testdata/cpuinfo-arm32")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		string(arm32): "ARMv7 Processor rev 4 (v7l)",
		"processor\t: 0\nmodel name\t: AMD  EPYC   7763 64-Core Processor \nprocessor\t: 1\nmodel name\t: other\n": "AMD EPYC 7763 64-Core Processor",
		"processor\t: 0\nCPU part\t: 0xd0c\n": "",
		"":                                    "",
	}
	for in, want := range cases {
		if got := cpuModel(in); got != want {
			t.Errorf("cpuModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSelected(t *testing.T) {
	cases := map[string]string{
		"always [madvise] never":                     "madvise",
		"always defer defer+madvise [madvise] never": "madvise",
		"[none] mq-deadline":                         "none",
		"none":                                       "none",
		"none mq-deadline":                           "",
		"[]":                                         "[]",
		"":                                           "",
	}
	for in, want := range cases {
		if got := selected(in); got != want {
			t.Errorf("selected(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadThisHost checks the fingerprint of this machine against what it has, read here
// another way where there is one.
func TestReadThisHost(t *testing.T) {
	dir := t.TempDir()
	h := Read(dir)
	if h.CPUs != runtime.NumCPU() {
		t.Errorf("cpus %d, want runtime.NumCPU() %d", h.CPUs, runtime.NumCPU())
	}
	var u syscall.Utsname
	if err := syscall.Uname(&u); err == nil {
		if rel := utsString(u.Release[:]); h.Kernel != rel {
			t.Errorf("kernel %q, want uname's %q", h.Kernel, rel)
		}
	}
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil && h.MemoryBytes != uint64(si.Totalram)*uint64(si.Unit) {
		// MemTotal and sysinfo's totalram are the same figure (kB against bytes).
		t.Errorf("memory %d, want sysinfo's %d", h.MemoryBytes, uint64(si.Totalram)*uint64(si.Unit))
	}
	if b, _ := os.ReadFile("/proc/cpuinfo"); strings.Contains(string(b), "model name") && h.CPUModel == "" {
		t.Errorf("no CPU model, but /proc/cpuinfo has a model name")
	}
	if _, err := os.Stat("/sys/devices/system/cpu/cpu0/topology/core_id"); err == nil && (h.PhysicalCores < 1 || h.Sockets < 1 || h.Sockets > h.PhysicalCores) {
		t.Errorf("physical cores %d, sockets %d: want at least one core per socket", h.PhysicalCores, h.Sockets)
	}
	for file, got := range map[string]string{"enabled": h.THPEnabled, "defrag": h.THPDefrag} {
		b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/" + file)
		if err == nil && !slices.Contains(strings.Fields(string(b)), "["+got+"]") {
			t.Errorf("THP %s %q, not the selected choice of %q", file, got, strings.TrimSpace(string(b)))
		}
	}
	dev, err := measure.DeviceOf(dir)
	if err != nil || dev.Name == "" {
		t.Logf("the test directory has no block device (%v): device not checked", err)
		return
	}
	if h.DataDevice != dev.Name || h.Filesystem != dev.Filesystem {
		t.Errorf("device %s on %s, want %s on %s", h.DataDevice, h.Filesystem, dev.Name, dev.Filesystem)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/block", Reader{Sys: "/sys"}.diskOf(dev.Name), "queue/rotational")); err == nil && h.DeviceRotational == nil {
		t.Errorf("device %s: rotational not read, though /sys has it", dev.Name)
	}
	if b, err := os.ReadFile(filepath.Join("/sys/class/block", Reader{Sys: "/sys"}.diskOf(dev.Name), "queue/write_cache")); err == nil && h.DeviceWriteCache != strings.TrimSpace(string(b)) {
		t.Errorf("device %s: write cache %q, /sys has %q", dev.Name, h.DeviceWriteCache, b)
	}
	if !slices.Contains(h.MountOptions, "rw") && !slices.Contains(h.MountOptions, "ro") {
		t.Errorf("mount options %q: want rw or ro among them", h.MountOptions)
	}
}

// utsString returns a NUL-terminated utsname field as a string.
func utsString[T int8 | uint8](b []T) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}
