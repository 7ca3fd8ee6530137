package kvtest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/prometheus/procfs"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/enginetest"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// ResidentMB returns the test process's resident memory in MiB after a garbage collection, for
// tests that check a binding frees what its C library allocates; it skips the test where /proc
// cannot tell.
func ResidentMB(t testing.TB) float64 {
	t.Helper()
	runtime.GC()
	p, err := procfs.Self()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	st, err := p.Stat()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return float64(st.ResidentMemory()) / (1 << 20)
}

// ResidentGrowth runs round warmup times, then rounds times, and returns by how many MiB the
// resident memory grew over the rounds (ResidentMB before and after), for the leak tests of the
// cgo engines; it logs the growth.
func ResidentGrowth(t testing.TB, warmup, rounds int, round func()) float64 {
	t.Helper()
	for range warmup {
		round()
	}
	base := ResidentMB(t)
	for range rounds {
		round()
	}
	grown := ResidentMB(t) - base
	t.Logf("resident memory grew by %.1f MiB over %d rounds", grown, rounds)
	return grown
}

// writeReadClose writes n keys (k000000 on) with value val in one batch, reads one back, counts
// them and closes d: one round of the cgo engines' leak tests (ResidentGrowth), which must free
// what each of these steps takes from the C library.
func writeReadClose(t testing.TB, d kv.DB, n int, val []byte) {
	t.Helper()
	b := d.NewBatch()
	for i := range n {
		b.Set(fmt.Appendf(nil, "k%06d", i), val)
	}
	if err := errors.Join(b.Commit(), b.Close()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get([]byte("k000007"), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := kv.Count(context.Background(), d, nil, nil); err != nil || got != int64(n) {
		t.Fatalf("count %d, %v, want %d", got, err, n)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// Reopens is a leak test of an engine that binds a C library: after Warmup rounds, Rounds times,
// the engine is opened with Settings on one directory and given writeReadClose with Keys keys of
// ValueBytes bytes; over those rounds the resident memory may grow by LimitMB at the most.
type Reopens struct {
	Settings                         map[string]string
	Keys, ValueBytes, Warmup, Rounds int
	LimitMB                          float64
}

// CheckReopens runs the leak test r on the engine of d; it is skipped under -short.
func CheckReopens(t *testing.T, d engine.Driver, r Reopens) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%d reopens", r.Rounds)
	}
	dir := t.TempDir()
	val := make([]byte, r.ValueBytes)
	round := func() {
		writeReadClose(t, enginetest.Open(t, context.Background(), d, "", r.Settings, dir).(kv.DB), r.Keys, val)
	}
	if grown := ResidentGrowth(t, r.Warmup, r.Rounds, round); grown > r.LimitMB {
		t.Errorf("resident memory grew by %.1f MiB over %d reopens, more than %v MiB", grown, r.Rounds, r.LimitMB)
	}
}
