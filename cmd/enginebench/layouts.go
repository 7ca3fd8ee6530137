package main

import "github.com/enginebench/enginebench/internal/report"

// reportLayouts looks up each workload's report layout by its name; any other name, or none (a
// run.json written before runs named their workload), is the Insert Benchmark's. It stands in
// for the workload registry, which will hand each workload's layout to the report.
func reportLayouts() report.Layouts {
	return func(workload string) report.Layout {
		switch workload {
		case "linkbench":
			return report.LinkBenchLayout()
		case "iibench":
			return report.IIBenchLayout()
		}
		return report.InsertLayout()
	}
}
