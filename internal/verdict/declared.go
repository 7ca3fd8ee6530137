package verdict

import (
	"fmt"

	"github.com/enginebench/enginebench/internal/result"
)

// The presets that declare where a workload's data lives (docs/insert-benchmark.md,
// docs/linkbench.md, docs/iibench.md): cached fits in memory, iobound outgrows its memory cap.
const (
	ScaleCached  = "cached"
	ScaleIOBound = "iobound"
)

// readSteps are the primary operations of the steps whose device reads say where the data
// was: the Insert Benchmark's query steps and LinkBench's requests. A load reads little
// whatever the preset (l.i0 inserts in key order, an LSM tree inserts without reading), so
// a load is not judged.
// It maps each to the noun a message counts.
var readSteps = map[string]string{"query": "query", "requests": "request"}

// Declared returns the verdict of what a step of the preset scale declared against what it
// measured: a read step of the cached preset whose device reads per operation (rpq) are above
// the cached_reads threshold was not cached; one of the iobound preset whose reads are below
// iobound_reads was. Other presets and steps declare nothing: no verdict. The workload judges
// it after the step's figures are derived (workload.Execute's step callback), as the runner
// knows neither the preset nor the reads per operation.
func Declared(s *result.Step, scale string, th Thresholds) []result.Verdict {
	if (scale != ScaleCached && scale != ScaleIOBound) || readSteps[s.Primary] == "" || s.Status != result.StatusOK {
		return nil
	}
	check := "cached_reads"
	if scale == ScaleIOBound {
		check = "iobound_reads"
	}
	if s.Efficiency == nil || s.Efficiency.Rpq == nil {
		return []result.Verdict{unmeasured(check, "the data device's reads were not measured (no block device under the data directory, or no data directory)")}
	}
	rpq, limit := *s.Efficiency.Rpq, th.Of(check)
	reads := fmt.Sprintf("%s device reads per %s", readsText(rpq), readSteps[s.Primary])
	switch {
	case scale == ScaleCached && rpq > limit:
		return []result.Verdict{flag(check, rpq, limit, fmt.Sprintf("%s during %s of the cached preset (more than %g): the data was not cached", reads, s.Name, limit))}
	case scale == ScaleIOBound && rpq < limit:
		return []result.Verdict{flag(check, rpq, limit, fmt.Sprintf("%s during %s of the iobound preset (fewer than %g): the data was cached, the step ran at its CPU's rate", reads, s.Name, limit))}
	}
	return []result.Verdict{pass(check, rpq, limit)}
}

// readsText formats reads per operation: two significant figures.
func readsText(v float64) string {
	return fmt.Sprintf("%.2g", v)
}
