package workload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// TestEmit checks what each step status means for the run: ok and skipped go on, interrupted
// is context.Canceled, failed stops the run with an error that names the step; the step is
// emitted each time.
func TestEmit(t *testing.T) {
	wants := map[string]string{ // by status; "": no error
		result.StatusOK:          "",
		result.StatusSkipped:     "",
		result.StatusInterrupted: context.Canceled.Error(),
		result.StatusFailed:      "step l.i0 failed: disk full",
	}
	for status, want := range wants {
		var emitted []*result.Step
		st := &result.Step{Name: "l.i0", Status: status, Error: "disk full"}
		err := Emit(func(s *result.Step) { emitted = append(emitted, s) }, st)
		if got := errString(err); got != want || len(emitted) != 1 || emitted[0] != st {
			t.Errorf("%s: error %q after %d emitted, want %q after 1", status, got, len(emitted), want)
		}
	}
}

// TestSetupFailed checks that a setup error fails the step, unless the run's context ended:
// then the step is interrupted.
func TestSetupFailed(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := SetupFailed(context.Background(), "load", start, errors.New("create tables: no space"))
	if st.Name != "load" || st.Status != result.StatusFailed || st.Error != "create tables: no space" || !st.StartedAt.Equal(start) {
		t.Errorf("failed setup: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st = SetupFailed(ctx, "load", start, errors.New("create tables: context canceled"))
	if st.Status != result.StatusInterrupted || st.Error != "interrupted" {
		t.Errorf("setup after the run's end: %+v", st)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
