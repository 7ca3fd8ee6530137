package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"

	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// hostInfo describes this machine and the device of the data directory dataDir for run.json;
// what cannot be read is left empty.
func hostInfo(dataDir string) result.Host {
	h := result.Host{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if mi, err := fs.Meminfo(); err == nil && mi.MemTotal != nil {
			h.MemoryBytes = *mi.MemTotal * 1024
		}
	}
	dev, _ := measure.DeviceOf(dataDir) // without a device, the configs' notes say why
	h.DataDevice, h.Filesystem = dev.Name, dev.Filesystem
	return h
}

// checkDataSpace checks that files can be created in the data directory dir and that its
// filesystem has about need bytes free.
func checkDataSpace(dir string, need int64) error {
	if err := result.ProbeWrite(dir, 0); err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil {
		free := int64(st.Bavail) * int64(st.Bsize)
		if free < need {
			return fmt.Errorf("data directory %s has %s free; this run needs about %s (choose another --data-dir or a smaller --scale)",
				dir, numfmt.Bytes(float64(free)), numfmt.Bytes(float64(need)))
		}
	}
	return nil
}
