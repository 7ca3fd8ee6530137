package measure

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// envHost is a proc and a sys tree in a temporary directory whose counters a test sets
// between an accountant's readings.
type envHost struct {
	t         *testing.T
	proc, sys string
}

func newEnvHost(t *testing.T) *envHost {
	root := t.TempDir()
	h := &envHost{t: t, proc: filepath.Join(root, "proc"), sys: filepath.Join(root, "sys")}
	return h
}

// write writes text to the file rel of dir.
func (h *envHost) write(dir, rel, text string) {
	h.t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// set writes one reading: /proc/stat with user, system and steal ticks (idle fixed), the
// process 4242's CPU ticks, the psi totals (microseconds) of cpu, io and memory, the swap
// counts and the two CPUs' frequencies (kHz) and throttle counts.
func (h *envHost) set(user, system, steal, procTicks int, psi [3][2]uint64, swapIn, swapOut uint64, freqKHz [2]uint64, throttles uint64) {
	h.write(h.proc, "stat", fmt.Sprintf("cpu  %d 0 %d 10000 0 0 0 %d 0 0\nctxt 1\nbtime 1\n", user, system, steal))
	// The fixture's client shell, its utime (field 14) set and its stime (15) 0.
	h.write(h.proc, "4242/stat", fmt.Sprintf("4242 (bash) S 1 4138 4138 0 -1 4194560 13954 1975743 0 1641 %d 0 9973 811 20 0 1 0 "+
		"1087915 5255168 988 18446744073709551615 93849847590912 93849848380317 140735732281680 0 0 0 65536 4 1132560123 1 0 0 "+
		"17 1 0 0 0 0 0 93849848613616 93849848661860 93850465652736 140735732288350 140735732288365 140735732288365 140735732289514 0\n", procTicks))
	for i, res := range []string{"cpu", "io", "memory"} {
		h.write(h.proc, "pressure/"+res, fmt.Sprintf("some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%d\n", psi[i][0], psi[i][1]))
	}
	h.write(h.proc, "vmstat", fmt.Sprintf("nr_free_pages 1\npswpin %d\npswpout %d\npgfault 3\n", swapIn, swapOut))
	for cpu, f := range freqKHz {
		dir := fmt.Sprintf("devices/system/cpu/cpu%d/", cpu)
		h.write(h.sys, dir+"cpufreq/scaling_cur_freq", fmt.Sprintf("%d\n", f))
		h.write(h.sys, dir+"thermal_throttle/core_throttle_count", fmt.Sprintf("%d\n", throttles))
		h.write(h.sys, dir+"thermal_throttle/package_throttle_count", "0\n")
	}
}

// TestEnvUsage reads the environment over a step on an embedded engine (the DBMS is the
// client, process 4242) from counters the test sets: steal, other processes' CPU (the host's
// busy time less the process's), pressure, swap, the frequency's start and lowest reading,
// and the throttle events.
func TestEnvUsage(t *testing.T) {
	h := newEnvHost(t)
	h.set(100, 50, 20, 10, [3][2]uint64{{1e6, 0}, {2e6, 1e6}, {0, 0}}, 5, 7, [2]uint64{3_000_000, 3_000_000}, 4)
	o, err := NewOS(OSOptions{ProcRoot: h.proc, ClientPID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	ctx, start := context.Background(), time.Now()
	o.Begin(ctx, start)
	// A second: the frequency falls to 2 GHz on one CPU, steal and pressure grow.
	h.set(200, 100, 40, 60, [3][2]uint64{{1.5e6, 0}, {2.2e6, 1.1e6}, {0.1e6, 0}}, 5, 9, [2]uint64{3_000_000, 2_000_000}, 4)
	m := o.Sample(ctx, start.Add(time.Second))
	if !approx(m[KeySteal], 0.2, 1e-9) || !approx(m[KeyOtherCPU], 1.5-0.5, 1e-9) || !approx(m[KeyFreqMHz], 2500, 1e-9) {
		t.Errorf("interval: steal %v, other %v, freq %v: want 0.2, 1, 2500", m[KeySteal], m[KeyOtherCPU], m[KeyFreqMHz])
	}
	// The step's end: the frequency is back, 2 more throttle events on each of the two CPUs.
	h.set(300, 150, 50, 110, [3][2]uint64{{2e6, 0}, {3e6, 1.5e6}, {0.3e6, 0.1e6}}, 6, 12, [2]uint64{3_000_000, 3_000_000}, 6)
	res := &result.Step{}
	o.End(ctx, start.Add(2*time.Second), res)
	want := map[string]float64{
		KeySteal: 0.3, KeyOtherCPU: 3 - 1, // busy 300 ticks less the process's 100
		KeyPSICPUSome: 1, KeyPSICPUFull: 0, KeyPSIIOSome: 1, KeyPSIIOFull: 0.5, KeyPSIMemorySome: 0.3, KeyPSIMemoryFull: 0.1,
		KeySwapIn: 1, KeySwapOut: 5, KeyFreqMHz: 3000, KeyFreqStartMHz: 3000, KeyFreqMinMHz: 2500, KeyThrottles: 4,
	}
	for k, v := range want {
		if got, ok := res.Usage[k]; !ok || !approx(got, v, 1e-9) {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
}

// TestEnvAbsent: a host without /proc/pressure, vmstat, cpufreq or thermal_throttle, and a
// DBMS whose processes are not known, has none of their keys, never zeros.
func TestEnvAbsent(t *testing.T) {
	h := newEnvHost(t)
	h.write(h.proc, "stat", "cpu  1 0 1 100 0 0 0 0 0 0\nctxt 1\nbtime 1\n")
	o, err := NewOS(OSOptions{ProcRoot: h.proc, RemoteDB: true, ClientPID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	res := &result.Step{}
	o.End(ctx, time.Now(), res)
	for _, k := range []string{KeyOtherCPU, KeyPSICPUSome, KeyPSIIOFull, KeyPSIMemorySome, KeySwapIn, KeySwapOut,
		KeyFreqMHz, KeyFreqStartMHz, KeyFreqMinMHz, KeyThrottles} {
		if v, ok := res.Usage[k]; ok {
			t.Errorf("%s = %v, want absent", k, v)
		}
	}
	if _, ok := res.Usage[KeySteal]; !ok {
		t.Error("no steal_s, though /proc/stat has the steal column")
	}
}
