package report

// testLayouts is the lookup the workload registry hands the report: each workload's layout by
// its name, the Insert Benchmark's for any other (a run.json older than the workload's name).
func testLayouts() Layouts {
	return func(workload string) Layout {
		switch workload {
		case "linkbench":
			return LinkBenchLayout()
		case "iibench":
			return IIBenchLayout()
		}
		return InsertLayout()
	}
}

// withLayouts is o with the test's layouts.
func withLayouts(o Options) Options {
	o.Layouts = testLayouts()
	return o
}
