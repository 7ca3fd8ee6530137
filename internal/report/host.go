package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// How far apart two runs' figures may be before the report calls their hosts unlike
// (docs/scale-out.md): the calibration's CPU loop and fsync p50 by these factors, the memory
// total by this fraction.
const (
	CPULoopFactor   = 1.25
	FsyncFactor     = 3.0
	MemoryTolerance = 0.02
)

// Warnings returns the page's warning lines (unlike hosts, OOM kills), for the terminal.
func (p *Page) Warnings() []string {
	var out []string
	for _, l := range p.Lines {
		if strings.HasPrefix(l, warningPrefix) {
			out = append(out, l)
		}
	}
	return out
}

// comparisonLines are the header lines about how the runs compare: which configurations of a
// run spec a matrix of runs holds, and a warning for each run from a host unlike the first
// run's.
func comparisonLines(runs []Input) []string {
	lines := matrixLines(runs)
	labels := runLabels(runs)
	for i := 1; i < len(runs); i++ {
		if d := hostDiffs(runs[0].Run, runs[i].Run); len(d) > 0 {
			lines = append(lines, fmt.Sprintf("%srun %s ran on a host unlike run %s's: %s; their figures differ by the host as well as by the configuration",
				warningPrefix, labels[i], labels[0], strings.Join(d, "; ")))
		}
	}
	return lines
}

// hostDiffs lists how b's host differs from a's, in what both runs recorded.
func hostDiffs(a, b *result.Run) []string {
	ha, hb := a.Host, b.Host
	var d []string
	differ := func(what, x, y string) {
		if x != "" && y != "" && x != y {
			d = append(d, fmt.Sprintf("%s %s vs %s", what, x, y))
		}
	}
	differ("CPU model", ha.CPUModel, hb.CPUModel)
	differ("logical CPUs", count(ha.CPUs), count(hb.CPUs))
	differ("physical cores", count(ha.PhysicalCores), count(hb.PhysicalCores))
	differ("sockets", count(ha.Sockets), count(hb.Sockets))
	differ("SMT", ha.SMT, hb.SMT)
	differ("cpufreq governor", strings.Join(ha.Governors, ","), strings.Join(hb.Governors, ","))
	differ("THP enabled", ha.THPEnabled, hb.THPEnabled)
	differ("THP defrag", ha.THPDefrag, hb.THPDefrag)
	differ("kernel", ha.Kernel, hb.Kernel)
	if x, y := float64(ha.MemoryBytes), float64(hb.MemoryBytes); x > 0 && y > 0 && math.Abs(x-y) > MemoryTolerance*max(x, y) {
		d = append(d, fmt.Sprintf("memory %s vs %s", numfmt.Bytes(x), numfmt.Bytes(y)))
	}
	differ("filesystem", ha.Filesystem, hb.Filesystem)
	differ("device model", ha.DeviceModel, hb.DeviceModel)
	differ("device", rotational(ha.DeviceRotational), rotational(hb.DeviceRotational))
	differ("IO scheduler", ha.DeviceScheduler, hb.DeviceScheduler)
	return append(d, calibrationDiffs(a.Calibration, b.Calibration)...)
}

// calibrationDiffs lists the calibration figures of a and b that are further apart than
// their factor.
func calibrationDiffs(a, b *result.Calibration) []string {
	if a == nil || b == nil {
		return nil
	}
	var d []string
	if apart(a.CPUNsPerIter, b.CPUNsPerIter, CPULoopFactor) {
		d = append(d, fmt.Sprintf("CPU loop %s vs %s ns/iteration (more than %sx apart)",
			numfmt.Num(*a.CPUNsPerIter), numfmt.Num(*b.CPUNsPerIter), numfmt.Num(CPULoopFactor)))
	}
	if apart(a.FsyncP50Us, b.FsyncP50Us, FsyncFactor) {
		d = append(d, fmt.Sprintf("fsync p50 %s vs %s (more than %sx apart)",
			numfmt.Duration(*a.FsyncP50Us), numfmt.Duration(*b.FsyncP50Us), numfmt.Num(FsyncFactor)))
	}
	return d
}

