package workload

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
)

// countingWorkload emits one step per configuration it runs and records the configurations'
// names; it cancels the run in the configuration numbered cancelAt (1-based; 0: never).
type countingWorkload struct {
	fakeWorkload
	ran      *[]string
	cancelAt int
	cancel   context.CancelFunc
}

func (w countingWorkload) Run(ctx context.Context, env Env, eng engine.Engine, emit func(*result.Step)) error {
	*w.ran = append(*w.ran, env.Runner.Config)
	if len(*w.ran) == w.cancelAt {
		w.cancel()
		emit(&result.Step{Name: "one", Status: result.StatusInterrupted})
		return ctx.Err()
	}
	emit(&result.Step{Name: "one", Status: result.StatusOK})
	return nil
}

// repeatPlan is a plan of configurations a and b on the null engine, repeated k times, whose
// driver fails to open a data directory that is not empty and leaves a file in each it opens.
func repeatPlan(t *testing.T, w countingWorkload, k int) (Plan, *[]string) {
	p := plan(t, w.fakeWorkload, "a", "b")
	p.Workload, p.Repeat, p.Keep = w, k, true
	var opened []string
	drv := null.Driver()
	open := drv.Open
	drv.Open = func(ctx context.Context, cfg engine.Config) (engine.Engine, error) {
		if entries, err := os.ReadDir(cfg.DataDir); err != nil || len(entries) != 0 {
			t.Errorf("%s: data directory %s not fresh: %v %v", cfg.Name, cfg.DataDir, entries, err)
		}
		opened = append(opened, cfg.DataDir)
		if err := os.WriteFile(filepath.Join(cfg.DataDir, "data"), nil, 0o644); err != nil {
			t.Error(err)
		}
		return open(ctx, cfg)
	}
	reg, err := engine.NewRegistry(drv)
	if err != nil {
		t.Fatal(err)
	}
	p.Registry = reg
	return p, &opened
}

func TestExecuteRepeatsInterleaved(t *testing.T) {
	var ran []string
	w := countingWorkload{fakeWorkload: fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run")}, ran: &ran}
	p, opened := repeatPlan(t, w, 3)
	run, err := Execute(context.Background(), p)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run %s: %v", run.Status, err)
	}
	want := []string{"a#1", "b#1", "a#2", "b#2", "a#3", "b#3"}
	if !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	for i, c := range run.Configs {
		base := want[i][:1]
		if c.Name != want[i] || c.Repeat == nil || *c.Repeat != (result.Repeat{Config: base, Index: i/2 + 1, Count: 3, Order: i + 1}) {
			t.Errorf("config %d: %s %+v", i, c.Name, c.Repeat)
		}
		if wantDir := p.Configs[i%2].DataDir + "#" + want[i][2:]; (*opened)[i] != wantDir {
			t.Errorf("%s opened %s, want %s", c.Name, (*opened)[i], wantDir)
		}
	}
	saved, err := result.Load(w.dir)
	if err != nil || len(saved.Configs) != 6 || saved.Configs[5].Repeat.Order != 6 {
		t.Errorf("run.json: %v, %+v", err, saved)
	}
}

func TestExecuteRepeatsStopOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran []string
	w := countingWorkload{fakeWorkload: fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run")}, ran: &ran, cancelAt: 3, cancel: cancel}
	p, _ := repeatPlan(t, w, 3)
	run, err := Execute(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusInterrupted || len(run.Configs) != 3 || !slices.Equal(ran, []string{"a#1", "b#1", "a#2"}) {
		t.Fatalf("run %s, ran %v, %d configs: an interrupt stops every repeat after it", run.Status, ran, len(run.Configs))
	}
	saved, err := result.Load(w.dir)
	if err != nil || len(saved.Configs) != 3 || saved.Configs[2].Status != result.StatusInterrupted || saved.Configs[1].Status != result.StatusOK {
		t.Errorf("run.json after the interrupt: %v %+v", err, saved)
	}
}
