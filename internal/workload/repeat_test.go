package workload

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/result"
)

// countingWorkload emits one step per configuration it runs and records the configurations'
// names; it cancels the run in the configuration numbered cancelAt (1-based; 0: never). With
// rate, the step's headline rate is rate of the configuration's name.
type countingWorkload struct {
	fakeWorkload
	ran      *[]string
	cancelAt int
	cancel   context.CancelFunc
	rate     func(config string) float64
}

func (w countingWorkload) Run(ctx context.Context, env Env, eng engine.Engine, emit func(*result.Step)) error {
	*w.ran = append(*w.ran, env.Runner.Config)
	if len(*w.ran) == w.cancelAt {
		w.cancel()
		emit(&result.Step{Name: "one", Status: result.StatusInterrupted})
		return ctx.Err()
	}
	s := &result.Step{Name: "one", Status: result.StatusOK}
	if w.rate != nil {
		s.Primary, s.Ops = "insert", map[string]*result.Op{"insert": {PerSec: w.rate(env.Runner.Config)}}
	}
	emit(s)
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

// t975 are Student's t quantiles t(0.975, df) from published tables (NIST/SEMATECH
// e-Handbook of Statistical Methods, 1.3.6.7.2), not from the code under test.
var t975 = map[int]float64{2: 4.302653, 3: 3.182446, 4: 2.776445}

// handWidth works out by hand the relative half-width in percent of the 95% interval of the
// geometric mean of ratios: 100·(exp(t·s/√n) - 1), s the standard deviation of their logs.
func handWidth(ratios []float64) float64 {
	n := float64(len(ratios))
	var m, ss float64
	for _, r := range ratios {
		m += math.Log(r) / n
	}
	for _, r := range ratios {
		ss += (math.Log(r) - m) * (math.Log(r) - m)
	}
	return 100 * (math.Exp(t975[len(ratios)-1]*math.Sqrt(ss/(n-1))/math.Sqrt(n)) - 1)
}

// roundOf is the round of a repeat's name, "b#3": 3.
func roundOf(t *testing.T, name string) int {
	_, k, _ := strings.Cut(name, "#")
	n, err := strconv.Atoi(k)
	if err != nil {
		t.Fatalf("%s: not a repeat's name", name)
	}
	return n
}

// autoPlan is a repeatPlan of a and b under --repeat auto with target pct and at most max
// rounds, whose b runs ratios[k-1] times as fast as a's 1000 ops/s in round k.
func autoPlan(t *testing.T, ratios []float64, pct float64, max int, cancelAt int, cancel context.CancelFunc) (Plan, *[]string) {
	var ran []string
	w := countingWorkload{fakeWorkload: fakeWorkload{t: t, dir: filepath.Join(t.TempDir(), "run")}, ran: &ran, cancelAt: cancelAt, cancel: cancel,
		rate: func(config string) float64 {
			if strings.HasPrefix(config, "b#") {
				return 1000 * ratios[roundOf(t, config)-1]
			}
			return 1000
		}}
	p, _ := repeatPlan(t, w, max)
	p.Auto = &AutoRepeat{TargetPct: pct}
	return p, &ran
}

// checkAuto checks the record of --repeat auto in the run and in its run.json, and that every
// repeat's count is the rounds run.
func checkAuto(t *testing.T, p Plan, run *result.Run, rounds int, stopped string) {
	t.Helper()
	ra := run.RepeatAuto
	if ra == nil || ra.Rounds != rounds || ra.Stopped != stopped || ra.MaxRounds != p.Repeat || ra.MinRounds != MinAutoRounds || ra.Base != "a" || ra.TargetPct != p.Auto.TargetPct {
		t.Fatalf("repeat_auto %+v, want %d rounds of at most %d, stopped %q, base a", ra, rounds, p.Repeat, stopped)
	}
	for _, c := range run.Configs {
		if c.Repeat.Count != rounds {
			t.Errorf("%s: count %d, want the %d rounds run", c.Name, c.Repeat.Count, rounds)
		}
	}
	saved, err := result.Load(p.Dir.Path())
	if err != nil || saved.RepeatAuto == nil || saved.RepeatAuto.Stopped != stopped || saved.RepeatAuto.Rounds != rounds {
		t.Errorf("run.json's repeat_auto: %v %+v", err, saved)
	}
}

// TestRepeatAutoStopsWhenConfidenceMet runs rounds whose ratios of b to a are 1.02, 0.98, 1
// and 1: the interval after round 3 is wider than the target and after round 4 narrower (as
// worked out here), so the run stops after round 4, with the width it judged.
func TestRepeatAutoStopsWhenConfidenceMet(t *testing.T) {
	ratios := []float64{1.02, 0.98, 1, 1, 1, 1}
	w3, w4 := handWidth(ratios[:3]), handWidth(ratios[:4])
	target := 4.0
	if !(w3 > target && w4 < target) {
		t.Fatalf("fixture: widths %v after round 3 and %v after round 4 do not straddle %v", w3, w4, target)
	}
	p, ran := autoPlan(t, ratios, target, 6, 0, nil)
	run, err := Execute(context.Background(), p)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run %s: %v", run.Status, err)
	}
	if want := []string{"a#1", "b#1", "a#2", "b#2", "a#3", "b#3", "a#4", "b#4"}; !slices.Equal(*ran, want) {
		t.Errorf("ran %v, want %v: four rounds, interleaved", *ran, want)
	}
	checkAuto(t, p, run, 4, result.StoppedConfidenceMet)
	if got := run.RepeatAuto.Widths["b"]; got == nil || math.Abs(*got-w4) > 1e-4*w4 {
		t.Errorf("width of b %v, want %v", got, w4)
	}
}