// apart reports whether x and y are both measured and one is more than factor times the other.
func apart(x, y *float64, factor float64) bool {
	if x == nil || y == nil || *x <= 0 || *y <= 0 {
		return false
	}
	return max(*x, *y) > factor*min(*x, *y)
}

// count is n as text, "" for 0 (not recorded).
func count(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// rotational says whether a device rotates, "" when unknown.
func rotational(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "rotational"
	}
	return "non-rotational"
}

// CalibrationText describes a calibration in one line: "CPU loop 0.912 ns/iteration; fsync
// p50 412us, p99 2.3ms (40 in DIR)", then why a figure is missing.
func CalibrationText(c *result.Calibration) string {
	if c == nil {
		return "not run"
	}
	var parts []string
	if c.CPUNsPerIter != nil {
		parts = append(parts, fmt.Sprintf("CPU loop %s ns/iteration", numfmt.Num(*c.CPUNsPerIter)))
	}
	if c.FsyncP50Us != nil && c.FsyncP99Us != nil {
		parts = append(parts, fmt.Sprintf("fsync p50 %s, p99 %s (%d in %s)",
			numfmt.Duration(*c.FsyncP50Us), numfmt.Duration(*c.FsyncP99Us), c.FsyncSamples, c.FsyncDir))
	}
	return strings.Join(append(parts, c.Notes...), "; ")
}

// fingerprintTable has a row per run: its host's fingerprint and calibration; no rows when no
// run recorded them (runs made before they existed).
func fingerprintTable(runs []Input, labels []string) Table {
	t := Table{Title: "Host fingerprint and calibration", Header: []string{"run", "CPU model", "cores", "sockets", "SMT",
		"governor", "THP enabled/defrag", "device model", "device", "scheduler", "CPU loop ns/iter", "fsync p50", "fsync p99"}, Metric: "value"}
	if !slices.ContainsFunc(runs, hasFingerprint) {
		return t
	}
	for i, in := range runs {
		h, c := in.Run.Host, in.Run.Calibration
		if c == nil {
			c = &result.Calibration{}
		}
		t.Rows = append(t.Rows, []string{labels[i], orMissing(h.CPUModel), orMissing(count(h.PhysicalCores)), orMissing(count(h.Sockets)),
			orMissing(h.SMT), orMissing(strings.Join(h.Governors, ",")), orMissing(slashed(h.THPEnabled, h.THPDefrag)),
			orMissing(h.DeviceModel), orMissing(rotational(h.DeviceRotational)), orMissing(h.DeviceScheduler),
			optNum(c.CPUNsPerIter), optFormat(c.FsyncP50Us, numfmt.Duration), optFormat(c.FsyncP99Us, numfmt.Duration)})
	}
	return t
}

// optFormat is *v formatted by f, or missing.
func optFormat(v *float64, f func(float64) string) string {
	if v == nil {
		return missing
	}
	return f(*v)
}

// slashed is "a/b" with missing for an unknown side, or "" when both are unknown.
func slashed(a, b string) string {
	if a == "" && b == "" {
		return ""
	}
	return orMissing(a) + "/" + orMissing(b)
}

// memoryCell is a memory total in GiB, or missing when it was not read.
func memoryCell(b uint64) string {
	if b == 0 {
		return missing
	}
	return numfmt.Num(float64(b)/(1<<30)) + " GiB"
}

// hasFingerprint reports whether a run recorded a fingerprint beyond the CPUs, memory,
// kernel and device that every run has, or a calibration.
func hasFingerprint(in Input) bool {
	h := in.Run.Host
	return in.Run.Calibration != nil || h.CPUModel != "" || h.PhysicalCores != 0 || h.SMT != "" ||
		h.THPEnabled != "" || len(h.Governors) > 0 || h.DeviceScheduler != ""
}
