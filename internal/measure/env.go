package measure

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// The environment of a step: what the host did besides the benchmark, read with the step's
// other counters (OS). A key that is absent was not measured: the kernel has no
// /proc/pressure (before 4.20, or booted without psi), the host no cpufreq (many virtual
// machines) or no thermal_throttle counters (only x86 has them).
const (
	// KeySteal is host CPU seconds stolen by the hypervisor for its other guests (/proc/stat
	// steal).
	KeySteal = "steal_s"
	// KeyOtherCPU is host CPU seconds of other processes than the client and the DBMS: the
	// host's user, nice, system, irq and softirq time (KeyCPUUsSy) minus KeyClientCPU and
	// KeyDBCPU, at least 0. It includes the kernel's own threads (writeback, kswapd). Absent
	// when the DBMS's processes are not known (an existing server without --db-pid).
	KeyOtherCPU = "other_cpu_s"
	// KeyPSICPUSome, ... are the seconds of pressure stall information's "total" counters
	// (/proc/pressure/cpu, io, memory): the time in which some task (some), or every non-idle
	// task (full), was stalled on the resource. The system-wide cpu full is 0 on kernels
	// that show it.
	KeyPSICPUSome    = "psi_cpu_some_s"
	KeyPSICPUFull    = "psi_cpu_full_s"
	KeyPSIIOSome     = "psi_io_some_s"
	KeyPSIIOFull     = "psi_io_full_s"
	KeyPSIMemorySome = "psi_memory_some_s"
	KeyPSIMemoryFull = "psi_memory_full_s"
	// KeySwapIn and KeySwapOut are pages swapped in and out (/proc/vmstat pswpin, pswpout).
	KeySwapIn  = "swap_in_pages"
	KeySwapOut = "swap_out_pages"
	// KeyFreqMHz is the mean of the CPUs' scaling_cur_freq in MHz: in an interval, at its
	// end. KeyFreqStartMHz is it at a step's start, KeyFreqMinMHz the lowest of the step's
	// readings (its start, each second, its end).
	KeyFreqMHz      = "freq_mhz"
	KeyFreqStartMHz = "freq_start_mhz"
	KeyFreqMinMHz   = "freq_min_mhz"
	// KeyThrottles is the CPUs' thermal throttle events (thermal_throttle's core and package
	// throttle counts, summed).
	KeyThrottles = "throttle_events"
)

// psiResources are the resources of /proc/pressure and the keys of their some and full totals.
var psiResources = [...]struct{ name, some, full string }{
	{"cpu", KeyPSICPUSome, KeyPSICPUFull},
	{"io", KeyPSIIOSome, KeyPSIIOFull},
	{"memory", KeyPSIMemorySome, KeyPSIMemoryFull},
}

// envFiles are the files of /sys the environment is read from, found when the accountant is
// made: CPUs do not come and go during a run, and a glob each second would cost more than
// the reading.
type envFiles struct {
	freq     []string // cpu*/cpufreq/scaling_cur_freq
	throttle []string // cpu*/thermal_throttle/{core,package}_throttle_count
}

// findEnvFiles returns the environment files under the sys mount point sys.
func findEnvFiles(sys string) envFiles {
	cpu := filepath.Join(sys, "devices/system/cpu")
	freq, _ := filepath.Glob(filepath.Join(cpu, "cpu[0-9]*/cpufreq/scaling_cur_freq"))
	core, _ := filepath.Glob(filepath.Join(cpu, "cpu[0-9]*/thermal_throttle/core_throttle_count"))
	pkg, _ := filepath.Glob(filepath.Join(cpu, "cpu[0-9]*/thermal_throttle/package_throttle_count"))
	return envFiles{freq: freq, throttle: append(core, pkg...)}
}

// envReading is one reading of the environment's counters; the ok flags say which could be
// read.
type envReading struct {
	psi        [len(psiResources)][2]uint64 // some and full totals, microseconds
	psiOK      [len(psiResources)]bool
	swapIn     uint64
	swapOut    uint64
	swapOK     bool
	freqMHz    float64
	freqOK     bool
	throttles  uint64
	throttleOK bool
}

// readEnv takes a reading of the environment.
func (o *OS) readEnv() envReading {
	var r envReading
	for i, res := range psiResources {
		if st, err := o.fs.PSIStatsForResource(res.name); err == nil && st.Some != nil {
			r.psi[i][0] = st.Some.Total
			if st.Full != nil {
				r.psi[i][1] = st.Full.Total
			}
			r.psiOK[i] = true
		}
	}
	r.swapIn, r.swapOut, r.swapOK = swapCounts(filepath.Join(o.proc, "vmstat"))
	r.freqMHz, r.freqOK = meanFreqMHz(o.env.freq)
	r.throttles, r.throttleOK = sumCounters(o.env.throttle)
	return r
}

// swapCounts returns pswpin and pswpout of the vmstat file at path; ok is false when either
// is missing.
func swapCounts(path string) (in, out uint64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	var seen int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, val, found := bytes.Cut(sc.Bytes(), []byte{' '})
		if !found {
			continue
		}
		var dst *uint64
		switch string(name) {
		case "pswpin":
			dst = &in
		case "pswpout":
			dst = &out
		default:
			continue
		}
		if n, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 10, 64); err == nil {
			*dst = n
			seen++
		}
	}
	return in, out, seen == 2
}

// meanFreqMHz returns the mean of the scaling_cur_freq files (kHz) in MHz; ok is false when
// none could be read.
func meanFreqMHz(paths []string) (float64, bool) {
	var sum float64
	var n int
	for _, p := range paths {
		if v, ok := readCounter(p); ok {
			sum += float64(v)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n) / 1000, true
}

// sumCounters returns the sum of the counter files; ok is false when any cannot be read, so
// that a sum is never of some of them.
func sumCounters(paths []string) (uint64, bool) {
	var sum uint64
	for _, p := range paths {
		v, ok := readCounter(p)
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, len(paths) > 0
}

// readCounter reads a file holding one unsigned number.
func readCounter(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return v, err == nil
}

// envUsage adds to m the environment's usage between the readings a and b.
func envUsage(m map[string]float64, a, b envReading) {
	for i, res := range psiResources {
		if a.psiOK[i] && b.psiOK[i] {
			m[res.some] = delta(a.psi[i][0], b.psi[i][0]) / 1e6
			m[res.full] = delta(a.psi[i][1], b.psi[i][1]) / 1e6
		}
	}
	if a.swapOK && b.swapOK {
		m[KeySwapIn] = delta(a.swapIn, b.swapIn)
		m[KeySwapOut] = delta(a.swapOut, b.swapOut)
	}
	if b.freqOK {
		m[KeyFreqMHz] = b.freqMHz
	}
	if a.throttleOK && b.throttleOK {
		m[KeyThrottles] = delta(a.throttles, b.throttles)
	}
}
