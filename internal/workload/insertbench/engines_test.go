package insertbench

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// runSteps runs p on a freshly opened engine and returns every step's result.
func runSteps(t *testing.T, d engine.Driver, p Params) []*result.Step {
	t.Helper()
	return runStepsOn(t, d, p, runner.SystemClock())
}

// runStepsOn is runSteps with the runner on clock.
func runStepsOn(t *testing.T, d engine.Driver, p Params, clock runner.Clock) []*result.Step {
	t.Helper()
	kvtest.RequireBuilt(t, d)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := reg.Open(context.Background(), engine.Config{Name: d.Name, Engine: d.Name, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	steps, err := workloadtest.Run(context.Background(), &Workload{p: p}, eng, &runner.Runner{Clock: clock})
	if err != nil {
		for _, s := range steps {
			t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
		}
		t.Fatal(err)
	}
	return steps
}

// drivers are the embedded engines every test runs on.
func drivers() []engine.Driver { return embeddedtest.Drivers() }

// variants are the two variants, each test runs under both.
var variants = []workload.Variant{workload.Reference, workload.Corrected}

// TestSharedTableAndSmallBatches runs the write steps with two clients on one table, where
// two writers share a table, and checks the counts through every index after the last step.
func TestSharedTableAndSmallBatches(t *testing.T) {
	for _, d := range drivers() {
		for _, v := range variants {
			t.Run(d.Name+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				p, _ := DefaultParams("tiny")
				p.Variant = v
				p.Clients, p.SharedTable = 2, true
				p.Rows, p.RowsI1, p.RowsI2 = 3000, 2000, 500
				p.BatchI1 = 7 // batches that do not divide the rows
				p.Resync = 10
				p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2", "scan"}
				steps := runSteps(t, d, p)
				for _, s := range steps {
					if s.Status != result.StatusOK {
						t.Fatalf("%s: %s %s", s.Name, s.Status, s.Error)
					}
					if last := s.Name == "scan"; (s.Verify != nil) != last || last && !s.Verify.OK {
						t.Errorf("%s: verify %+v, want one after the last step only", s.Name, s.Verify)
					}
				}
				// Each client writes whole batches: ceil(1000/7) of 7 rows, as the reference's rounds.
				li1 := steps[2]
				if ins, del := li1.Ops["insert"].Units, li1.Ops["delete"].Units; ins != 2*1001 || del != 2*1001 {
					t.Errorf("l.i1 inserted %d and deleted %d rows, want 2002 each", ins, del)
				}
				// The reference's l.x inserts one batch of BatchI0 rows before it indexes.
				want := p.Rows + int64(p.BatchI0)
				if v == workload.Corrected {
					want = p.Rows
				}
				for _, ph := range steps[4].Phases {
					if ph.Rows != want {
						t.Errorf("scan %s read %d rows, want %d (the table stays the size of the load)", ph.Name, ph.Rows, want)
					}
				}
			})
		}
	}
}

// TestQueryStepsFindRows runs a point and a range query step and checks that queries find
// what the table holds, that each writer wrote what the variant says (the reference: rate x
// QuerySeconds rows) and that each step has its min(transactionid) probe. The reference
// variant runs on the manual clock: its writers' rate limit moves virtual time, and its
// query clients stop when the writers are done. The corrected variant's step lasts
// QuerySeconds of real time, and nothing here asserts a rate: on the manual clock its makers'
// rate limit moves the clock to the step's end before the inserters and the query clients
// have run (TestCorrectedStepEndClaimsNothingUnrun runs it there), and a synctest bubble's
// clock never moves while the query clients, which wait for nothing, run.
func TestQueryStepsFindRows(t *testing.T) {
	for _, d := range drivers() {
		for _, v := range variants {
			t.Run(d.Name+"/"+string(v), func(t *testing.T) {
				p, _ := DefaultParams("tiny")
				p.Variant = v
				p.Rows = 5000
				p.QuerySeconds = 1
				p.Steps = []string{"l.i0", "l.x", "cleanup", "qr100", "qp100"}
				clock := runner.SystemClock()
				if v == workload.Reference {
					clock = runner.NewManualClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
				}
				steps := runStepsOn(t, d, p, clock)
				for _, s := range steps[3:] {
					q := s.Ops["query"]
					if s.Status != result.StatusOK || q == nil || q.Units == 0 {
						t.Fatalf("%s: %s %s %+v", s.Name, s.Status, s.Error, q)
					}
					want := int64(p.QueryRows) // every range query reads QueryRows entries unless it starts near the end
					if s.Name == "qp100" {
						want = int64(p.PointIDs) // ids are drawn from the live range, so nearly all exist
					}
					if avg := float64(q.Found) / float64(q.Units); avg < 0.8*float64(want) {
						t.Errorf("%s found %.1f rows per query, want about %d", s.Name, avg, want)
					}
					ins, del := s.Ops["insert"], s.Ops["delete"]
					if v == workload.Reference && (ins.Units != 100 || del.Units != 100) {
						t.Errorf("%s: wrote %d and deleted %d rows, want 100 x 1 s each", s.Name, ins.Units, del.Units)
					}
					if ins.Units == 0 || ins.Response == nil || s.Target == nil || s.Target.InsertsPerSec != 100 {
						t.Errorf("%s: insert %+v, target %+v", s.Name, ins, s.Target)
					}
					if s.Probe == nil || len(s.Probe.Tables) != 1 {
						t.Errorf("%s: probe %+v", s.Name, s.Probe)
					}
				}
			})
		}
	}
}

// lossy is a KV engine that drops every write but does not say so (it hides null's
// Discarder), so verification must catch it.
type lossy struct{ kv.DB }

// TestVerificationCatchesLostRows checks that verification fails the step after which it
// runs, after every write step with --verify each-step; with --verify end, l.x, which reads
// every row to index it, fails first.
func TestVerificationCatchesLostRows(t *testing.T) {
	for _, c := range []struct {
		verify workload.Verify
		steps  int    // steps run: the run stops at the step whose verification fails
		detail string // l.x's reference insert of BatchI0 rows counts at the end
	}{
		{workload.VerifyEachStep, 1, "expected 500 pk=0 (problems: missing 1): 500 rows missing (the table is empty)"},
		{workload.VerifyEnd, 2, "create indexes on pi1: read 0 rows, the table must hold 600"},
	} {
		t.Run(string(c.verify), func(t *testing.T) {
			eng, err := null.Driver().Open(context.Background(), engine.Config{})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := DefaultParams("tiny")
			p.Rows = 500
			p.Steps = []string{"l.i0", "l.x"}
			p.Verify = c.verify
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			steps, err := workloadtest.Run(context.Background(), &Workload{p: p}, lossy{eng.(kv.DB)}, nil)
			if err == nil || len(steps) != c.steps {
				t.Fatalf("run did not stop at step %d: err %v, %d steps", c.steps, err, len(steps))
			}
			if c.steps == 2 && steps[0].Verify != nil {
				t.Errorf("l.i0 verified with --verify end: %+v", steps[0].Verify)
			}
			s := steps[c.steps-1]
			if s.Status != result.StatusFailed || !strings.Contains(s.Error, c.detail) {
				t.Errorf("step %s: status %s, error %q, verify %+v", s.Name, s.Status, s.Error, s.Verify)
			}
			if c.steps == 1 && (s.Verify == nil || s.Verify.OK || !strings.Contains(s.Error, "verification failed")) {
				t.Errorf("step %s: error %q, verify %+v: want a failed verification", s.Name, s.Error, s.Verify)
			}
		})
	}
}

// TestKeysStayInDeclaredRanges checks that the workload declares a range per table and index
// and writes no key outside them: an engine that keeps ranges apart (WiredTiger) routes by them.
func TestKeysStayInDeclaredRanges(t *testing.T) {
	db := enginetest.Open(t, context.Background(), pebble.Driver(), "", nil, t.TempDir()).(kv.DB)
	rc := &kvtest.RangeChecked{DB: db}
	p, _ := DefaultParams("tiny")
	p.Clients, p.Rows, p.RowsI1, p.RowsI2 = 2, 2000, 1000, 500
	p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	err := (&Workload{p: p}).Run(context.Background(), env, rc, func(s *result.Step) {
		if s.Status != result.StatusOK {
			t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ranges := rc.Check(t)
	names := map[string]bool{}
	for _, r := range ranges {
		names[r.Name] = r.Secondary
	}
	for _, tbl := range []string{"pi1", "pi2"} {
		for idx, name := range indexNames {
			if sec, ok := names[tbl+"_"+name]; !ok || sec != (idx != idxPK) {
				t.Errorf("range %s_%s: declared %v, secondary %v", tbl, name, ok, sec)
			}
		}
	}
	if len(ranges) != 2*numIndexes {
		t.Errorf("%d ranges declared, want %d", len(ranges), 2*numIndexes)
	}
}

// TestNullEngineRuns runs every step on the null engine, which keeps nothing: the steps that
// read every row (l.x, scan) do not hold what it reads against what was written, and nothing
// is verified.
func TestNullEngineRuns(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := DefaultParams("tiny")
	p.Rows, p.RowsI1, p.RowsI2 = 500, 500, 100
	p.Steps, p.Verify = []string{"l.i0", "l.x", "l.i1", "l.i2", "cleanup", "scan"}, workload.VerifyEachStep
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	err = (&Workload{p: p}).Run(context.Background(), env, eng, func(s *result.Step) {
		if s.Status != result.StatusOK && s.Status != result.StatusSkipped || s.Verify != nil {
			t.Errorf("%s: %s %q, verify %+v", s.Name, s.Status, s.Error, s.Verify)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorrectedStepEndClaimsNothingUnrun: a corrected-variant query step ends at its Duration
// with the deletes its makers made but its deleters did not run. On the manual clock the end
// comes as soon as the makers' rate limit has moved the clock there, before the deleters ran
// most of their deletes. A delete claims its range of the table when it runs, so the rows of
// an unrun delete stay in the table's estimate: verification after each step finds no row
// that was counted as deleted while it is still there.
func TestCorrectedStepEndClaimsNothingUnrun(t *testing.T) {
	for _, d := range drivers() {
		t.Run(d.Name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
			p.Variant, p.Verify = workload.Corrected, workload.VerifyEachStep
			p.Rows, p.QuerySeconds = 5000, 1
			p.Steps = []string{"l.i0", "l.x", "qr100", "qp100", "qr500"}
			for _, s := range runStepsOn(t, d, p, runner.NewManualClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))) {
				if s.Status != result.StatusOK || s.Verify == nil || !s.Verify.OK {
					t.Errorf("%s: %s %s, verify %+v", s.Name, s.Status, s.Error, s.Verify)
				}
			}
		})
	}
}
