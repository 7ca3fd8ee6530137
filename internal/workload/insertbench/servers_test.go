package insertbench

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestServerEngines runs every step of the Insert Benchmark (scan too) at tiny scale (with
// short query steps) on a managed postgres, innodb and myrocks server, with verification after
// every write step (--verify each-step) and the engine's stats sampled as a run samples them.
func TestServerEngines(t *testing.T) {
	for _, c := range sqldbtest.Servers() {
		t.Run(c.Driver.Name, func(t *testing.T) {
			c.Require(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			eng := c.Open(t, ctx, c.Small, servertest.DataDir(t))

			p, _ := DefaultParams("tiny")
			p.QuerySeconds = 1
			p.Steps, p.Verify = StepNames(), workload.VerifyEachStep
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			env := workload.Env{Log: io.Discard, Runner: &runner.Runner{
				Clock:    runner.SystemClock(),
				Samplers: []runner.Sampler{workload.EngineStats{Engine: eng.(engine.Statser)}},
			}}
			var steps []*result.Step
			err := (&Workload{p: p}).Run(ctx, env, eng, func(s *result.Step) { steps = append(steps, s) })
			if err != nil {
				for _, s := range steps {
					t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
				}
				t.Fatal(err)
			}
			if len(steps) != len(StepNames()) {
				t.Fatalf("%d steps ran, want %d", len(steps), len(StepNames()))
			}
			for _, s := range steps {
				if s.Status != result.StatusOK {
					t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
				}
				if writes(s.Name) && (s.Verify == nil || !s.Verify.OK) {
					t.Errorf("%s: verify %+v", s.Name, s.Verify)
				}
				if len(s.EngineStats) == 0 {
					t.Errorf("%s: no engine stats", s.Name)
				}
				switch {
				case s.Name == "l.i1" || s.Name == "l.i2":
					want := p.RowsI1
					if s.Name == "l.i2" {
						want = p.RowsI2
					}
					if ins, del := s.Ops["insert"].Units, s.Ops["delete"].Units; ins != want || del != want {
						t.Errorf("%s inserted %d and deleted %d rows, want %d each", s.Name, ins, del, want)
					}
				case s.Name == "scan": // l.x inserts a batch before it indexes, as the reference
					for _, ph := range s.Phases {
						if want := p.Rows + int64(p.BatchI0); ph.Rows != want {
							t.Errorf("scan %s read %d rows, want %d", ph.Name, ph.Rows, want)
						}
					}
				case s.Name[0] == 'q':
					q := s.Ops["query"]
					if q == nil || q.Units == 0 {
						t.Errorf("%s ran no query: %+v", s.Name, q)
						continue
					}
					want := p.QueryRows
					if s.Name[1] == 'p' {
						want = p.PointIDs
					}
					if avg := float64(q.Found) / float64(q.Units); avg < 0.8*float64(want) {
						t.Errorf("%s found %.1f rows per query, want about %d", s.Name, avg, want)
					}
				}
			}
		})
	}
}
