package insertbench

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/measure"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// TestServerCountersAgainstProc runs the load steps on each managed server with both the
// host's measurement of the DBMS's processes (/proc/PID/io) and the server's own counters,
// and holds the server's KB written per row against the processes' (pwkbpi). Every byte the
// server counts as written (its data files, its WAL or redo log) it wrote through write()
// into the page cache, which /proc counts when the write dirties a page: the server's count
// is at most the processes' (10% for a page rewritten while still dirty, which /proc counts
// once). The processes write more besides, which the counters do not count: PostgreSQL's
// zero-filled new WAL segments, MariaDB's binary log, the logs and control files; so no lower
// bound but that a step that inserts wrote something. Reads are not held against each other:
// /proc counts only the reads the page cache did not serve, the server all of them, and an
// index build reads temporary files the server's counters do not count.
func TestServerCountersAgainstProc(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, dir := c.Start(t, ctx, false)
		p, _ := DefaultParams("tiny")
		p.Steps = []string{"l.i0", "l.x", "l.i1"}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		acct, err := measure.NewOS(measure.OSOptions{DataDir: dir, DBPID: eng.(engine.Server).ServerPID()})
		if err != nil {
			t.Fatal(err)
		}
		steps, err := workloadtest.Run(ctx, &Workload{p: p}, eng, &runner.Runner{
			Clock:    runner.SystemClock(),
			Samplers: []runner.Sampler{acct, workload.NewServerCounterUsage(eng.(engine.ServerCounters))},
		})
		if err != nil {
			t.Fatal(err)
		}
		// A server that publishes its counters late (PostgreSQL: all but its WAL, up to a
		// second) has, in these steps of a second or less, a step's figures moved into the
		// next: they are held against /proc over the steps together, the WAL per step.
		before, err := eng.(engine.ServerCounters).ServerCounters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lagging := before.Lag > 0
		var srvKB, procKB, rows float64
		for i, s := range steps {
			e := s.Efficiency
			if s.Status != result.StatusOK || e == nil {
				t.Fatalf("%s: %s %s, efficiency %+v", s.Name, s.Status, s.Error, e)
			}
			srvKB += s.Usage[measure.KeySrvWriteKB] + s.Usage[measure.KeySrvWALKB]
			procKB += s.Usage[measure.KeyDBWriteKB]
			rows += s.Usage[measure.KeySrvRowsWritten]
			switch {
			case lagging && i == 0:
				if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "up to "+before.Lag.String()+" late") }) {
					t.Errorf("%s: notes %q, want that the counters lag", s.Name, s.Notes)
				}
			case !lagging && s.Name != "l.x":
				if e.SrvWKBpi == nil || e.PWKBpi == nil || *e.SrvWKBpi <= 0 || *e.SrvWKBpi > 1.1**e.PWKBpi {
					t.Errorf("%s: the server wrote %s KB per row, its processes %s", s.Name, fig(e.SrvWKBpi), fig(e.PWKBpi))
				}
				if e.SrvRowsWpi == nil || *e.SrvRowsWpi < 1 {
					t.Errorf("%s: the server wrote %s rows per row inserted, want at least 1", s.Name, fig(e.SrvRowsWpi))
				}
			}
			if lagging && s.Name != "l.x" && (e.SrvWALKBpi == nil || e.PWKBpi == nil || *e.SrvWALKBpi <= 0 || *e.SrvWALKBpi > 1.1**e.PWKBpi) {
				t.Errorf("%s: the server wrote %s KB of WAL per row, its processes %s KB", s.Name, fig(e.SrvWALKBpi), fig(e.PWKBpi))
			}
			t.Logf("%s %s: pwkbpi %s srv_wkbpi %s srv_walkbpi %s prkbpq %s srv_rkbpq %s srv_rows_wpi %s; notes %q", c.Driver.Name, s.Name,
				fig(e.PWKBpi), fig(e.SrvWKBpi), fig(e.SrvWALKBpi), fig(e.PRKBpq), fig(e.SrvRKBpq), fig(e.SrvRowsWpi), s.Notes)
		}
		if srvKB <= 0 || srvKB > 1.1*procKB {
			t.Errorf("the steps together: the server wrote %.0f KB, its processes %.0f KB", srvKB, procKB)
		}
		if rows <= 0 {
			t.Errorf("the steps together: the server wrote %.0f rows", rows)
		}
	})
}

func fig(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'g', 4, 64)
}
