// Package registry lists every workload and every engine enginebench runs, in one place: each
// workload's descriptor (name, flags, parameters, shards; its package declares it), its report
// layout and its merge rules; each engine's driver (Engines) and its description (WriteEngine).
// The command line, run specs, the report and merge find a workload through it alone, so adding
// a workload is its package, one line here and its docs. It holds no state: Workloads and
// Engines build their lists anew.
package registry

import (
	"slices"

	"github.com/enginebench/enginebench/internal/merge"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/iibench"
	"github.com/enginebench/enginebench/internal/workload/insertbench"
	"github.com/enginebench/enginebench/internal/workload/linkbench"
)

// Workload is one workload's entry: what the command line knows of it, and what the report
// and merge need of it.
type Workload struct {
	workload.Descriptor
	// Report is how its runs read: summary tables, page sections, ratios.
	Report report.Layout
	// Merge is how its shards' runs merge.
	Merge merge.Rules
}

// Workloads returns every workload, the default (a run that names none runs it) first.
func Workloads() []Workload {
	return []Workload{
		{Descriptor: insertbench.Describe(), Report: report.InsertLayout()},
		{Descriptor: iibench.Describe(), Report: report.IIBenchLayout(), Merge: merge.Rules{WholeVerify: true}},
		{Descriptor: linkbench.Describe(), Report: report.LinkBenchLayout()},
	}
}

// Names returns the names of every workload, the default first.
func Names() []string {
	ws := Workloads()
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Name
	}
	return out
}

// Lookup returns the workload called name.
func Lookup(name string) (Workload, bool) {
	ws := Workloads()
	i := slices.IndexFunc(ws, func(w Workload) bool { return w.Name == name })
	if i < 0 {
		return Workload{}, false
	}
	return ws[i], true
}

// Default returns the workload of a run that names none.
func Default() Workload { return Workloads()[0] }

// Of returns the workload called name, or the default one for a name no workload has (a
// run.json that names none was written by a version that had the default alone).
func Of(name string) Workload {
	if w, ok := Lookup(name); ok {
		return w
	}
	return Default()
}

// Layouts returns the report's lookup of each workload's layout by its name: any other name,
// or none (a run.json written before runs named their workload), reads as the default
// workload's.
func Layouts() report.Layouts {
	return func(name string) report.Layout { return Of(name).Report }
}
