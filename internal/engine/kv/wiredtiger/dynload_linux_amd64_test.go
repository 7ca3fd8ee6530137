//go:build wiredtiger && cgo

package wiredtiger

import (
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestLibraryLoadedAtRunTime checks that the binary does not need libwiredtiger to start (it
// loads it when the engine is first used) and that a library that cannot be loaded is reported
// with the loader's message and the package to install.
func TestLibraryLoadedAtRunTime(t *testing.T) {
	kvtest.NotNeeded(t, "libwiredtiger")
	if err := available(); err != nil {
		t.Fatalf("the installed library: %v", err)
	}
	err := load("libwiredtiger-not-here.so.0")
	if err == nil || !strings.Contains(err.Error(), "built in, but its library is missing: libwiredtiger-not-here.so.0: cannot open shared object file") || !strings.Contains(err.Error(), "install libwiredtiger0") {
		t.Errorf("a missing library: %v", err)
	}
	if err := load("libz.so.1"); err == nil || !strings.Contains(err.Error(), "not the one it was built for: ") || !strings.Contains(err.Error(), "undefined symbol: wiredtiger_open") {
		t.Errorf("a library without WiredTiger's entry points: %v", err)
	}
	// The failed loads left the loaded entry points alone.
	d := openTest(t, t.TempDir(), nil)
	if _, _, err := d.Get([]byte("k"), nil); err != nil {
		t.Errorf("get after the failed loads: %v", err)
	}
}
