package measure

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/enginebench/enginebench/internal/result"
)

// sectorBytes is the unit of the sector counts in /proc/diskstats, whatever the device's own
// sector size.
const sectorBytes = 512

// OSOptions configures an OS accountant.
type OSOptions struct {
	// ProcRoot is where procfs is mounted; empty means /proc. Tests point it at fixtures.
	ProcRoot string
	// DataDir is the engine's data directory: its device is the one whose IO is counted, and
	// its allocated blocks are the database size.
	DataDir string
	// DBPID is the root of the DBMS's process tree; 0 means the DBMS runs inside the client
	// process (an embedded engine), whose figures then include the harness's.
	DBPID int
	// MoreDBPIDs are the roots of the DBMS's other process trees, measured as DBPID's (a
	// FerretDB server's postgres server); only with DBPID.
	MoreDBPIDs []int
	// RemoteDB says that the DBMS's processes are not known (another host, or an existing
	// server whose PID was not given): they are not measured. The data device and size still
	// are when DataDir is set.
	RemoteDB bool
	// ClientPID is the enginebench process; 0 means this process.
	ClientPID int
	// IsDataFile reports whether a file (path relative to DataDir) is one of the engine's
	// table or index files, counted in dbgb1; nil counts every file.
	IsDataFile func(rel string) bool
	// DatabaseBytes, when set, is the size of the benchmark database's own files as the engine
	// tells it (engine.DatabaseSizer): dbgb1 is then its value, also without DataDir, and
	// IsDataFile is used only when it fails. An error leaves dbgb1 unmeasured.
	DatabaseBytes func(ctx context.Context) (int64, error)
}

// Bounds of one DatabaseBytes call: each second, so that a slow answer does not hold up the
// intervals, and at a step's end.
const (
	sizeSampleTimeout = 500 * time.Millisecond
	sizeEndTimeout    = 30 * time.Second
)

// OS accounts a step's resource use from /proc and the data directory: host CPU and context
// switches (/proc/stat), the data device's IO (/proc/diskstats), CPU, IO and memory of the
// client and DBMS processes (/proc/PID/stat, /proc/PID/io), the size of the data directory,
// and the step's environment (env.go: steal, other processes' CPU, pressure stall
// information, swap, the CPUs' frequency and throttling). It implements runner.Sampler. What it cannot measure it leaves out and explains
// in Notes.
type OS struct {
	opt    OSOptions
	fs     procfs.FS
	disks  blockdevice.FS
	device Device
	notes  []string
	proc   string   // the proc mount point
	env    envFiles // the environment's files in /sys

	begin, prev reading
	// beginAt and prevAt are the runner's times of begin and prev.
	beginAt, prevAt time.Time
	maxRSS          float64 // bytes, peak over the current step
	rssOK           bool
	// freqStart and freqMin are the CPUs' mean frequency at the step's start and its lowest
	// reading since, in MHz; freqOK says the start was read.
	freqStart, freqMin float64
	freqOK             bool
}

// Device is the block device that holds a data directory.
type Device struct {
	// Name is the device's name in /proc/diskstats ("sda1", "nvme0n1", "dm-0"); empty when
	// there is none (tmpfs, overlay over tmpfs, network file systems).
	Name string
	// Filesystem is the type of the file system the data directory is on ("ext4", "tmpfs").
	Filesystem string
	// MountPoint is where that file system is mounted.
	MountPoint string
	// MountOptions are the mount's options and its file system's (mountinfo's fields 6 and
	// 11), sorted, each "name" or "name=value"; nil when the mount was not found.
	MountOptions []string
}

