package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/report"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runspec"
)

// TestEveryWorkloadReachableThroughRegistry checks that each workload of the registry reaches
// the command line (its name, its own flags, building it), the run spec (its params) and the
// report (a run of it is accepted and read with its own layout) through the registry alone:
// nothing here names a workload.
func TestEveryWorkloadReachableThroughRegistry(t *testing.T) {
	for _, w := range registry.Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			cmd, f := runCommand(nil, nil)
			if !strings.Contains(cmd.Use, w.Name) {
				t.Errorf("run's usage %q does not name it", cmd.Use)
			}
			own := pflag.NewFlagSet(w.Name, pflag.ContinueOnError)
			w.Flags(own)
			var param string
			own.VisitAll(func(fg *pflag.Flag) {
				if cmd.Flags().Lookup(fg.Name) == nil || !contains(f.owner[fg.Name], w.Name) {
					t.Errorf("its flag --%s is not a flag of run that it owns", fg.Name)
				}
				param = fg.Name
			})
			sp := &runspec.Spec{Path: "s.yaml", Workload: w.Name, Scale: w.Scales[0],
				Params: []runspec.Param{{Flag: param, Value: cmd.Flags().Lookup(param).DefValue, Line: 2}}}
			if err := f.applySpec(cmd.Flags(), sp, w.Name); err != nil {
				t.Fatalf("a run spec setting its --%s: %v", param, err)
			}
			b, err := f.workload(cmd.Flags(), w.Name)
			if err != nil || b.Name() != w.Name || b.Scale() != w.Scales[0] {
				t.Fatalf("built %v at scale %q: %v", b, w.Scales[0], err)
			}
			run := &result.Run{RunID: "r1", StartedAt: time.Unix(1, 0), Status: result.StatusOK,
				Workload: result.Workload{Name: w.Name, Scale: b.Scale(), Params: b.Params()}}
			if err := report.CheckRun(run, registry.Names()); err != nil {
				t.Errorf("the report refuses a run of it: %v", err)
			}
			if s := report.Build(run, registry.Layouts()); len(s.Lines) == 0 || !strings.Contains(s.Lines[0], w.Name+" benchmark") {
				t.Errorf("summary header %q", s.Lines)
			}
		})
	}
}

// contains reports whether xs holds x.
func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
