package kvtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv"
)

// RequireBuilt skips the test when the engine of d is not built into this test binary (an
// engine behind a build tag, such as lmdb without -tags lmdb), saying how to build it in.
// `make test` builds every engine whose library is installed, and CI installs them all.
func RequireBuilt(t testing.TB, d engine.Driver) {
	t.Helper()
	if d.Available == nil || d.Server {
		return
	}
	if err := d.Available(); err != nil {
		t.Skipf("%s: %v", d.Name, err)
	}
}

// CheckNotBuilt checks that d, an engine behind build tag tag that the test binary was built
// without, is listed as not built with the command that builds it in, and refuses to open.
func CheckNotBuilt(t *testing.T, d engine.Driver, tag string) {
	t.Helper()
	if err := d.Available(); err == nil || !strings.Contains(err.Error(), "-tags "+tag) {
		t.Errorf("Available: %v", err)
	}
	if _, err := d.Open(context.Background(), engine.Config{DataDir: t.TempDir()}); err == nil {
		t.Error("opened an engine that is not built in")
	}
}

// Cleanup runs c's Cleanup with hooks that keep its notes and count its waits, fails t on
// error, and checks that it noted one thing that contains want and called Wait at most once.
func Cleanup(t testing.TB, c engine.Cleaner, want string) {
	t.Helper()
	var notes []string
	waits := 0
	h := engine.CleanupHooks{
		Wait: func(ctx context.Context) error { waits++; return ctx.Err() },
		Note: func(n string) { notes = append(notes, n) },
	}
	if err := c.Cleanup(context.Background(), h); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], want) || waits > 1 {
		t.Errorf("Cleanup noted %q and waited %d times, want one note with %q and at most one wait", notes, waits, want)
	}
}

// CheckClose checks how d closes: Close refuses while an iterator is open and closes once it is
// closed; afterwards Get and a second Close fail with kv.ErrClosed.
func CheckClose(t testing.TB, d kv.DB) {
	t.Helper()
	it, err := d.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), "iterators are still open") {
		t.Errorf("close under an iterator: %v", err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Get([]byte("k"), nil); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("get after close: %v", err)
	}
	if err := d.Close(); !errors.Is(err, kv.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// CheckCapDefaults checks d's CapDefaults at caps of 256 MiB, 1 GiB and 4 GiB: they pass the
// registry's check, and the memory mem computes from them (the engine's caches and buffers at
// their largest, or an error when they say something else is wrong) takes between a quarter
// and three quarters of the cap; the rest is the harness's and the page cache's.
func CheckCapDefaults(t *testing.T, d engine.Driver, mem func(settings map[string]string) (int64, error)) {
	t.Helper()
	reg, err := engine.NewRegistry(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, capBytes := range []int64{256 << 20, 1 << 30, 4 << 30} {
		cd := d.CapDefaults(capBytes)
		if err := reg.Check(engine.Config{Engine: d.Name, Settings: cd}); err != nil {
			t.Fatalf("cap of %d MiB: %v", capBytes>>20, err)
		}
		m, err := mem(cd)
		if err != nil {
			t.Errorf("cap of %d MiB: %v", capBytes>>20, err)
			continue
		}
		if m < capBytes/4 || m > capBytes*3/4 {
			t.Errorf("cap of %d MiB: caches and buffers of %d MiB", capBytes>>20, m>>20)
		}
	}
}