// NewOS returns an accountant for opt. It fails only when /proc cannot be read at all; a data
// directory without a block device only loses the device metrics (see Notes).
func NewOS(opt OSOptions) (*OS, error) {
	root, sys := opt.ProcRoot, "/sys"
	if root == "" {
		root = procfs.DefaultMountPoint
	} else {
		sys = filepath.Join(filepath.Dir(root), "sys") // a fixture's sys beside its proc
	}
	pfs, err := procfs.NewFS(root)
	if err != nil {
		return nil, fmt.Errorf("os accounting: %w", err)
	}
	bfs, err := blockdevice.NewFS(root, filepath.Join(filepath.Dir(root), "sys"))
	if err != nil {
		// The sys mount point is not used; only /proc/diskstats is read.
		bfs, err = blockdevice.NewFS(root, root)
		if err != nil {
			return nil, fmt.Errorf("os accounting: %w", err)
		}
	}
	if opt.ClientPID == 0 {
		opt.ClientPID = os.Getpid()
	}
	o := &OS{opt: opt, fs: pfs, disks: bfs, proc: root, env: findEnvFiles(sys)}
	if _, err := pfs.Stat(); err != nil {
		return nil, fmt.Errorf("os accounting: %w", err)
	}
	switch {
	case opt.DataDir == "" && opt.DatabaseBytes != nil:
		o.notes = append(o.notes, "no data directory is known (--data-dir): the data device's IO "+
			"(rps, rmbps, wps, wmbps, rpq, rkbpq, wpi, wkbpi, r_await, w_await, aqu-sz, %util) and the data "+
			"directory's size (dbgb2) are not measured; dbgb1 is the engine's own account")
	case opt.DataDir == "":
		o.notes = append(o.notes, "no data directory is known (--data-dir): the data device's IO "+
			"(rps, rmbps, wps, wmbps, rpq, rkbpq, wpi, wkbpi, r_await, w_await, aqu-sz, %util) and the "+
			"database size (dbgb1, dbgb2) are not measured")
	default:
		if o.device, err = FindDevice(pfs, bfs, opt.DataDir); err != nil {
			o.notes = append(o.notes, "storage IO of the data device (rps, rmbps, wps, wmbps, rpq, rkbpq, wpi, wkbpi, "+
				"r_await, w_await, aqu-sz, %util) is not available: "+err.Error())
		}
	}
	switch {
	case opt.RemoteDB:
		o.notes = append(o.notes, "the DBMS's process is not known (not on this host, or no --db-pid): "+
			"its CPU, IO and memory (db_cpupq, prkbpq, pwkbpi, rss, maxrss) are not measured")
	case opt.DBPID == 0:
		o.notes = append(o.notes, "embedded engine: the DBMS is the enginebench process, so db_cpupq, "+
			"prkbpq, pwkbpi, rss and maxrss include the harness (the null engine shows the harness's share)")
	}
	return o, nil
}

// Notes explains the metrics that are not available, and how embedded figures are to be read.
func (o *OS) Notes() []string { return o.notes }

// Device returns the data directory's device; its Name is empty when there is none.
func (o *OS) Device() Device { return o.device }

// DeviceOf finds the device of dir through /proc (see FindDevice).
func DeviceOf(dir string) (Device, error) {
	pfs, err := procfs.NewDefaultFS()
	if err != nil {
		return Device{}, err
	}
	bfs, err := blockdevice.NewFS(procfs.DefaultMountPoint, procfs.DefaultMountPoint)
	if err != nil {
		return Device{}, err
	}
	return FindDevice(pfs, bfs, dir)
}

// FindDevice finds the block device in /proc/diskstats that holds dir: the device whose
// number is dir's, else the source device of the file system dir is on (btrfs, for one,
// reports an anonymous device number). It returns an error saying why when there is none.
func FindDevice(pfs procfs.FS, bfs blockdevice.FS, dir string) (Device, error) {
	var dev Device
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dev, fmt.Errorf("data directory %s: %w", dir, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		return dev, fmt.Errorf("data directory %s: %w", dir, err)
	}
	mounts, err := pfs.GetMounts()
	if err != nil {
		return dev, fmt.Errorf("reading mountinfo: %w", err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return dev, fmt.Errorf("reading diskstats: %w", err)
	}
	return resolveDevice(mounts, stats, abs, devMajor(st.Dev), devMinor(st.Dev))
}

// resolveDevice finds the device of path, whose file system has the device number
// major:minor, among the mounts and the diskstats devices.
func resolveDevice(mounts []*procfs.MountInfo, stats []blockdevice.Diskstats, path string, major, minor uint32) (Device, error) {
	var dev Device
	m := mountOf(mounts, path, major, minor)
	if m != nil {
		dev.Filesystem, dev.MountPoint = m.FSType, m.MountPoint
		dev.MountOptions = mountOptions(m)
	}
	if name := diskByNumber(stats, major, minor); name != "" {
		dev.Name = name
		return dev, nil
	}
	if m != nil && strings.HasPrefix(m.Source, "/dev/") {
		var sst syscall.Stat_t
		if err := syscall.Stat(m.Source, &sst); err == nil && sst.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			if name := diskByNumber(stats, devMajor(sst.Rdev), devMinor(sst.Rdev)); name != "" {
				dev.Name = name
				return dev, nil
			}
		}
	}
	fsType := dev.Filesystem
	if fsType == "" {
		fsType = "an unknown file system"
	}
	return dev, fmt.Errorf("%s is on %s (device %d:%d), which has no block device in /proc/diskstats",
		path, fsType, major, minor)
}

