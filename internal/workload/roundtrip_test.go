package workload

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/runner"
)

// The round trips are timed on the runner's clock after the untimed ones, and their
// percentiles are ranks of the sorted times.
func TestTimeRoundTrips(t *testing.T) {
	clock := runner.NewManualClock(time.Unix(1000, 0))
	calls := 0
	// The k-th call takes k microseconds (the warm ones too: they must not count).
	ping := func(context.Context) error {
		calls++
		clock.Advance(time.Duration(calls) * time.Microsecond)
		return nil
	}
	rt, err := timeRoundTrips(context.Background(), clock, ping, 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 103 || rt.Samples != 100 {
		t.Fatalf("%d calls, %d samples; want 103 and 100", calls, rt.Samples)
	}
	// Timed calls 4..103 took 4..103 us.
	if rt.MinUs != 4 || rt.P50Us != 53 || rt.P99Us != 102 || rt.MaxUs != 103 {
		t.Errorf("min %v p50 %v p99 %v max %v; want 4, 53, 102, 103", rt.MinUs, rt.P50Us, rt.P99Us, rt.MaxUs)
	}
	boom := errors.New("boom")
	if _, err := timeRoundTrips(context.Background(), clock, func(context.Context) error { return boom }, 3, 10); !errors.Is(err, boom) {
		t.Errorf("a failing ping: %v", err)
	}
}
