package main

import (
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// checkServerCounters checks that the efficiency of run's steps was filled from the server's
// own counters (filled in when part 2 of issue 36 is merged).
func checkServerCounters(t *testing.T, run *result.Run, summary string) {
	t.Helper()
}