// mountOf returns the mount that holds path: the longest mount point that is a prefix of path,
// preferring mounts whose device number is major:minor.
func mountOf(mounts []*procfs.MountInfo, path string, major, minor uint32) *procfs.MountInfo {
	num := fmt.Sprintf("%d:%d", major, minor)
	var best *procfs.MountInfo
	for _, m := range mounts {
		if !within(path, m.MountPoint) {
			continue
		}
		better := best == nil ||
			(m.MajorMinorVer == num) && best.MajorMinorVer != num ||
			(m.MajorMinorVer == num) == (best.MajorMinorVer == num) && len(m.MountPoint) >= len(best.MountPoint)
		if better {
			best = m
		}
	}
	return best
}

// mountOptions returns the distinct options of m and of its super block, sorted, each "name"
// or "name=value".
func mountOptions(m *procfs.MountInfo) []string {
	var out []string
	for _, opts := range []map[string]string{m.Options, m.SuperOptions} {
		for k, v := range opts {
			o := k
			if v != "" {
				o += "=" + v
			}
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	slices.Sort(out)
	return out
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func diskByNumber(stats []blockdevice.Diskstats, major, minor uint32) string {
	for _, d := range stats {
		if d.MajorNumber == major && d.MinorNumber == minor {
			return d.DeviceName
		}
	}
	return ""
}

// devMajor and devMinor split a Linux device number (glibc's encoding).
func devMajor(dev uint64) uint32 { return uint32((dev>>8)&0xfff | (dev>>32)&^0xfff) }
func devMinor(dev uint64) uint32 { return uint32(dev&0xff | (dev>>12)&^0xff) }

// reading is one reading of every counter; the ok flags say which could be read.
type reading struct {
	hostCPU   float64 // seconds
	hostUsSy  float64 // user, nice, system, irq, softirq: vmstat's us+sy
	hostAll   float64 // every state, idle and iowait included
	steal     float64
	cs        uint64
	hostOK    bool
	clientCPU float64
	clientOK  bool
	dbCPU     float64
	dbRead    uint64 // bytes
	dbWrite   uint64
	dbRSS     float64 // bytes
	dbOK      bool
	dbIOOK    bool
	disk      blockdevice.IOStats
	diskOK    bool
	env       envReading
}

// read takes a reading. Errors leave the affected ok flag false.
func (o *OS) read() reading {
	var r reading
	if st, err := o.fs.Stat(); err == nil {
		c := st.CPUTotal
		r.hostCPU = c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
		r.hostUsSy = c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
		r.hostAll = r.hostUsSy + c.Idle + c.Iowait + c.Steal
		r.steal = c.Steal
		r.cs = st.ContextSwitches
		r.hostOK = true
	}
	if o.opt.DBPID != 0 || o.opt.RemoteDB {
		r.clientCPU, r.clientOK = o.processCPU(o.opt.ClientPID)
	}
	o.readDB(&r)
	if o.device.Name != "" {
		if stats, err := o.disks.ProcDiskstats(); err == nil {
			for _, d := range stats {
				if d.DeviceName == o.device.Name {
					r.disk, r.diskOK = d.IOStats, true
					break
				}
			}
		}
	}
	r.env = o.readEnv()
	return r
}

// processCPU returns the CPU seconds (user and system) of the process pid, all its threads
// included. For this process it asks getrusage, whose times are precise to the microsecond,
// where /proc/PID/stat counts 10 ms ticks: a step of a few milliseconds would read as zero.
func (o *OS) processCPU(pid int) (float64, bool) {
	if pid == os.Getpid() && o.opt.ProcRoot == "" {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
			return tvSeconds(ru.Utime) + tvSeconds(ru.Stime), true
		}
	}
	p, err := o.fs.Proc(pid)
	if err != nil {
		return 0, false
	}
	st, err := p.Stat()
	if err != nil {
		return 0, false
	}
	return st.CPUTime(), true
}

func tvSeconds(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }

// withChildrenCPU returns the CPU seconds of st's process and of its waited-for children
// (CUTime, CSTime), converted from clock ticks by procfs as it converts the process's own.
func withChildrenCPU(st procfs.ProcStat) float64 {
	children := procfs.ProcStat{UTime: uint(st.CUTime), STime: uint(st.CSTime)}
	return st.CPUTime() + children.CPUTime()
}

// readDB reads the DBMS's processes: the client process for an embedded engine, else the
// process tree under DBPID. A tree's CPU and IO include those of exited children (the
// c-times and the IO the kernel adds to a parent when it reaps a child), so the total does not
// drop when a server's connection process ends.
func (o *OS) readDB(r *reading) {
	if o.opt.RemoteDB {
		return
	}
	pids := []int{o.opt.ClientPID}
	withChildren := false
	if o.opt.DBPID != 0 {
		pids, withChildren = o.tree(append([]int{o.opt.DBPID}, o.opt.MoreDBPIDs...)), true
	}
	for i, pid := range pids {
		p, err := o.fs.Proc(pid)
		if err != nil {
			continue
		}
		st, err := p.Stat()
		if err != nil {
			if i == 0 {
				return // the root is gone
			}
			continue
		}
		if withChildren {
			r.dbCPU += withChildrenCPU(st)
		} else if cpu, ok := o.processCPU(pid); ok {
			r.dbCPU += cpu
		}
		r.dbRSS += float64(st.ResidentMemory())
		r.dbOK = true
		if io, err := p.IO(); err == nil {
			r.dbRead += io.ReadBytes
			r.dbWrite += io.WriteBytes
			r.dbIOOK = true
		}
	}
}

// tree returns roots and their descendants, the first root first.
func (o *OS) tree(roots []int) []int {
	procs, err := o.fs.AllProcs()
	if err != nil {
		return roots
	}
	children := map[int][]int{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue
		}
		children[st.PPID] = append(children[st.PPID], p.PID)
	}
	out := slices.Clone(roots)
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// Begin implements runner.Sampler: it takes the baseline of the step.
func (o *OS) Begin(ctx context.Context, now time.Time) {
	o.begin = o.read()
	o.prev = o.begin
	o.beginAt, o.prevAt = now, now
	o.maxRSS, o.rssOK = o.begin.dbRSS, o.begin.dbOK
	o.freqStart, o.freqMin, o.freqOK = o.begin.env.freqMHz, o.begin.env.freqMHz, o.begin.env.freqOK
}

// Rebase implements runner.Rebaser: the step's totals count from the reading of the Sample
// just taken at now (the end of the step's warm-up), and its peak resident memory from then.
func (o *OS) Rebase(ctx context.Context, now time.Time) {
	o.begin, o.beginAt = o.prev, now
	o.maxRSS, o.rssOK = o.prev.dbRSS, o.prev.dbOK
}

// Sample implements runner.Sampler: the usage of the interval since the previous call, the
// DBMS's resident memory and the data directory's size now.
func (o *OS) Sample(ctx context.Context, now time.Time) map[string]float64 {
	cur := o.read()
	m := o.usage(o.prev, cur)
	m[KeySeconds] = max(now.Sub(o.prevAt).Seconds(), 0)
	o.prev, o.prevAt = cur, now
	if cur.dbOK {
		m[KeyRSSMB] = cur.dbRSS / (1 << 20)
		if cur.dbRSS > o.maxRSS {
			o.maxRSS = cur.dbRSS
		}
		o.rssOK = true
	}
	o.addSize(ctx, m, sizeSampleTimeout)
	return m
}

// End implements runner.Sampler: the step's totals go to res.Usage and its size to res.Size.
// They cover the time from Begin's now to End's, which the runner takes from its clock. The
// engine's own account of the size (DatabaseBytes) is waited for up to sizeEndTimeout, after
// a stall only up to sizeSampleTimeout (endSizeTimeout); without it dbgb1 comes from the data
// directory's files.
func (o *OS) End(ctx context.Context, now time.Time, res *result.Step) {
	cur := o.read()
	m := o.usage(o.begin, cur)
	m[KeySeconds] = max(now.Sub(o.beginAt).Seconds(), 0)
	if o.freqOK {
		m[KeyFreqStartMHz] = o.freqStart
		m[KeyFreqMinMHz] = o.freqMin
	}
	if _, ok := m[KeyClientCPU]; ok {
		m[KeyClientCPUs] = float64(runtime.NumCPU()) // its affinity, as the process started
	}
	if cur.dbOK {
		m[KeyRSSMB] = cur.dbRSS / (1 << 20)
		o.maxRSS = max(o.maxRSS, cur.dbRSS)
		o.rssOK = true
	}
	if o.rssOK {
		m[KeyMaxRSSMB] = o.maxRSS / (1 << 20)
	}
	if err := o.addSize(context.WithoutCancel(ctx), m, endSizeTimeout(ctx)); err != nil {
		res.Notes = append(res.Notes, o.sizeNote(err, m))
	}
	if res.Usage == nil {
		res.Usage = map[string]float64{}
	}
	for k, v := range m {
		res.Usage[k] = v
	}
	gb1, ok1 := m[KeyDBGB1]
	gb2, ok2 := m[KeyDBGB2]
	if ok1 || ok2 {
		if res.Size == nil {
			res.Size = &result.Size{}
		}
		if ok1 {
			res.Size.DBGB1 = &gb1
		}
		if ok2 {
			res.Size.DBGB2 = &gb2
		}
	}
}

// endSizeTimeout returns the bound of End's DatabaseBytes: sizeEndTimeout, even for an
// interrupted step (ctx done with context.Canceled), but only sizeSampleTimeout when ctx ended
// for another cause, a stall (see runner.Sampler): the engine stopped answering, and a frozen
// server would hold every stalled step's end for the whole bound.
func endSizeTimeout(ctx context.Context) time.Duration {
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
		return sizeSampleTimeout
	}
	return sizeEndTimeout
}

// usage is the difference between two readings with the environment's: steal, other
// processes' CPU, pressure, swap, and the frequency at b (its lowest since the step's start
// kept in o).
func (o *OS) usage(a, b reading) map[string]float64 {
	m := usage(a, b)
	if a.hostOK && b.hostOK {
		m[KeySteal] = max(b.steal-a.steal, 0)
	}
	embedded := o.opt.DBPID == 0 && !o.opt.RemoteDB // the DBMS is the client: its CPU is db_cpu_s
	if busy, ok := m[KeyCPUUsSy]; ok && b.dbOK && a.dbOK && (embedded || a.clientOK && b.clientOK) {
		m[KeyOtherCPU] = max(busy-m[KeyClientCPU]-m[KeyDBCPU], 0)
	}
	envUsage(m, a.env, b.env)
	if b.env.freqOK && o.freqOK {
		o.freqMin = min(o.freqMin, b.env.freqMHz)
	}
	return m
}

// usage is the difference between two readings of the processes, the host's CPU and the
// device.
func usage(a, b reading) map[string]float64 {
	m := map[string]float64{}
	var procs float64 // CPU of the measured processes
	if a.clientOK && b.clientOK {
		m[KeyClientCPU] = max(b.clientCPU-a.clientCPU, 0)
		procs += m[KeyClientCPU]
	}
	if a.dbOK && b.dbOK {
		m[KeyDBCPU] = max(b.dbCPU-a.dbCPU, 0)
		procs += m[KeyDBCPU]
	}
	if a.hostOK && b.hostOK {
		// /proc/stat counts 10 ms ticks; the host was busy at least as long as the processes
		// measured more precisely, which matters for steps of a few milliseconds.
		m[KeyCPU] = max(b.hostCPU-a.hostCPU, procs)
		m[KeyCPUUsSy] = max(b.hostUsSy-a.hostUsSy, 0)
		m[KeyCPUAll] = max(b.hostAll-a.hostAll, 0)
		m[KeyCS] = delta(a.cs, b.cs)
	}
	if a.dbIOOK && b.dbIOOK {
		m[KeyDBReadKB] = delta(a.dbRead, b.dbRead) / 1024
		m[KeyDBWriteKB] = delta(a.dbWrite, b.dbWrite) / 1024
	}
	if a.diskOK && b.diskOK {
		m[KeyReads] = delta(a.disk.ReadIOs, b.disk.ReadIOs)
		m[KeyReadKB] = delta(a.disk.ReadSectors, b.disk.ReadSectors) * sectorBytes / 1024
		m[KeyWrites] = delta(a.disk.WriteIOs, b.disk.WriteIOs)
		m[KeyWriteKB] = delta(a.disk.WriteSectors, b.disk.WriteSectors) * sectorBytes / 1024
		m[KeyReadMs] = delta(a.disk.ReadTicks, b.disk.ReadTicks)
		m[KeyWriteMs] = delta(a.disk.WriteTicks, b.disk.WriteTicks)
		m[KeyIOMs] = delta(a.disk.IOsTotalTicks, b.disk.IOsTotalTicks)
		m[KeyQueueMs] = delta(a.disk.WeightedIOTicks, b.disk.WeightedIOTicks)
	}
	return m
}

// delta is b-a for a counter, 0 if it went backwards (a process of the tree ended).
func delta(a, b uint64) float64 {
	if b < a {
		return 0
	}
	return float64(b - a)
}

// sizeNote says that the engine could not tell the database's size (err), and what dbgb1
// in m is then.
func (o *OS) sizeNote(err error, m map[string]float64) string {
	if _, ok := m[KeyDBGB1]; ok {
		return fmt.Sprintf("dbgb1 is the data directory's files: the engine did not tell the database's size: %v", err)
	}
	return fmt.Sprintf("dbgb1 is not measured (-): the engine did not tell the database's size: %v", err)
}

// addSize adds dbgb1 and dbgb2 to m: dbgb1 from DatabaseBytes (bounded by timeout) when set,
// else from the data files of the data directory; dbgb2 from the data directory. A figure that
// cannot be had is left out. It returns DatabaseBytes' error, for the step's notes.
func (o *OS) addSize(ctx context.Context, m map[string]float64, timeout time.Duration) (engineErr error) {
	fromEngine := false
	if o.opt.DatabaseBytes != nil {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		n, err := o.opt.DatabaseBytes(ctx)
		cancel()
		if err == nil {
			m[KeyDBGB1] = float64(n) / (1 << 30)
			fromEngine = true
		}
		engineErr = err
	}
	if o.opt.DataDir == "" {
		return engineErr
	}
	data, all, err := DirSize(o.opt.DataDir, o.opt.IsDataFile)
	if err != nil {
		return engineErr
	}
	if !fromEngine {
		m[KeyDBGB1] = float64(data) / (1 << 30)
	}
	m[KeyDBGB2] = float64(all) / (1 << 30)
	return engineErr
}

// DirSize returns the bytes allocated to the files under dir: those for which isData
// reports true (every file when isData is nil), and all of them. Files that vanish during the
// walk (compaction, checkpoint) are skipped.
func DirSize(dir string, isData func(rel string) bool) (data, all int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		n := info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n = st.Blocks * 512 // allocated, as du counts it: st_blocks is in 512-byte units
		}
		all += n
		if isData == nil {
			data += n
			return nil
		}
		if rel, err := filepath.Rel(dir, path); err == nil && isData(filepath.ToSlash(rel)) {
			data += n
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return data, all, nil
}

// ProcessTree returns roots and every process descended from them now, roots first: the
// processes of a server whose CPU a profiler samples.
func ProcessTree(roots []int) ([]int, error) {
	pfs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("process tree: %w", err)
	}
	o := &OS{fs: pfs}
	return o.tree(roots), nil
}
