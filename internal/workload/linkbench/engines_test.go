package linkbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/embeddedtest"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/engine/sqldb/sqldbtest"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/workload"
	"github.com/enginebench/enginebench/internal/workload/linkbench/profile"
	"github.com/enginebench/enginebench/internal/workload/workloadtest"
)

// tinyParams are the tiny preset with short intervals.
func tinyParams(t *testing.T) Params {
	t.Helper()
	p, err := DefaultParams("tiny")
	if err != nil {
		t.Fatal(err)
	}
	p.IntervalSeconds = 1
	return p
}

// mustNew returns the workload of p, failing the test when p is not valid.
func mustNew(t testing.TB, p Params) *Workload {
	t.Helper()
	w, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// smallDegrees gives p a small out-degree CDF (at most 20 links a node), for a test whose
// assertions do not depend on the load's size: the reference's CDF gives its top node the
// CDF's maximum, about a million links, at any size.
func smallDegrees(t *testing.T, p *Params) {
	t.Helper()
	p.DistributionFile = filepath.Join(t.TempDir(), "nlinks.dat")
	if err := os.WriteFile(p.DistributionFile, []byte("nlinks\n0 40\n1 60\n3 80\n8 95\n20 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runOn runs w on eng and returns every step's result and Run's error.
func runOn(t testing.TB, ctx context.Context, w *Workload, eng engine.Engine, samplers ...runner.Sampler) ([]*result.Step, error) {
	t.Helper()
	return workloadtest.Run(ctx, w, eng, &runner.Runner{Clock: runner.SystemClock(), Samplers: samplers})
}

// open opens a fresh engine of driver d in a temporary directory.
func open(t *testing.T, ctx context.Context, d engine.Driver, settings map[string]string, dir string) engine.Engine {
	t.Helper()
	return enginetest.Open(t, ctx, d, "", settings, dir)
}

// checkRun checks a whole run: load (and index) then the intervals, all ok, verified at the end
// only (--verify end), with requests of every kind and links listed.
func checkRun(t *testing.T, p Params, steps []*result.Step, err error) {
	t.Helper()
	checkRunOf(t, p, steps, err, 200)
}

// checkRunOf is checkRun on an engine whose intervals run at least minRequests requests.
func checkRunOf(t *testing.T, p Params, steps []*result.Step, err error, minRequests int64) {
	t.Helper()
	if err != nil {
		for _, s := range steps {
			t.Logf("%s: %s %s", s.Name, s.Status, s.Error)
		}
		t.Fatal(err)
	}
	want := []string{"load"}
	if p.DeferIndex {
		want = append(want, "index")
	}
	if p.WarmupSeconds > 0 {
		want = append(want, "warmup")
	}
	for i := 1; i <= p.Intervals; i++ {
		want = append(want, "run."+string(rune('0'+i)))
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("steps %v, want %v", got, want)
	}
	for _, s := range steps {
		if s.Status != result.StatusOK {
			t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
		}
	}
	load := steps[0]
	for _, s := range steps[:len(steps)-1] {
		if s.Verify != nil {
			t.Errorf("%s verified before the last step: %+v", s.Name, s.Verify)
		}
	}
	if n := load.Ops["node"].Units; n != p.Nodes() {
		t.Errorf("load wrote %d nodes, want %d", n, p.Nodes())
	}
	if l := load.Ops["link"].Units; l < p.Nodes() {
		t.Errorf("load wrote %d links for %d nodes: the out-degree mean is about 4", l, p.Nodes())
	}
	last := steps[len(steps)-1]
	if last.Verify == nil || !last.Verify.OK {
		t.Errorf("%s: verify %+v", last.Name, last.Verify)
	}
	var total, lists, found int64
	for _, s := range steps[len(steps)-p.Intervals:] {
		total += s.Ops["requests"].Units
		lists += s.Ops["GET_LINKS_LIST"].Count
		found += s.Ops["GET_LINKS_LIST"].Found
		if s.Primary != "requests" || s.Ops["requests"].PerSec <= 0 {
			t.Errorf("%s: primary %q %+v", s.Name, s.Primary, s.Ops["requests"])
		}
	}
	if total < minRequests || lists == 0 || found == 0 {
		t.Errorf("the intervals ran %d requests, %d GET_LINKS_LIST returning %d rows", total, lists, found)
	}
}

// TestEmbeddedEngines runs every step at tiny scale on SQLite and Pebble: once as the
// published runs do, once loading without id1_type and building it in the index step, with a
// warmup, the fb2017 profile and expunging deletes.
func TestEmbeddedEngines(t *testing.T) {
	for _, d := range embeddedtest.Drivers() {
		for _, deferred := range []bool{false, true} {
			name := d.Name
			if deferred {
				name += "/deferred-index"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				kvtest.RequireBuilt(t, d)
				p := tinyParams(t)
				if deferred {
					p.DeferIndex, p.WarmupSeconds, p.Profile, p.Expunge = true, 0.5, "fb2017", true
					p.Variant = workload.Corrected // --expunge is a correction
				}
				w := mustNew(t, p)
				ctx := context.Background()
				steps, err := runOn(t, ctx, w, open(t, ctx, d, nil, t.TempDir()))
				checkRun(t, w.p, steps, err)
			})
		}
	}
}

// TestServerEngines runs every step at tiny scale on managed postgres, innodb and myrocks.
func TestServerEngines(t *testing.T) {
	sqldbtest.Each(t, sqldbtest.Servers(), func(t *testing.T, c sqldbtest.Server, ctx context.Context) {
		eng, _ := c.Start(t, ctx, false)
		p := tinyParams(t)
		p.DeferIndex = c.Driver.Name == "myrocks" // as the MyRocks-era runs load
		w := mustNew(t, p)
		steps, err := runOn(t, ctx, w, eng, workload.EngineStats{Engine: eng.(engine.Statser)})
		checkRun(t, w.p, steps, err)
		for _, s := range steps {
			if len(s.EngineStats) == 0 {
				t.Errorf("%s: no engine stats", s.Name)
			}
		}
	})
}

// TestNullEngineRunsEveryOp runs the request mix on the null engine: every operation type is
// drawn and nothing fails; verification is skipped because null stores nothing.
func TestNullEngineRunsEveryOp(t *testing.T) {
	ctx := context.Background()
	eng := open(t, ctx, null.Driver(), nil, t.TempDir())
	p := tinyParams(t)
	p.Intervals, p.IntervalSeconds = 1, 0.5
	w := mustNew(t, p)
	steps, err := runOn(t, ctx, w, eng)
	if err != nil {
		t.Fatal(err)
	}
	run := steps[len(steps)-1]
	for op := profile.Op(0); op < profile.Op(profile.NumOps); op++ {
		if o := run.Ops[op.String()]; o == nil || o.Count == 0 || o.Errors != 0 {
			t.Errorf("%s: %+v", op, o)
		}
	}
	if run.Verify != nil {
		t.Errorf("null engine verified: %+v", run.Verify)
	}
}

// lossy is a KV engine that drops every write but does not say so, so verification must
// catch it.
type lossy struct{ kv.DB }

func TestVerificationCatchesLostRows(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, verify := range []workload.Verify{workload.VerifyEachStep, workload.VerifyEnd} {
		p := tinyParams(t)
		p.MaxID1, p.Verify, p.Intervals, p.IntervalSeconds = 1001, verify, 1, 0.2
		w := mustNew(t, p)
		steps, err := runOn(t, context.Background(), w, lossy{eng.(kv.DB)})
		// each-step stops at the load; end finds the loss after run.1.
		want := map[workload.Verify]int{workload.VerifyEachStep: 1, workload.VerifyEnd: 2}[verify]
		if err == nil || len(steps) != want {
			t.Fatalf("--verify %s: err %v, %d steps, want a failure in step %d", verify, err, len(steps), want)
		}
		s := steps[len(steps)-1]
		if s.Status != result.StatusFailed || s.Verify == nil || s.Verify.OK ||
			!strings.Contains(s.Verify.Detail, "expected") || !strings.Contains(s.Error, "verification failed") {
			t.Errorf("--verify %s: %s: status %s, error %q, verify %+v", verify, s.Name, s.Status, s.Error, s.Verify)
		}
	}
}

// TestVerifyPolicy runs load, index and two intervals on Pebble: verified once after the last
// step by default, after every step with --verify each-step; --steps load verifies the load.
func TestVerifyPolicy(t *testing.T) {
	for _, tt := range []struct {
		verify workload.Verify
		steps  []string
		want   string // the steps verified
	}{
		{workload.VerifyEnd, nil, "run.2"},
		{workload.VerifyEachStep, nil, "load,index,run.1,run.2"},
		{workload.VerifyEnd, []string{"load"}, "index"},
	} {
		ctx := context.Background()
		p := tinyParams(t)
		p.MaxID1, p.Verify, p.DeferIndex, p.IntervalSeconds = 1001, tt.verify, true, 0.2
		smallDegrees(t, &p)
		if tt.steps != nil {
			p.Steps = tt.steps
		}
		w := mustNew(t, p)
		steps, err := runOn(t, ctx, w, open(t, ctx, pebble.Driver(), nil, t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range steps {
			if s.Verify != nil {
				if !s.Verify.OK {
					t.Errorf("%s: %+v", s.Name, s.Verify)
				}
				got = append(got, s.Name)
			}
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("--verify %s --steps %v: verified %v, want %s", tt.verify, tt.steps, got, tt.want)
		}
	}
}

// TestRequestLimitAndRate runs requesters with a request limit under an open-loop rate: each
// does exactly its requests, the run ends early, and response time is recorded.
func TestRequestLimitAndRate(t *testing.T) {
	ctx := context.Background()
	eng := open(t, ctx, pebble.Driver(), nil, t.TempDir())
	p := tinyParams(t)
	p.MaxID1 = 2001
	p.Intervals, p.IntervalSeconds = 3, 2
	p.Requests, p.RequestRate = 150, 200 // 0.75 s at the rate: all done within run.1
	w := mustNew(t, p)
	steps, err := runOn(t, ctx, w, eng)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[1].Name != "run.1" {
		t.Fatalf("steps %d, want load and run.1 only", len(steps))
	}
	run := steps[1]
	if got := run.Ops["requests"].Count + run.Ops["requests"].Errors; got != int64(p.Requesters)*p.Requests {
		t.Errorf("%d requests, want %d", got, int64(p.Requesters)*p.Requests)
	}
	if run.Ops["requests"].Response == nil {
		t.Error("no response time under a request rate")
	}
	if run.Verify == nil || !run.Verify.OK {
		t.Errorf("the last step run is verified: %+v", run.Verify)
	}
}

// engineConfig is the configuration of an engine that needs no directory (null).
func engineConfig() engine.Config { return engine.Config{Name: "null", Engine: "null"} }

// TestKeysStayInDeclaredRanges checks that the load and the requests write no key outside the
// ranges the store declares (a table or index each): an engine that keeps ranges apart
// (WiredTiger) routes by them.
func TestKeysStayInDeclaredRanges(t *testing.T) {
	db := enginetest.Open(t, context.Background(), pebble.Driver(), "", nil, t.TempDir()).(kv.DB)
	rc := &kvtest.RangeChecked{DB: db}
	p := tinyParams(t)
	smallDegrees(t, &p)
	steps, err := runOn(t, context.Background(), mustNew(t, p), rc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Status != result.StatusOK {
			t.Errorf("%s: %s %s", s.Name, s.Status, s.Error)
		}
	}
	if n := len(rc.Check(t)); n != 4 {
		t.Errorf("%d ranges declared, want 4 (3 tables and the id1_type index)", n)
	}
}
