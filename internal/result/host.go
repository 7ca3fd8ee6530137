package result

// Host describes the machine a run ran on: its fingerprint, read from /proc and /sys
// (internal/host). A field that could not be read is absent, never a made-up value.
type Host struct {
	Hostname string `json:"hostname,omitempty"`
	// CPUs is the logical CPUs the process may run on (runtime.NumCPU).
	CPUs        int    `json:"cpus"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
	GoVersion   string `json:"go_version,omitempty"`
	// CPUModel is /proc/cpuinfo's model name of the first CPU.
	CPUModel string `json:"cpu_model,omitempty"`
	// PhysicalCores and Sockets count the distinct cores and packages of the online CPUs.
	PhysicalCores int `json:"physical_cores,omitempty"`
	Sockets       int `json:"sockets,omitempty"`
	// SMT is the kernel's SMT control: on, off, forceoff, notsupported or notimplemented.
	SMT string `json:"smt,omitempty"`
	// Governors are the distinct cpufreq scaling governors of the online CPUs, sorted.
	Governors []string `json:"cpufreq_governors,omitempty"`
	// CPUBoost tells whether the CPUs may run above their base frequency (cpufreq/boost, or
	// intel_pstate/no_turbo inverted); nil when neither is there (many virtual machines).
	CPUBoost *bool `json:"cpu_boost,omitempty"`
	// THPEnabled and THPDefrag are the selected modes of transparent huge pages.
	THPEnabled string `json:"thp_enabled,omitempty"`
	THPDefrag  string `json:"thp_defrag,omitempty"`
	// DataDevice is the block device (as /proc/diskstats names it) and Filesystem the file
	// system type under the data directory.
	DataDevice string `json:"data_device,omitempty"`
	Filesystem string `json:"filesystem,omitempty"`
	// DeviceModel is the data device's model (of the disks under it for a partition, a
	// device-mapper or md device), DeviceRotational whether it spins, DeviceScheduler its
	// IO scheduler.
	DeviceModel      string `json:"data_device_model,omitempty"`
	DeviceRotational *bool  `json:"data_device_rotational,omitempty"`
	DeviceScheduler  string `json:"data_device_scheduler,omitempty"`
	// DeviceWriteCache is the data device's queue/write_cache: "write back" (a volatile cache
	// the kernel flushes on fsync) or "write through" (no flush sent).
	DeviceWriteCache string `json:"data_device_write_cache,omitempty"`
	// DeviceDiscardMaxBytes is the data device's queue/discard_max_bytes: the most one discard
	// (TRIM) may cover; 0 when the device takes none; nil when unknown.
	DeviceDiscardMaxBytes *uint64 `json:"data_device_discard_max_bytes,omitempty"`
	// MountOptions are the options of the data directory's mount, the mount's and its file
	// system's (/proc/self/mountinfo), sorted, each "name" or "name=value" ("discard",
	// "relatime", "rw").
	MountOptions []string `json:"data_mount_options,omitempty"`
}

// Calibration is a short probe of the host run once before the first configuration: a fixed
// CPU loop and fsync latency in the data directory. A figure not measured is nil, and Notes
// say why.
type Calibration struct {
	// CPUNsPerIter is the fastest chunk's nanoseconds per iteration of the fixed loop;
	// CPUIters the iterations timed in all.
	CPUNsPerIter *float64 `json:"cpu_ns_per_iter,omitempty"`
	CPUIters     int64    `json:"cpu_iters,omitempty"`
	// FsyncP50Us and FsyncP99Us are percentiles of FsyncSamples small appends each followed by
	// fsync, in a file of FsyncDir, in microseconds.
	FsyncP50Us   *float64 `json:"fsync_p50_us,omitempty"`
	FsyncP99Us   *float64 `json:"fsync_p99_us,omitempty"`
	FsyncSamples int      `json:"fsync_samples,omitempty"`
	FsyncDir     string   `json:"fsync_dir,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

// Matrix marks a run of one configuration of a run spec (run --config-index K, or a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX): a report joins such runs into one.
type Matrix struct {
	// Index is the configuration's 0-based index in the spec, Count the spec's configurations.
	Index int `json:"index"`
	Count int `json:"count"`
	// Config is the configuration's name; Spec the spec's path as given and SpecSHA256 the
	// hash of its text with every DSN and password removed (run-spec.yaml before redaction
	// of the environment's DSNs), the same for every run of one spec.
	Config     string `json:"config"`
	Spec       string `json:"spec"`
	SpecSHA256 string `json:"spec_sha256"`
}
