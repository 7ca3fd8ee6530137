package workload

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
)

// fakeWorkload emits two steps; on the configuration named failOn its second step fails. It
// checks that run.json already holds the first step when the second starts.
type fakeWorkload struct {
	t      *testing.T
	dir    string
	failOn string
	cancel context.CancelFunc // when set, cancels the run during the first configuration
}

func (fakeWorkload) Name() string           { return "fake" }
func (fakeWorkload) Scale() string          { return "tiny" }
func (fakeWorkload) Params() map[string]any { return map[string]any{"x": 1} }
func (fakeWorkload) Fidelity() Fidelity     { return DefaultFidelity() }
func (fakeWorkload) Tables() []string       { return []string{"fake1", "fake2"} }

func (w fakeWorkload) Run(ctx context.Context, env Env, eng engine.Engine, emit func(*result.Step)) error {
	emit(&result.Step{Name: "one", Status: result.StatusOK})
	r, err := result.Load(w.dir)
	if err != nil || len(r.Configs[len(r.Configs)-1].Steps) != 1 {
		w.t.Errorf("run.json not written after the first step: %v", err)
	}
	if w.cancel != nil {
		w.cancel()
		emit(&result.Step{Name: "two", Status: result.StatusInterrupted})
		return ctx.Err()
	}
	cfgName := r.Configs[len(r.Configs)-1].Name
	if cfgName == w.failOn {
		emit(&result.Step{Name: "two", Status: result.StatusFailed, Error: "boom"})
		return errors.New("step two failed: boom")
	}
	emit(&result.Step{Name: "two", Status: result.StatusOK})
	return nil
}

func plan(t *testing.T, w fakeWorkload, names ...string) Plan {
	reg, err := engine.NewRegistry(null.Driver())
	if err != nil {
		t.Fatal(err)
	}
	dir, err := result.CreateDir(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Workload: w, Registry: reg, Dir: dir, Run: &result.Run{RunID: "x"},
		Env: Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}}
	for _, n := range names {
		dd := filepath.Join(t.TempDir(), n)
		os.MkdirAll(dd, 0o755)
		p.Configs = append(p.Configs, engine.Config{Name: n, Engine: "null", DataDir: dd})
	}
	return p
}

func TestExecuteGoesOnAfterAFailedConfig(t *testing.T) {
	w := fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run"), failOn: "first"}
	p := plan(t, w, "first", "second")
	run, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusFailed || len(run.Configs) != 2 {
		t.Fatalf("run status %s with %d configs", run.Status, len(run.Configs))
	}
	first, second := run.Configs[0], run.Configs[1]
	if first.Status != result.StatusFailed || first.Steps[1].Status != result.StatusFailed || first.Steps[1].Error != "boom" {
		t.Errorf("first config: %+v", first)
	}
	if second.Status != result.StatusOK || len(second.Steps) != 2 {
		t.Errorf("second config: %+v", second)
	}
	if _, err := os.Stat(p.Configs[0].DataDir); !os.IsNotExist(err) {
		t.Errorf("data directory not removed: %v", err)
	}
	saved, err := result.Load(w.dir)
	if err != nil || saved.Status != result.StatusFailed || saved.FinishedAt.IsZero() {
		t.Errorf("final run.json: %+v, %v", saved, err)
	}
}

func TestExecuteStopsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run"), cancel: cancel}
	run, err := Execute(ctx, plan(t, w, "first", "second"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusInterrupted || len(run.Configs) != 1 || run.Configs[0].Status != result.StatusInterrupted {
		t.Fatalf("run %s, configs %+v", run.Status, run.Configs)
	}
}

// goneEngine is an engine whose server has died.
type goneEngine struct{}

func (goneEngine) Family() engine.Family       { return engine.FamilyKV }
func (goneEngine) Version() string             { return "1" }
func (goneEngine) Settings() map[string]string { return nil }
func (goneEngine) Close() error                { return nil }
func (goneEngine) Alive() error                { return errors.New("server (pid 42) exited: killed") }

func TestFailedStepSaysTheServerIsGone(t *testing.T) {
	w := fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run"), failOn: "first"}
	p := plan(t, w, "first")
	reg, err := engine.NewRegistry(engine.Driver{Name: "gone", Family: engine.FamilyKV,
		Open: func(context.Context, engine.Config) (engine.Engine, error) { return goneEngine{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	p.Registry, p.Configs[0].Engine = reg, "gone"
	run, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	c := run.Configs[0]
	want := "server (pid 42) exited: killed; boom"
	if c.Status != result.StatusFailed || c.Steps[1].Error != want || c.Steps[0].Error != "" {
		t.Errorf("steps %+v: want the failed step's error %q", c.Steps, want)
	}
	if c.Error != "server (pid 42) exited: killed; step two failed: boom" {
		t.Errorf("config error %q", c.Error)
	}
}

func TestExecuteNeverRemovesAnExistingServersData(t *testing.T) {
	w := fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run")}
	p := plan(t, w, "managed", "existing")
	srv := null.Driver()
	srv.Name, srv.Server = "srv", true
	reg, err := engine.NewRegistry(null.Driver(), srv)
	if err != nil {
		t.Fatal(err)
	}
	p.Registry = reg
	p.Configs[1].Engine, p.Configs[1].DSN = "srv", "x"
	run, err := Execute(context.Background(), p)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run %s: %v %s", run.Status, err, run.Error)
	}
	if _, err := os.Stat(p.Configs[0].DataDir); !os.IsNotExist(err) {
		t.Errorf("managed data directory not removed: %v", err)
	}
	if _, err := os.Stat(p.Configs[1].DataDir); err != nil {
		t.Errorf("the existing server's data directory was removed: %v", err)
	}
}
