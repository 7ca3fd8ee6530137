package workload

import (
	"strings"

	"github.com/google/pprof/profile"

	"github.com/enginebench/enginebench/internal/flame"
	"github.com/enginebench/enginebench/internal/result"
)

// ourPrefix begins the names of enginebench's own functions.
const ourPrefix = "github.com/enginebench/enginebench/"

// profileTotals returns prof's samples and the CPU seconds they stand for, as the report's
// flame graphs count them (flame.Fold).
func profileTotals(prof *profile.Profile) (samples int64, cpuSeconds float64) {
	if prof == nil {
		return 0, 0
	}
	count := valueIndex(prof, "samples")
	for _, s := range prof.Sample {
		if count >= 0 {
			samples += s.Value[count]
		} else {
			samples++
		}
	}
	return samples, flame.Fold(prof).Total()
}

// valueIndex returns the index of prof's sample type typ, or -1.
func valueIndex(prof *profile.Profile, typ string) int {
	for i, st := range prof.SampleType {
		if st.Type == typ {
			return i
		}
	}
	return -1
}

// profileShares divides the CPU of a profile of the enginebench process between the engine,
// the harness and the runtime (docs/efficiency.md): a sample with a frame of the engine's Go
// modules (engineModules) or of native code outside the kernel is the engine's; else one with
// a frame of enginebench's or of another Go module is the harness's; the rest (Go's runtime
// and standard library alone: the garbage collector, the scheduler) is the runtime's.
func profileShares(prof *profile.Profile, engineModules []string) map[string]float64 {
	cpu := valueIndex(prof, "cpu")
	if prof == nil || cpu < 0 {
		return nil
	}
	out := map[string]float64{result.ShareEngine: 0, result.ShareHarness: 0, result.ShareRuntime: 0}
	for _, s := range prof.Sample {
		out[shareOf(s, engineModules)] += float64(s.Value[cpu]) / 1e9
	}
	return out
}

// shareOf returns the share a sample's CPU goes to.
func shareOf(s *profile.Sample, engineModules []string) string {
	harness := false
	for _, loc := range s.Location {
		if kernelFrame(loc) {
			continue
		}
		for _, name := range frameNames(loc) {
			switch frameKind(name, engineModules) {
			case result.ShareEngine:
				return result.ShareEngine
			case result.ShareHarness:
				harness = true
			}
		}
	}
	if harness {
		return result.ShareHarness
	}
	return result.ShareRuntime
}

// frameNames returns the functions of a location, inlined ones included; a location without
// any is named "".
func frameNames(loc *profile.Location) []string {
	if len(loc.Line) == 0 {
		return []string{""}
	}
	names := make([]string, 0, len(loc.Line))
	for _, l := range loc.Line {
		if l.Function != nil {
			names = append(names, l.Function.Name)
		}
	}
	return names
}

// kernelFrame reports whether loc is the kernel's (perf's [kernel.kallsyms], [vdso]).
func kernelFrame(loc *profile.Location) bool {
	return loc.Mapping != nil && strings.HasPrefix(loc.Mapping.File, "[")
}

// frameKind returns the share a frame stands for: the engine's (its Go modules, or native
// code: a name that is not a Go function's), the harness's (enginebench's, or another Go
// module's) or the runtime's (Go's standard library).
func frameKind(name string, engineModules []string) string {
	for _, m := range engineModules {
		if m != "" && strings.HasPrefix(name, m) {
			return result.ShareEngine
		}
	}
	if strings.HasPrefix(name, ourPrefix) {
		return result.ShareHarness
	}
	pkg, ok := goPackage(name)
	switch {
	case !ok:
		return result.ShareEngine
	case strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return result.ShareHarness // another Go module: github.com/..., golang.org/x/...
	}
	return result.ShareRuntime
}

// goPackage returns the package of a Go function's name ("runtime.mallocgc": "runtime";
// "github.com/a/b.(*T).M": "github.com/a/b"), and false for a name that is not a Go
// function's (C's, C++'s "rocksdb::DB::Get", perf's "[unknown]").
func goPackage(name string) (string, bool) {
	if name == "" || strings.Contains(name, "::") || strings.HasPrefix(name, "[") {
		return "", false
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 {
		return "", false
	}
	return name[:slash+1+dot], true
}
