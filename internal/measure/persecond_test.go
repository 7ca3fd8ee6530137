package measure

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/enginebench/enginebench/internal/result"
)

// diskLine is one line of /proc/diskstats (kernel 5.5+: 17 fields after the name).
type diskLine struct {
	major, minor                                int
	name                                        string
	reads, rsect, rticks, writes, wsect, wticks uint64
	ioTicks, queueTicks                         uint64
}

func (d diskLine) String() string {
	// Merges, in-flight, discards and flushes do not enter the metrics: fixed values.
	return fmt.Sprintf("%4d %7d %s %d 11 %d %d %d 22 %d %d 0 %d %d 5 0 40 3 9 7\n",
		d.major, d.minor, d.name, d.reads, d.rsect, d.rticks, d.writes, d.wsect, d.wticks, d.ioTicks, d.queueTicks)
}

// cpuTicks are the USER_HZ ticks of the cpu line of /proc/stat.
type cpuTicks struct{ user, nice, system, idle, iowait, irq, softirq, steal uint64 }

// procRoot writes a /proc with a stat file (cpu ticks, ctxt) and diskstats, and returns it.
func procRoot(t *testing.T, cpu cpuTicks, ctxt uint64, disks ...diskLine) string {
	t.Helper()
	dir := t.TempDir()
	stat := fmt.Sprintf("cpu  %d %d %d %d %d %d %d %d 0 0\nintr 0\nctxt %d\nbtime 1700000000\n"+
		"processes 10\nprocs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n",
		cpu.user, cpu.nice, cpu.system, cpu.idle, cpu.iowait, cpu.irq, cpu.softirq, cpu.steal, ctxt)
	var ds strings.Builder
	for _, d := range disks {
		ds.WriteString(d.String())
	}
	for name, text := range map[string]string{"stat": stat, "diskstats": ds.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Two readings 2 s apart of a host with 2 CPUs whose data directory is on the partition sdb1,
// built from what happened in between; the rates are what iostat and vmstat would show.
func TestPerSecondFromDiskstats(t *testing.T) {
	cpu0 := cpuTicks{user: 5000, nice: 100, system: 900, idle: 90000, iowait: 300, irq: 50, softirq: 70, steal: 10}
	part0 := diskLine{8, 17, "sdb1", 1000, 64000, 2500, 4000, 512000, 70000, 60000, 90000}
	disk0 := part0
	disk0.minor, disk0.name = 16, "sdb"
	other := diskLine{8, 18, "sdb2", 0, 0, 0, 0, 0, 0, 0, 0}

	// In 2 s: 100 reads of 8 KiB, 3 ms each, one after the other; then 50 writes of 64 KiB,
	// 10 ms each, four at a time (so 125 ms of the device's time, 500 ms of the requests').
	// 2 CPUs x 2 s = 400 ticks: user 60, nice 20, system 40, irq 10, softirq 10, steal 20,
	// iowait 40, idle 200. 3000 context switches.
	cpu1 := cpu0
	cpu1.user += 60
	cpu1.nice += 20
	cpu1.system += 40
	cpu1.irq += 10
	cpu1.softirq += 10
	cpu1.steal += 20
	cpu1.iowait += 40
	cpu1.idle += 200
	part1 := part0
	part1.reads += 100
	part1.rsect += 100 * 8 * 1024 / 512
	part1.rticks += 100 * 3
	part1.writes += 50
	part1.wsect += 50 * 64 * 1024 / 512
	part1.wticks += 50 * 10
	part1.ioTicks += 100*3 + 50*10/4
	part1.queueTicks += 100*3 + 50*10
	// The whole disk also saw sdb2's traffic, which is not the data directory's.
	disk1 := part1
	disk1.minor, disk1.name = 16, "sdb"
	disk1.reads += 7000
	disk1.writes += 9000
	disk1.ioTicks += 400
	other1 := other
	other1.reads, other1.writes = 7000, 9000

	a := procRoot(t, cpu0, 1_000_000, disk0, part0, other)
	b := procRoot(t, cpu1, 1_003_000, disk1, part1, other1)
	o, err := NewOS(OSOptions{ProcRoot: a, DataDir: t.TempDir(), ClientPID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	// The data directory is on 8:17: the partition's own line, not the whole disk's.
	bfs, err := blockdevice.NewFS(a, a)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		t.Fatal(err)
	}
	mounts := []*procfs.MountInfo{{MajorMinorVer: "8:17", MountPoint: "/data", FSType: "ext4", Source: "/dev/sdb1"}}
	dev, err := resolveDevice(mounts, stats, "/data/engine", 8, 17)
	if err != nil || dev.Name != "sdb1" {
		t.Fatalf("the data directory on 8:17 resolves to %+v, %v; want sdb1", dev, err)
	}
	o.device = dev

	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o.Begin(ctx, t0)
	switchTo(t, o, b)
	sample := o.Sample(ctx, t0.Add(2*time.Second))
	st := &result.Step{Intervals: result.NewSeries(result.Interval{Second: 1, Metrics: sample})}
	o.End(ctx, t0.Add(2*time.Second), st)
	Derive(st, Basis{})

	want := map[string]float64{
		KeyRps:    50,                   // 100 reads in 2 s
		KeyRMBps:  100 * 8.0 / 1024 / 2, // 800 KiB in 2 s
		KeyWps:    25,
		KeyWMBps:  50 * 64.0 / 1024 / 2,
		KeyRAwait: 3, KeyWAwait: 10,
		KeyUtilPct: (300 + 125) / 2000.0 * 100, // busy 425 ms of 2000
		KeyAquSz:   (300 + 500) / 2000.0,       // 800 request-ms in 2000 ms
		KeyCPUps:   (60 + 20 + 40 + 10 + 10) / 400.0 * 100,
		KeyCSps:    1500,
	}
	r := st.Resources
	if r == nil {
		t.Fatal("no resources")
	}
	got := map[string]*float64{KeyRps: r.Rps, KeyRMBps: r.RMBps, KeyWps: r.Wps, KeyWMBps: r.WMBps,
		KeyRAwait: r.RAwaitMs, KeyWAwait: r.WAwaitMs, KeyUtilPct: r.UtilPct, KeyAquSz: r.AquSz,
		KeyCPUps: r.CPUps, KeyCSps: r.CSps}
	for k, w := range want {
		if g := got[k]; g == nil || !approx(*g, w, 1e-9) {
			t.Errorf("step %s = %v, want %v", k, deref(g), w)
		}
		if g, ok := st.Intervals.Metric(0, k); !ok || !approx(g, w, 1e-9) {
			t.Errorf("interval %s = %v (present %v), want %v", k, g, ok, w)
		}
	}
	if r.RSSMB != nil {
		t.Errorf("rss %v without a readable DBMS process", *r.RSSMB)
	}

	// Another second with nothing done: zero rates are measured zeros, but a wait per read
	// with no read is not measured.
	idle := o.Sample(ctx, t0.Add(3*time.Second))
	iv := map[string]float64{}
	for k, v := range PerSecond(idle) {
		iv[k] = v
	}
	for _, k := range []string{KeyRps, KeyWps, KeyUtilPct, KeyAquSz, KeyCSps} {
		if v, ok := iv[k]; !ok || v != 0 {
			t.Errorf("idle second: %s = %v (present %v), want 0", k, v, ok)
		}
	}
	for _, k := range []string{KeyRAwait, KeyWAwait, KeyCPUps} {
		if v, ok := iv[k]; ok {
			t.Errorf("idle second: %s = %v, want it absent (nothing to divide by)", k, v)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A device that cannot be seen leaves every device figure out; the host's remain.
func TestPerSecondWithoutDevice(t *testing.T) {
	u := map[string]float64{KeySeconds: 4, KeyCS: 400, KeyCPUUsSy: 2, KeyCPUAll: 8}
	m := PerSecond(u)
	if m[KeyCSps] != 100 || m[KeyCPUps] != 25 {
		t.Errorf("host rates %v", m)
	}
	for _, k := range []string{KeyRps, KeyRMBps, KeyWps, KeyWMBps, KeyRAwait, KeyWAwait, KeyAquSz, KeyUtilPct} {
		if _, ok := m[k]; ok {
			t.Errorf("%s reported without a device", k)
		}
	}
	delete(u, KeySeconds)
	if m := PerSecond(u); len(m) != 1 || m[KeyCPUps] != 25 {
		t.Errorf("without the time only the CPU share can be known: %v", m)
	}
}

// shellPercentile is the Insert Benchmark's own computation, step by step: the rank is
// (p/100)*n printed with %.0f, and the value the rank-th line of the rates sorted from the
// highest (sort -rn | head -rank | tail -1).
func shellPercentile(rates []float64, p int) float64 {
	lines := make([]string, len(rates))
	for i, r := range rates {
		lines[i] = strconv.FormatFloat(r, 'f', -1, 64)
	}
	slices.SortFunc(lines, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return int(y*1e6) - int(x*1e6)
	})
	rank, _ := strconv.Atoi(fmt.Sprintf("%.0f", float64(p*len(rates))/100))
	head := lines[:rank]
	v, _ := strconv.ParseFloat(head[len(head)-1], 64)
	return v
}

func TestRatePercentile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{10, 13, 15, 50, 101, 1000} {
		rates := make([]float64, n)
		for i := range rates {
			rates[i] = float64(rng.IntN(100000)) / 10
		}
		before := slices.Clone(rates)
		for _, p := range []int{50, 99} {
			got, ok := RatePercentile(rates, float64(p))
			if want := shellPercentile(rates, p); !ok || got != want {
				t.Errorf("n %d p%d = %v (ok %v), the reference's computation gives %v", n, p, got, ok, want)
			}
			// At least p% of the intervals reached it.
			reached := 0
			for _, r := range rates {
				if r >= got {
					reached++
				}
			}
			if float64(reached) < float64(p)/100*float64(n)-0.5 {
				t.Errorf("n %d p%d = %v: only %d intervals reached it", n, p, got, reached)
			}
		}
		if !slices.Equal(rates, before) {
			t.Errorf("n %d: the rates were reordered", n)
		}
	}
	// Halves round to even, as the shell's printf: 6.5 -> rank 6, 7.5 -> rank 8.
	for n, rank := range map[int]int{13: 6, 15: 8} {
		rates := make([]float64, n)
		for i := range rates {
			rates[i] = float64(n - i) // rank k holds n-k+1
		}
		if got, _ := RatePercentile(rates, 50); got != float64(n-rank+1) {
			t.Errorf("n %d: p50 %v, want rank %d (%d)", n, got, rank, n-rank+1)
		}
	}
	if _, ok := RatePercentile(make([]float64, MinRateIntervals-1), 50); ok {
		t.Errorf("%d intervals have a percentile", MinRateIntervals-1)
	}
}
