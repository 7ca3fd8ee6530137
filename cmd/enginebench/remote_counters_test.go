package main

import (
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// checkServerCounters checks that run's steps have their efficiency from the server's own
// counters, with no DBMS process on this host: l.i0's KB written and WAL KB per row, qr100's
// logical reads per query, each step's source, and summary's tables of them.
func checkServerCounters(t *testing.T, run *result.Run, summary string) {
	t.Helper()
	positive := func(v *float64) bool { return v != nil && *v > 0 }
	for _, st := range run.Configs[0].Steps {
		e := st.Efficiency
		if e == nil {
			t.Errorf("step %s has no efficiency", st.Name)
			continue
		}
		switch st.Name {
		case "l.i0":
			if !positive(e.SrvWKBpi) || !positive(e.SrvWALKBpi) || *e.SrvWALKBpi > *e.SrvWKBpi {
				t.Errorf("l.i0: srv_wkbpi %v, srv_walkbpi %v: want KB written per row, the WAL's part of it", e.SrvWKBpi, e.SrvWALKBpi)
			}
		case "qr100":
			if !positive(e.SrvLRpq) {
				t.Errorf("qr100: srv_lrpq %v: want the logical reads per query", e.SrvLRpq)
			}
		}
		if st.SrvFrom == "" {
			t.Errorf("step %s: no source of the server's counters", st.Name)
		}
		if !strings.Contains(summary, "## Efficiency from the server's counters: "+st.Name) {
			t.Errorf("summary.md has no table of the server's counters for %s", st.Name)
		}
	}
}
