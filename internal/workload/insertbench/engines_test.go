package insertbench

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/bbolt"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/lmdb"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/kv/rocksdb"
	"github.com/enginebench/enginebench/internal/engine/kv/wiredtiger"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
)

// runSteps runs p on a freshly opened engine and returns every step's result.
func runSteps(t *testing.T, d engine.Driver, p Params) []*result.Step {
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
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var steps []*result.Step
	err = (&Workload{p: p}).Run(context.Background(), env, eng, func(s *result.Step) { steps = append(steps, s) })
	if err != nil {
		for _, s := range steps {
			t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
		}
		t.Fatal(err)
	}
	return steps
}

func drivers() []engine.Driver {
	return []engine.Driver{sqldb.SQLiteDriver(), pebble.Driver(), bbolt.Driver(), lmdb.Driver(), rocksdb.Driver(), wiredtiger.Driver()}
}

// TestSharedTableAndSmallBatches runs the write steps with two clients on one table, where
// two deleters share a table, and checks the counts through every index.
func TestSharedTableAndSmallBatches(t *testing.T) {
	for _, d := range drivers() {
		t.Run(d.Name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
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
				if writes(s.Name) && (s.Verify == nil || !s.Verify.OK) {
					t.Errorf("%s: verify %+v", s.Name, s.Verify)
				}
			}
			li1 := steps[2]
			if ins, del := li1.Ops["insert"].Units, li1.Ops["delete"].Units; ins != 2000 || del != 2000 {
				t.Errorf("l.i1 inserted %d and deleted %d rows, want 2000 each", ins, del)
			}
			scan := steps[4]
			for _, ph := range scan.Phases {
				if ph.Rows != 3000 {
					t.Errorf("scan %s read %d rows, want 3000 (the table stays the size of the load)", ph.Name, ph.Rows)
				}
			}
		})
	}
}

// TestQueryStepsFindRows runs a point and a range query step and checks that queries find
// what the table holds and that the background writer kept its rate.
func TestQueryStepsFindRows(t *testing.T) {
	for _, d := range drivers() {
		t.Run(d.Name, func(t *testing.T) {
			p, _ := DefaultParams("tiny")
			p.Rows = 5000
			p.QuerySeconds = 1
			p.Steps = []string{"l.i0", "l.x", "cleanup", "qr100", "qp100"}
			steps := runSteps(t, d, p)
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
				if s.Target == nil || !s.Target.SLAMet {
					t.Errorf("%s: background writer missed 100 rows/s: %+v", s.Name, s.Target)
				}
				if s.Probe == nil || len(s.Probe.Tables) != 1 {
					t.Errorf("%s: probe %+v", s.Name, s.Probe)
				}
			}
		})
	}
}

// lossy is a KV engine that drops every write but does not say so (it hides null's
// Discarder), so verification must catch it.
type lossy struct{ kv.DB }

func TestVerificationCatchesLostRows(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := DefaultParams("tiny")
	p.Rows = 500
	p.Steps = []string{"l.i0", "l.x"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var steps []*result.Step
	err = (&Workload{p: p}).Run(context.Background(), env, lossy{eng.(kv.DB)}, func(s *result.Step) { steps = append(steps, s) })
	if err == nil || len(steps) != 1 {
		t.Fatalf("run did not stop at the first step: err %v, %d steps", err, len(steps))
	}
	s := steps[0]
	if s.Status != result.StatusFailed || s.Verify == nil || s.Verify.OK ||
		!strings.Contains(s.Verify.Detail, "expected 500, pk=0") || !strings.Contains(s.Error, "verification failed") {
		t.Errorf("step %s: status %s, error %q, verify %+v", s.Name, s.Status, s.Error, s.Verify)
	}
}

// TestKeysStayInDeclaredRanges checks that the workload declares a range per table and index
// and writes no key outside them: an engine that keeps ranges apart (WiredTiger) routes by them.
func TestKeysStayInDeclaredRanges(t *testing.T) {
	db := kvtest.OpenEngine(t, pebble.Driver(), t.TempDir(), nil).(kv.DB)
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