// TestRepeatAutoStopsAtTheMaximum runs rounds too noisy for the target: the run stops after
// the maximum count of rounds and says so.
func TestRepeatAutoStopsAtTheMaximum(t *testing.T) {
	ratios := []float64{1.5, 0.7, 1.4, 0.8, 1.3}
	p, ran := autoPlan(t, ratios, 5, 5, 0, nil)
	run, err := Execute(context.Background(), p)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run %s: %v", run.Status, err)
	}
	if len(*ran) != 10 {
		t.Errorf("ran %v, want five rounds of a and b", *ran)
	}
	checkAuto(t, p, run, 5, result.StoppedMaximumReached)
	if got := run.RepeatAuto.Widths["b"]; got == nil || math.Abs(*got-handWidth(ratios)) > 1e-4*handWidth(ratios) {
		t.Errorf("width of b %v, want %v", got, handWidth(ratios))
	}
}

// TestRepeatAutoNeverJudgesBeforeRound3 checks that ratios identical from the first round (a
// zero-width interval after two) still run the minimum rounds.
func TestRepeatAutoNeverJudgesBeforeRound3(t *testing.T) {
	p, ran := autoPlan(t, []float64{1.1, 1.1, 1.1, 1.1}, 5, 4, 0, nil)
	run, err := Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(*ran) != 2*MinAutoRounds {
		t.Errorf("ran %v, want the %d rounds of the minimum", *ran, MinAutoRounds)
	}
	checkAuto(t, p, run, MinAutoRounds, result.StoppedConfidenceMet)
}

// TestRepeatAutoStopsOnInterrupt interrupts the run in a#3: it stops there and says it was
// interrupted.
func TestRepeatAutoStopsOnInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, ran := autoPlan(t, []float64{1.5, 0.7, 1.4, 0.8, 1.3}, 5, 5, 5, cancel)
	run, err := Execute(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a#1", "b#1", "a#2", "b#2", "a#3"}; !slices.Equal(*ran, want) || run.Status != result.StatusInterrupted {
		t.Errorf("ran %v (%s), want %v interrupted", *ran, run.Status, want)
	}
	checkAuto(t, p, run, 3, result.StoppedInterrupted)
}
