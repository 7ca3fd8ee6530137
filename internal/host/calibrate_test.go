package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCalibrate(t *testing.T) {
	dir := t.TempDir()
	c := Calibrate(context.Background(), dir)
	if c.CPUNsPerIter == nil || *c.CPUNsPerIter <= 0 || c.CPUIters < cpuChunk {
		t.Errorf("CPU loop: %v ns/iteration over %d iterations, want a positive figure over at least %d", c.CPUNsPerIter, c.CPUIters, cpuChunk)
	}
	if c.FsyncP50Us == nil || c.FsyncP99Us == nil || *c.FsyncP50Us <= 0 || *c.FsyncP99Us < *c.FsyncP50Us {
		t.Errorf("fsync p50 %v p99 %v: want positive figures, p99 at least p50", c.FsyncP50Us, c.FsyncP99Us)
	}
	if c.FsyncSamples != fsyncSamples || c.FsyncDir != dir || len(c.Notes) != 0 {
		t.Errorf("fsync samples %d in %s, notes %q; want %d in %s, none", c.FsyncSamples, c.FsyncDir, c.Notes, fsyncSamples, dir)
	}
	assertEmpty(t, dir)
}

func TestCalibrateCancelled(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := Calibrate(ctx, dir)
	if c.CPUNsPerIter != nil || c.FsyncP50Us != nil || c.FsyncP99Us != nil || c.FsyncSamples != 0 {
		t.Errorf("a cancelled calibration measured: %+v", c)
	}
	if len(c.Notes) != 2 || !strings.Contains(c.Notes[0], "CPU loop: not run: context canceled") || !strings.Contains(c.Notes[1], "fsync probe: not run") {
		t.Errorf("notes %q: want why each figure is missing", c.Notes)
	}
	assertEmpty(t, dir)
}

func TestCalibrateWithoutDir(t *testing.T) {
	c := Calibrate(context.Background(), "")
	if c.CPUNsPerIter == nil || c.FsyncP50Us != nil || c.FsyncDir != "" || len(c.Notes) != 0 {
		t.Errorf("without a directory: %+v; want the CPU loop only", c)
	}
}

func TestFsyncLatencyBadDir(t *testing.T) {
	_, err := FsyncLatency(context.Background(), "/nonexistent/dir", 3)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/dir") {
		t.Errorf("err %v, want one naming the directory", err)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 40; i >= 1; i-- {
		d = append(d, time.Duration(i))
	}
	if p50, p99, p100 := percentile(d, 0.5), percentile(d, 0.99), percentile(d, 1); p50 != 20 || p99 != 40 || p100 != 40 {
		t.Errorf("p50 %d p99 %d p100 %d of 1..40, want 20, 40, 40 (nearest rank)", p50, p99, p100)
	}
	if d[0] != 40 {
		t.Errorf("percentile sorted its input")
	}
	if p := percentile([]time.Duration{7}, 0.5); p != 7 {
		t.Errorf("p50 of one sample: %d", p)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if e, err := os.ReadDir(dir); err != nil || len(e) != 0 {
		t.Errorf("%s holds %v after the probe (%v): want it left empty", dir, e, err)
	}
}
