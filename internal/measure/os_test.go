package measure

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/testfs"
)

// childEnv makes the test binary a child that writes and fsyncs a file (see TestMain).
const childEnv = "ENGINEBENCH_MEASURE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(writerChild(path))
	}
	os.Exit(m.Run())
}

// writerChild waits for a line on stdin, writes childMB MiB to path with fsync, prints "done",
// and exits when stdin closes: it stays alive so its /proc entry can be read.
func writerChild(path string) int {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return 1
	}
	f, err := os.Create(path)
	if err != nil {
		return 1
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7) // not zeros, so no file system can skip them
	}
	for i := 0; i < childMB; i++ {
		if _, err := f.Write(buf); err != nil {
			return 1
		}
	}
	if err := f.Sync(); err != nil {
		return 1
	}
	f.Close()
	fmt.Println("done")
	io.Copy(io.Discard, in)
	return 0
}

const childMB = 32

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// fixtureOS returns an accountant over the fixture proc-a with the DBMS tree rooted at 4343
// and the client 4242, its device set to the fixture's vda.
func fixtureOS(t *testing.T, dbpid int) *OS {
	t.Helper()
	o, err := NewOS(OSOptions{ProcRoot: "testdata/proc-a", DataDir: t.TempDir(), DBPID: dbpid, ClientPID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	o.device = Device{Name: "vda"}
	return o
}

// switchTo points o at another fixture reading.
func switchTo(t *testing.T, o *OS, root string) {
	t.Helper()
	var err error
	if o.fs, err = procfs.NewFS(root); err != nil {
		t.Fatal(err)
	}
	if o.disks, err = blockdevice.NewFS(root, root); err != nil {
		t.Fatal(err)
	}
}

// The two fixture readings, taken from a real machine, give the usage their files say: host
// busy ticks and ctxt from /proc/stat, the vda line of diskstats, and the DBMS tree's CPU and
// IO, which do not drop when the child of the tree exits between the readings.
func TestFixtureUsage(t *testing.T) {
	o := fixtureOS(t, 4343)
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	switchTo(t, o, "testdata/proc-b")
	res := &result.Step{}
	o.End(ctx, time.Now(), res)
	u := res.Usage
	// /proc/stat: busy (user+nice+system+irq+softirq+steal) 174721 -> 174755 ticks; ctxt +228.
	// diskstats vda: writes 2693321 -> 2693338, sectors 96500600 -> 96517344; reads unchanged.
	// vda's write ticks 2008373 -> 2008381 and weighted ticks 2139580 -> 2139588; read and io
	// ticks unchanged. The cpu line: user +32, system +2, idle +369 ticks.
	// Tree 4343+4344: utime+stime+cutime+cstime 3 -> 35 ticks; write_bytes 0 -> 8388608.
	want := map[string]float64{
		KeyCPU: 0.34, KeyCS: 228, KeyReads: 0, KeyReadKB: 0, KeyWrites: 17, KeyWriteKB: 16744 * 512 / 1024,
		KeyReadMs: 0, KeyWriteMs: 8, KeyIOMs: 0, KeyQueueMs: 8, KeyCPUUsSy: 0.34, KeyCPUAll: 4.03,
		KeyDBCPU: 0.32, KeyClientCPU: 0, KeyDBReadKB: 0, KeyDBWriteKB: 8192,
	}
	for k, v := range want {
		got, ok := u[k]
		if !ok || !approx(got, v, 1e-9) {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	// RSS: 791+3327 pages in proc-a, 791 in proc-b; the peak is proc-a's.
	page := float64(os.Getpagesize())
	if got, want := u[KeyMaxRSSMB], (791+3327)*page/(1<<20); !approx(got, want, 1e-9) {
		t.Errorf("maxrss_mb %v, want %v", got, want)
	}
	if got, want := u[KeyRSSMB], 791*page/(1<<20); !approx(got, want, 1e-9) {
		t.Errorf("db_rss_mb at the end %v, want %v", got, want)
	}
	if res.Size == nil || res.Size.DBGB1 == nil || res.Size.DBGB2 == nil {
		t.Errorf("size %+v", res.Size)
	}
}

// Per-second samples are deltas between consecutive readings and carry the resident memory.
func TestFixtureSample(t *testing.T) {
	o := fixtureOS(t, 4343)
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	switchTo(t, o, "testdata/proc-b")
	m := o.Sample(ctx, time.Now())
	if !approx(m[KeyDBWriteKB], 8192, 1e-9) || !approx(m[KeyCPU], 0.34, 1e-9) {
		t.Errorf("first sample %v", m)
	}
	if got, want := m[KeyRSSMB], 791*float64(os.Getpagesize())/(1<<20); !approx(got, want, 1e-9) {
		t.Errorf("db_rss_mb %v, want %v", got, want)
	}
	m = o.Sample(ctx, time.Now()) // the same reading again: nothing happened
	for _, k := range []string{KeyCPU, KeyCS, KeyWrites, KeyDBWriteKB, KeyDBCPU} {
		if v, ok := m[k]; !ok || v != 0 {
			t.Errorf("second sample %s = %v (present %v), want 0", k, v, ok)
		}
	}
}

// Rebased at the end of a warm-up, a step's totals count from the Sample taken then: what
// happened before (proc-a to proc-b) is left out, and so is the warm-up's peak memory.
func TestFixtureRebase(t *testing.T) {
	o := fixtureOS(t, 4343)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.Begin(ctx, t0)
	switchTo(t, o, "testdata/proc-b")
	o.Sample(ctx, t0.Add(5*time.Second))
	o.Rebase(ctx, t0.Add(5*time.Second))
	res := &result.Step{}
	o.End(ctx, t0.Add(8*time.Second), res)
	u := res.Usage
	for _, k := range []string{KeyCPU, KeyCS, KeyWrites, KeyWriteKB, KeyDBCPU, KeyDBWriteKB} {
		if v, ok := u[k]; !ok || v != 0 {
			t.Errorf("%s = %v (present %v), want 0: nothing happened after the warm-up", k, v, ok)
		}
	}
	page := float64(os.Getpagesize())
	if u[KeySeconds] != 3 || !approx(u[KeyMaxRSSMB], 791*page/(1<<20), 1e-9) {
		t.Errorf("usage over %v s, peak %v MiB; want 3 s and proc-b's memory", u[KeySeconds], u[KeyMaxRSSMB])
	}
}

// An embedded engine: the DBMS is the client process; there is no separate client figure,
// and the notes say the DBMS figures include the harness.
func TestFixtureEmbedded(t *testing.T) {
	o := fixtureOS(t, 0)
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	res := &result.Step{}
	o.End(ctx, time.Now(), res)
	if _, ok := res.Usage[KeyClientCPU]; ok {
		t.Errorf("embedded: client_cpu_s reported: %v", res.Usage)
	}
	if _, ok := res.Usage[KeyClientCPUs]; ok {
		t.Errorf("embedded: client_cpus reported: %v", res.Usage)
	}
	if _, ok := res.Usage[KeyDBCPU]; !ok {
		t.Errorf("embedded: no db_cpu_s: %v", res.Usage)
	}
	if !strings.Contains(strings.Join(o.Notes(), " "), "include the harness") {
		t.Errorf("notes %q", o.Notes())
	}
}

// A DBMS on another host: no process or device figures, never zeros standing in for them.
func TestRemoteDB(t *testing.T) {
	ctx := context.Background()
	// An existing server whose process is unknown, with and without its data directory: the
	// DBMS's processes are never measured; the size only where the directory is known.
	for _, dataDir := range []string{"", t.TempDir()} {
		o, err := NewOS(OSOptions{ProcRoot: "testdata/proc-a", DataDir: dataDir, RemoteDB: true, ClientPID: 4242})
		if err != nil {
			t.Fatal(err)
		}
		o.Begin(ctx, time.Now())
		res := &result.Step{}
		o.End(ctx, time.Now(), res)
		for _, k := range []string{KeyDBCPU, KeyDBWriteKB, KeyMaxRSSMB} {
			if _, ok := res.Usage[k]; ok {
				t.Errorf("remote DBMS, data dir %q: %s reported", dataDir, k)
			}
		}
		if _, ok := res.Usage[KeyClientCPU]; !ok {
			t.Errorf("remote DBMS: no client CPU: %v", res.Usage)
		}
		if got := res.Usage[KeyClientCPUs]; got != float64(runtime.NumCPU()) {
			t.Errorf("client_cpus %v, want the CPUs this process may run on, %d", got, runtime.NumCPU())
		}
		_, size := res.Usage[KeyDBGB1]
		if size != (dataDir != "") {
			t.Errorf("data dir %q: dbgb1 reported %v", dataDir, size)
		}
		if _, ok := res.Usage[KeyWriteKB]; ok && dataDir == "" {
			t.Errorf("no data dir: device writes reported")
		}
		if dataDir == "" && !strings.Contains(strings.Join(o.Notes(), "\n"), "no data directory") {
			t.Errorf("notes %q do not say the data directory is unknown", o.Notes())
		}
	}
}

func TestResolveDevice(t *testing.T) {
	pfs, err := procfs.NewFS("testdata/proc-a")
	if err != nil {
		t.Fatal(err)
	}
	mounts, err := pfs.GetMounts()
	if err != nil {
		t.Fatal(err)
	}
	bfs, err := blockdevice.NewFS("testdata/proc-a", "testdata/proc-a")
	if err != nil {
		t.Fatal(err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path         string
		major, minor uint32
		name, fs     string
		errHas       string
	}{
		{"/work/data", 254, 0, "vda", "ext4", ""},
		{"/", 254, 0, "vda", "ext4", ""},
		{"/dev/shm/data", 0, 23, "", "tmpfs", "tmpfs"},
		{"/sys/fs/cgroup/x", 0, 28, "", "tmpfs", "no block device"},
	} {
		dev, err := resolveDevice(mounts, stats, c.path, c.major, c.minor)
		if dev.Name != c.name || dev.Filesystem != c.fs {
			t.Errorf("%s %d:%d: device %+v, want %s on %s", c.path, c.major, c.minor, dev, c.name, c.fs)
		}
		if c.errHas == "" && err != nil || c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)) {
			t.Errorf("%s %d:%d: error %v, want one containing %q", c.path, c.major, c.minor, err, c.errHas)
		}
	}
	// An anonymous device number (btrfs, overlay) whose mount source is not a block device.
	anon := []*procfs.MountInfo{{MajorMinorVer: "0:99", MountPoint: "/data", FSType: "btrfs", Source: "/dev/enginebench-none"}}
	dev, err := resolveDevice(anon, stats, "/data/x", 0, 99)
	if dev.Name != "" || dev.Filesystem != "btrfs" || err == nil || !strings.Contains(err.Error(), "btrfs") {
		t.Errorf("anonymous device: %+v, %v", dev, err)
	}
}

// A data directory on tmpfs has no device: the device metrics are absent (not zero), the
// notes say why, and the derived per-operation figures leave them out too.
func TestTmpfsNotAvailable(t *testing.T) {
	dir := testfs.Tmpfs(t, "16m")
	o, err := NewOS(OSOptions{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if o.Device().Name != "" || o.Device().Filesystem != "tmpfs" {
		t.Fatalf("device %+v", o.Device())
	}
	if !strings.Contains(strings.Join(o.Notes(), " "), "not available") {
		t.Errorf("notes %q", o.Notes())
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	res := &result.Step{Ops: map[string]*result.Op{"insert": {Units: 1000}}}
	o.End(ctx, time.Now(), res)
	Derive(res, Basis{PerOp: "insert", BytesPerWrite: 100})
	for _, k := range []string{KeyReads, KeyReadKB, KeyWrites, KeyWriteKB, KeyReadMs, KeyWriteMs, KeyIOMs, KeyQueueMs} {
		if _, ok := res.Usage[k]; ok {
			t.Errorf("tmpfs: %s reported", k)
		}
	}
	if r := res.Resources; r == nil || r.Rps != nil || r.RMBps != nil || r.Wps != nil || r.WMBps != nil ||
		r.RAwaitMs != nil || r.WAwaitMs != nil || r.AquSz != nil || r.UtilPct != nil || r.RSSMB == nil {
		t.Errorf("tmpfs: resources %+v: no device figure, the process's memory", r)
	}
	e := res.Efficiency
	if e == nil || e.Wpi != nil || e.WKBpi != nil || e.Rpq != nil || e.CPUpq == nil {
		t.Errorf("efficiency %+v", e)
	}
	if res.Size == nil || res.Size.DBGB1 == nil || *res.Size.DBGB1 <= 0 {
		t.Errorf("size %+v", res.Size)
	}
}

// A child process that writes and fsyncs childMB MiB is charged that many bytes, within 10%,
// as the DBMS's own writes; the data device, when there is one, saw at least that much.
func TestChildWriteAttribution(t *testing.T) {
	dir := t.TempDir()
	child := startWriter(t, dir)
	o, err := NewOS(OSOptions{DataDir: dir, DBPID: child.pid()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	child.write(t)
	res := &result.Step{}
	o.End(ctx, time.Now(), res)
	wantKB := float64(childMB * 1024)
	if got := res.Usage[KeyDBWriteKB]; !approx(got, wantKB, wantKB/10) {
		t.Errorf("child charged %.0f KB written, want %.0f within 10%%", got, wantKB)
	}
	if _, ok := res.Usage[KeyClientCPU]; !ok {
		t.Errorf("no client CPU: %v", res.Usage)
	}
	if got, ok := res.Usage[KeyWriteKB]; o.Device().Name != "" && (!ok || got < 0.9*wantKB) {
		t.Errorf("device %s saw %.0f KB written, want at least %.0f", o.Device().Name, got, 0.9*wantKB)
	}
	if res.Size == nil || *res.Size.DBGB1 < float64(childMB)/1024*0.9 {
		t.Errorf("size %+v, want about %d MiB", res.Size, childMB)
	}
}

// DirSize counts allocated blocks: a sparse file counts what it has written, not its length,
// and only the files the engine calls data count in the first figure.
func TestDirSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, n int) {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sub/a.sst", 1<<20)
	write("wal.log", 256<<10)
	sparse, err := os.Create(filepath.Join(dir, "sparse.sst"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	data, all, err := DirSize(dir, func(rel string) bool { return strings.HasSuffix(rel, ".sst") })
	if err != nil {
		t.Fatal(err)
	}
	if data < 1<<20 || data > 2<<20 {
		t.Errorf("data %d bytes, want about 1 MiB (the sparse file allocates nothing)", data)
	}
	if all-data < 256<<10 || all-data > 512<<10 {
		t.Errorf("all %d data %d: the WAL's 256 KiB are missing", all, data)
	}
	d2, a2, err := DirSize(dir, nil)
	if err != nil || d2 != a2 || a2 != all {
		t.Errorf("without a classifier: %d %d %v, want both %d", d2, a2, err, all)
	}
	if _, _, err := DirSize(filepath.Join(dir, "missing"), nil); err == nil {
		t.Error("a missing directory is not an error")
	}
}

// BenchmarkOSSample is the cost of one per-second sample of an embedded engine's step: /proc
// reads and the walk of a data directory of 100 files.
func BenchmarkOSSample(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 100; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d.sst", i)), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o, err := NewOS(OSOptions{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	b.ReportAllocs()
	for b.Loop() {
		o.Sample(ctx, time.Now())
	}
}

// dbgb1 is the engine's DatabaseBytes where it gives one, the data files otherwise; dbgb2 is
// the data directory, and is not measured without one.
func TestDatabaseBytes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	files, all, err := DirSize(dir, nil)
	if err != nil || files == 0 {
		t.Fatalf("DirSize = %d, %v", files, err)
	}
	const engineBytes = 5 << 30
	failing := func(context.Context) (int64, error) { return 0, fmt.Errorf("no size") }
	fixed := func(ctx context.Context) (int64, error) {
		if _, ok := ctx.Deadline(); !ok {
			return 0, fmt.Errorf("DatabaseBytes called without a deadline")
		}
		return engineBytes, nil
	}
	tests := []struct {
		name       string
		dataDir    string
		size       func(context.Context) (int64, error)
		gb1, gb2   float64 // -1: not measured
		wantNoteOn string
		stepNote   string // in the step's notes; "": none
	}{
		{"engine and data directory", dir, fixed, 5, float64(all) / (1 << 30), "", ""},
		{"engine without data directory", "", fixed, 5, -1, "dbgb1 is the engine's own account", ""},
		{"engine fails: the data files", dir, failing, float64(files) / (1 << 30), float64(all) / (1 << 30), "",
			"dbgb1 is the data directory's files: the engine did not tell the database's size: no size"},
		{"engine fails, no data directory", "", failing, -1, -1, "(dbgb2) are not measured",
			"dbgb1 is not measured (-): the engine did not tell the database's size: no size"},
		{"no engine size, no data directory", "", nil, -1, -1, "(dbgb1, dbgb2) are not measured", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := NewOS(OSOptions{ProcRoot: "testdata/proc-a", DataDir: tt.dataDir, DBPID: 4343, ClientPID: 4242, DatabaseBytes: tt.size})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantNoteOn != "" && !strings.Contains(strings.Join(o.Notes(), "\n"), tt.wantNoteOn) {
				t.Errorf("notes %q lack %q", o.Notes(), tt.wantNoteOn)
			}
			ctx := context.Background()
			o.Begin(ctx, time.Now())
			m := o.Sample(ctx, time.Now())
			res := &result.Step{}
			o.End(ctx, time.Now(), res)
			check := func(what string, got *float64, inSample float64, ok bool, want float64) {
				t.Helper()
				if want < 0 {
					if got != nil || ok {
						t.Errorf("%s measured (%v, sample %v), want not measured", what, got, inSample)
					}
					return
				}
				if got == nil || !approx(*got, want, 1e-9) || !ok || !approx(inSample, want, 1e-9) {
					t.Errorf("%s = %v (sample %v), want %v", what, got, inSample, want)
				}
			}
			var gb1, gb2 *float64
			if res.Size != nil {
				gb1, gb2 = res.Size.DBGB1, res.Size.DBGB2
			}
			s1, ok1 := m[KeyDBGB1]
			s2, ok2 := m[KeyDBGB2]
			check("dbgb1", gb1, s1, ok1, tt.gb1)
			check("dbgb2", gb2, s2, ok2, tt.gb2)
			// The step's notes say why the engine's size is missing, and what dbgb1 is then.
			notes := strings.Join(res.Notes, "\n")
			if tt.stepNote == "" && notes != "" || !strings.Contains(notes, tt.stepNote) {
				t.Errorf("step notes %q, want %q in them", res.Notes, tt.stepNote)
			}
		})
	}
}

// TestEndAfterAStall bounds the engine's size query at a step's end: a stalled step's (End's
// context done with a cause that is no interrupt) gets the short bound of a sample, and a
// server that does not answer leaves dbgb1 to the data files; an interrupted or ordinary step
// gets the long bound.
func TestEndAfterAStall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	files, _, err := DirSize(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stalled, stall := context.WithCancelCause(context.Background())
	stall(errors.New("innodb stalled: nothing completed for 2s"))
	interrupted, interrupt := context.WithCancel(context.Background())
	interrupt()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		short bool
	}{{"stalled", stalled, true}, {"interrupted", interrupted, false}, {"ordinary", context.Background(), false}} {
		t.Run(c.name, func(t *testing.T) {
			var bound time.Duration
			frozen := func(ctx context.Context) (int64, error) {
				dl, ok := ctx.Deadline()
				if !ok {
					return 0, errors.New("no deadline")
				}
				bound = time.Until(dl)
				if !c.short {
					return 1 << 30, nil // an answering engine: the long bound is not waited out
				}
				<-ctx.Done() // a frozen server answers nothing
				return 0, ctx.Err()
			}
			o, err := NewOS(OSOptions{ProcRoot: "testdata/proc-a", DataDir: dir, DBPID: 4343, ClientPID: 4242, DatabaseBytes: frozen})
			if err != nil {
				t.Fatal(err)
			}
			o.Begin(context.Background(), time.Now())
			res := &result.Step{}
			o.End(c.ctx, time.Now(), res)
			if short := bound <= sizeSampleTimeout; short != c.short || bound <= 0 {
				t.Errorf("DatabaseBytes bounded to %v, want the bound of %v", bound, map[bool]time.Duration{true: sizeSampleTimeout, false: sizeEndTimeout}[c.short])
			}
			want := 1.0
			if c.short {
				want = float64(files) / (1 << 30)
			}
			if res.Size == nil || res.Size.DBGB1 == nil {
				t.Fatalf("dbgb1 not measured, want %v", want)
			}
			if got := *res.Size.DBGB1; !approx(got, want, 1e-9) {
				t.Errorf("dbgb1 %v, want %v", got, want)
			}
		})
	}
}

// The writes of a process under one of MoreDBPIDs are the DBMS's as well as DBPID's tree's
// (FerretDB's own process, and the postgres server it stores in).
func TestMoreDBPIDsCharged(t *testing.T) {
	dir := t.TempDir()
	root := exec.Command("sleep", "1000")
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { root.Process.Kill(); root.Wait() }()
	child := startWriter(t, dir)
	o, err := NewOS(OSOptions{DataDir: dir, DBPID: root.Process.Pid, MoreDBPIDs: []int{child.pid()}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o.Begin(ctx, time.Now())
	child.write(t)
	res := &result.Step{}
	o.End(ctx, time.Now(), res)
	wantKB := float64(childMB * 1024)
	if got := res.Usage[KeyDBWriteKB]; !approx(got, wantKB, wantKB/10) {
		t.Errorf("second tree charged %.0f KB written, want %.0f within 10%%", got, wantKB)
	}
}

// writer is a child process that writes and fsyncs childMB MiB under dir/data when told to.
type writer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

// startWriter starts a writer child, stopped at the end of the test.
func startWriter(t *testing.T, dir string) *writer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+filepath.Join(dir, "data"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return &writer{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout)}
}

func (w *writer) pid() int { return w.cmd.Process.Pid }

// write has the child write, and returns when it has.
func (w *writer) write(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := w.stdout.ReadString('\n'); err != nil || line != "done\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
}
