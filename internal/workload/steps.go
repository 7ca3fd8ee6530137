package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/enginebench/enginebench/internal/result"
)

// SetupFailed returns the result of step name that ended with err outside the runner (its
// setup): interrupted when ctx, the run's context, ended, else failed with err.
func SetupFailed(ctx context.Context, name string, start time.Time, err error) *result.Step {
	if ctx.Err() != nil {
		return &result.Step{Name: name, Status: result.StatusInterrupted, Error: "interrupted", StartedAt: start}
	}
	return &result.Step{Name: name, Status: result.StatusFailed, Error: err.Error(), StartedAt: start}
}

// Emit emits st and returns what it means for the run: nil when the step ended ok or was
// skipped, context.Canceled when it was interrupted, else an error that names the step.
func Emit(emit func(*result.Step), st *result.Step) error {
	emit(st)
	switch st.Status {
	case result.StatusOK, result.StatusSkipped:
		return nil
	case result.StatusInterrupted:
		return context.Canceled
	}
	return fmt.Errorf("step %s failed: %s", st.Name, st.Error)
}
