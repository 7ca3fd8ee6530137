package insertbench

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv/pebble"
	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/runner"
	"github.com/enginebench/enginebench/internal/testfs"
	"github.com/enginebench/enginebench/internal/workload"
)

// TestPebbleFullDisk runs the Insert Benchmark on Pebble in a 6 MiB tmpfs: a step fails, at
// once, with the write that found the disk full, and the engine closes (the run waited forever
// in the cleanup's flush).
func TestPebbleFullDisk(t *testing.T) {
	dir := testfs.Tmpfs(t, "6m")
	eng := enginetest.Open(t, context.Background(), pebble.Driver(), "", nil, dir+"/pebble")
	p, _ := DefaultParams("tiny")
	p.Steps = []string{"l.i0", "l.x", "l.i1", "l.i2", "cleanup"}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	env := workload.Env{Log: io.Discard, Runner: &runner.Runner{Clock: runner.SystemClock()}}
	var last *result.Step
	err := (&Workload{p: p}).Run(context.Background(), env, eng, func(s *result.Step) { last = s })
	if err == nil || last == nil || last.Status != result.StatusFailed ||
		!strings.Contains(last.Error, "the disk is full") || !strings.Contains(last.Error, "no space left on device") {
		t.Fatalf("run: %v, last step %+v: want a step failed on the full disk", err, last)
	}
	t.Logf("%s: %s", last.Name, last.Error)
	if err := eng.Close(); err != nil && !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("close: %v", err)
	}
}
