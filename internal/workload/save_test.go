package workload

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/testfs"
)

// stepsWorkload emits its steps in turn, calling between[i] (when set) after step i.
type stepsWorkload struct {
	fakeWorkload
	steps   []string
	between map[int]func()
}

func (w stepsWorkload) Run(ctx context.Context, env Env, eng engine.Engine, emit func(*result.Step)) error {
	for i, name := range w.steps {
		emit(&result.Step{Name: name, Status: result.StatusOK})
		if f := w.between[i]; f != nil {
			f()
		}
	}
	return nil
}

// TestExecuteSaysWhenResultsCannotBeWritten: on a full filesystem the save after a step fails
// and says so at once on the log; the run goes on, and the next save, once there is room,
// writes everything (each file holds the whole run) and says so too.
func TestExecuteSaysWhenResultsCannotBeWritten(t *testing.T) {
	fs := testfs.Tmpfs(t, "12m")
	dir := filepath.Join(fs, "run")
	var log bytes.Buffer
	var free func()
	var afterFull string
	w := stepsWorkload{fakeWorkload: fakeWorkload{t: t, dir: dir}, steps: []string{"one", "two", "three"}}
	w.between = map[int]func(){
		0: func() { free = testfs.Fill(t, fs) },        // step two's save fails
		1: func() { afterFull = log.String(); free() }, // step three's succeeds
	}
	p := plan(t, w.fakeWorkload, "only")
	p.Workload, p.Env.Log = w, &log
	run, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatalf("Execute: %v (the last save had room)", err)
	}
	if !strings.Contains(afterFull, "enginebench: CANNOT WRITE RESULTS in "+dir) || !strings.Contains(afterFull, "no space left on device") {
		t.Errorf("the failed save was not announced when it failed:\n%s", afterFull)
	}
	if !strings.Contains(log.String(), "results written again in "+dir+": nothing is lost") {
		t.Errorf("the recovery was not announced:\n%s", log.String())
	}
	saved, err := result.LoadDir(dir)
	if err != nil || saved.Status != result.StatusOK || len(saved.Configs) != 1 || len(saved.Configs[0].Steps) != 3 {
		t.Fatalf("run.json after the recovery: %+v, %v", saved, err)
	}
	if len(run.Configs[0].Steps) != 3 {
		t.Errorf("the run lost steps: %+v", run.Configs[0].Steps)
	}
}
