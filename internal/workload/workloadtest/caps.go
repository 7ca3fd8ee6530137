package workloadtest

import (
	"testing"

	"github.com/enginebench/enginebench/internal/workload"
)

// MinMemoryLimit is the smallest cap a preset may set: an engine's cache (a quarter to a half
// of the cap under Driver.CapDefaults) and a managed server's base memory must fit in it.
const MinMemoryLimit = 256 << 20

// Sized is a workload with a memory cap and a data size estimate, as the three workloads are.
type Sized interface {
	workload.Workload
	workload.Capped
	EstimateBytes() int64
}

// CheckPresetCaps checks the caps of a workload's scale presets (scales, named by name), each
// made by params and build (the workload's DefaultParams and New): the iobound preset caps each
// configuration at MinMemoryLimit or more and its data (EstimateBytes) is at least 5 times the
// cap, so that it outgrows what the engine and the page cache may hold; every other preset sets
// no cap. The cap is in run.json's params as memory_limit_bytes.
func CheckPresetCaps[S, P any, W Sized](t *testing.T, scales []S, name func(S) string,
	params func(scale string) (P, error), build func(P) (W, error)) {
	t.Helper()
	capped := 0
	var names []string
	for _, sc := range scales {
		s := name(sc)
		names = append(names, s)
		p, err := params(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		w, err := build(p)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		limit := w.MemoryLimit()
		if got := w.Params()["memory_limit_bytes"]; got != limit {
			t.Errorf("%s: params memory_limit_bytes %v, MemoryLimit() %d", s, got, limit)
		}
		if s != "iobound" {
			if limit != 0 {
				t.Errorf("%s: a cap of %d bytes, want none", s, limit)
			}
			continue
		}
		capped++
		if limit < MinMemoryLimit {
			t.Errorf("iobound: cap %d bytes, below %d MiB", limit, MinMemoryLimit>>20)
		}
		if est := w.EstimateBytes(); est < 5*limit {
			t.Errorf("iobound: data %d bytes, less than 5 times the cap %d", est, limit)
		}
	}
	if capped != 1 {
		t.Errorf("%d iobound presets among %v, want 1", capped, names)
	}
}
