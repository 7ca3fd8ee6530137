package insertbench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/server/servertest"
	"github.com/enginebench/enginebench/internal/engine/sqldb"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// TestServerEngines runs every step of the Insert Benchmark (scan too) at tiny scale (with
// short query steps) on a managed postgres, innodb and myrocks server, with verification after
// every write step (--verify each-step) and the engine's stats sampled as a run samples them.
func TestServerEngines(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, _ := c.Start(t, ctx, false)
		p, _ := DefaultParams("tiny")
		p.QuerySeconds = 1
		p.Steps, p.Verify = StepNames(), workload.VerifyEachStep
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		steps, err := workloadtest.Run(ctx, &Workload{p: p}, eng, &runner.Runner{
			Clock:    runner.SystemClock(),
			Samplers: []runner.Sampler{workload.EngineStats{Engine: eng.(engine.Statser)}},
		})
		if err != nil {
			for _, s := range steps {
				t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
			}
			t.Fatal(err)
		}
		if len(steps) != len(StepNames()) {
			t.Fatalf("%d steps ran, want %d", len(steps), len(StepNames()))
		}
		var inserted int64 // rows inserted so far: the largest transactionid
		for _, s := range steps {
			if ins := s.Ops["insert"]; ins != nil {
				inserted += ins.Units
			}
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
				want := float64(p.QueryRows)
				if s.Name[1] == 'p' {
					// Until the writer's first estimate of the smallest transactionid, point
					// queries draw from [0, max), as the reference's (iibench.py:1472, :1014):
					// at worst, under load, only the live share of those ids exists.
					live := float64(p.Rows + int64(p.BatchI0))
					want = float64(p.PointIDs) * min(1, live/float64(max(inserted, 1)))
				}
				if avg := float64(q.Found) / float64(q.Units); avg < 0.8*want {
					t.Errorf("%s found %.1f rows per query, want about %.1f", s.Name, avg, want)
				}
			}
		}
	})
}

// TestServerVerificationCatchesDamage runs the write steps on each managed server, in each
// variant, checks that verification passes, then damages pi1 through the server in the four ways
// of the issue at once (a secondary index column changed, a row deleted and another
// duplicated, 1000 rows altered, a row deleted) and checks that verification fails and counts
// each. Both variants run on one server per engine.
func TestServerVerificationCatchesDamage(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, _ := c.Start(t, ctx, false) // each variant's run creates its tables anew
		for _, v := range variants {
			t.Run(string(v), func(t *testing.T) {
				r := startRun(t, ctx, eng, damageParams(v))
				db := eng.(sqldb.DB).SQL()
				var first int64
				if err := db.QueryRowContext(ctx, "SELECT min(transactionid) FROM pi1").Scan(&first); err != nil {
					t.Fatal(err)
				}
				damages[3].sql(t, db, first) // customerid of first+7
				damages[0].sql(t, db, first) // first+50 deleted, first+70 duplicated
				damages[1].sql(t, db, first) // data of first+100 .. first+1099
				execSQL(t, db, fmt.Sprintf("DELETE FROM pi1 WHERE transactionid = %d", first+1500))
				res, err := r.verify(ctx, "l.i0")
				if err != nil || res == nil || res.OK || !strings.Contains(res.Detail, "(problems: missing 2, extra 1, altered 1001)") {
					t.Fatalf("verification after the damage: %+v", res)
				}
				t.Log(res.Detail)
			})
		}
	})
}

// TestServerPacketLimit runs the reference's text inserts on an InnoDB server whose
// max_allowed_packet is 1 MiB: inserts of 300 rows of up to 4000 bytes do not fit, and the run
// refuses before its first step, with a short error.
func TestServerPacketLimit(t *testing.T) {
	c := sqldbtest.InnoDB()
	c.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	eng := c.Open(t, ctx, c.Settings(map[string]string{"max_allowed_packet": "1048576"}), servertest.DataDir(t))
	p, _ := DefaultParams("tiny")
	p.BatchI0, p.DataMin, p.DataMax = 300, 3000, 4000
	w, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CheckEngine(c.Driver); err != nil {
		t.Fatalf("CheckEngine with the managed servers' 16 MiB: %v", err)
	}
	steps, err := workloadtest.Run(ctx, w, eng, nil)
	if err == nil || len(steps) != 0 || !strings.Contains(err.Error(), "--batch-l.i0 300") || !strings.Contains(err.Error(), "max_allowed_packet") {
		t.Fatalf("run: %v after %d steps, want a refusal before the first step", err, len(steps))
	}
	if len(err.Error()) > 300 {
		t.Errorf("error of %d bytes: %s", len(err.Error()), err)
	}
}
