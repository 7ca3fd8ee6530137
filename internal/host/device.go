package host

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Device is what /sys says of a block device.
type Device struct {
	// Model is the disk's model; for a partition its disk's, for a device-mapper or md
	// device the distinct models of the disks under it joined with " + "; "" when unknown
	// (a virtual disk has none).
	Model string
	// Rotational tells whether the disk spins; nil when unknown.
	Rotational *bool
	// Scheduler is the disk's selected IO scheduler; "" when unknown.
	Scheduler string
	// WriteCache is the disk's queue/write_cache ("write back", "write through"); "" when
	// unknown.
	WriteCache string
	// DiscardMaxBytes is the disk's queue/discard_max_bytes (0: it takes no discard); nil
	// when unknown.
	DiscardMaxBytes *uint64
}

// maxStack bounds how deep Device follows the devices under a device-mapper or md device.
const maxStack = 4

// Device describes the block device name (as /proc/diskstats names it: sda1, nvme0n1,
// dm-0). A partition is described by its disk.
func (r Reader) Device(name string) Device {
	disk := r.diskOf(name)
	var d Device
	switch readLine(r.blockPath(disk, "queue/rotational")) {
	case "0":
		d.Rotational = new(false)
	case "1":
		d.Rotational = new(true)
	}
	d.Scheduler = selected(readLine(r.blockPath(disk, "queue/scheduler")))
	d.WriteCache = readLine(r.blockPath(disk, "queue/write_cache"))
	if n, err := strconv.ParseUint(readLine(r.blockPath(disk, "queue/discard_max_bytes")), 10, 64); err == nil {
		d.DiscardMaxBytes = &n
	}
	d.Model = strings.Join(r.models(disk, 0), " + ")
	return d
}

// blockPath is the path of file of the block device name in /sys/class/block.
func (r Reader) blockPath(name, file string) string {
	return filepath.Join(r.Sys, "class/block", name, file)
}

// diskOf returns the disk of a partition (its parent in /sys), or name itself.
func (r Reader) diskOf(name string) string {
	if _, err := os.Stat(r.blockPath(name, "partition")); err != nil {
		return name
	}
	real, err := filepath.EvalSymlinks(r.blockPath(name, ""))
	if err != nil {
		return name
	}
	return filepath.Base(filepath.Dir(real))
}

// models returns the distinct models of disk, or of the devices under it (slaves), sorted.
func (r Reader) models(disk string, depth int) []string {
	if m := strings.Join(strings.Fields(readLine(r.blockPath(disk, "device/model"))), " "); m != "" {
		return []string{m}
	}
	if depth >= maxStack {
		return nil
	}
	slaves, _ := os.ReadDir(r.blockPath(disk, "slaves"))
	var out []string
	for _, s := range slaves {
		for _, m := range r.models(r.diskOf(s.Name()), depth+1) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}
