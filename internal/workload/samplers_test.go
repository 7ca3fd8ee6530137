package workload

import (
	"context"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/null"
	"github.com/enginebench/enginebench/internal/runner"
)

// blockingNull is the null engine marked as a server engine whose clients wait in blocking
// system calls, as the SQL servers' are.
type blockingNull struct{ engine.Engine }

func (blockingNull) BlockingClient() {}

// TestConfigRunnerWorkersWait: a configuration's runner gives its steps' workers processors of
// their own (runner.Runner.WorkersWait) on an engine whose clients block in system calls, and
// not on one that runs in the process.
func TestConfigRunnerWorkersWait(t *testing.T) {
	eng, err := null.Driver().Open(context.Background(), engine.Config{Name: "null", Engine: "null"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	base := &runner.Runner{Clock: runner.SystemClock()}
	for _, tt := range []struct {
		eng  engine.Engine
		want bool
	}{{eng, false}, {blockingNull{eng}, true}} {
		if r, _ := configRunner(base, tt.eng, t.TempDir()); r.WorkersWait != tt.want {
			t.Errorf("%T: WorkersWait %v, want %v", tt.eng, r.WorkersWait, tt.want)
		}
	}
	if base.WorkersWait {
		t.Error("the base runner was changed")
	}
}
