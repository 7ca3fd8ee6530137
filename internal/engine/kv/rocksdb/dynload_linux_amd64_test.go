//go:build rocksdb && cgo

package rocksdb

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/dynlib"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestLibraryNotNeeded checks that the test binary, linked as the command is, records neither
// librocksdb nor the compression libraries of grocksdb's LDFLAGS as needed: it starts without
// them.
func TestLibraryNotNeeded(t *testing.T) {
	kvtest.NotNeeded(t, "librocksdb", "libstdc++", "libsnappy", "libzstd", "liblz4", "libz.")
}

// TestMissingLibrary points the engine at a library that does not exist: available's check and
// Open fail with the loader's message and the package to install, and the real library still
// loads afterwards.
func TestMissingLibrary(t *testing.T) {
	missing := func() error { return load("librocksdb-enginebench-missing.so.7.8") }
	const want = "built in, but its library is missing: librocksdb-enginebench-missing.so.7.8: cannot open shared object file: No such file or directory (install librocksdb7.8, or run make deps)"
	err := missing()
	var le *dynlib.Error
	if !errors.As(err, &le) || err.Error() != want {
		t.Fatalf("load of a missing library: %v\nwant: %s", err, want)
	}
	d, err := openLoaded(context.Background(), engine.Config{DataDir: t.TempDir()}, missing)
	if err == nil || err.Error() != "rocksdb: "+want {
		if d != nil {
			d.Close()
		}
		t.Fatalf("open with the library missing: %v", err)
	}
	if err := available(); err != nil {
		t.Fatalf("the real library: %v", err)
	}
	openTest(t, t.TempDir(), nil)
}

// TestCallBeforeLoad calls librocksdb through grocksdb before it is loaded, in a new process:
// the trampoline's stub names the function and aborts, instead of jumping to address 0.
func TestCallBeforeLoad(t *testing.T) {
	if os.Getenv("ROCKSDB_TEST_CALL_BEFORE_LOAD") == "1" {
		grocksdb.NewDefaultOptions() // rocksdb_options_create, before any load
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallBeforeLoad$")
	cmd.Env = append(os.Environ(), "ROCKSDB_TEST_CALL_BEFORE_LOAD=1")
	out, err := cmd.CombinedOutput()
	const want = "enginebench: rocksdb_options_create was called before librocksdb.so.7.8 was loaded"
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "SIGABRT") {
		t.Errorf("a call before the load: %v, want an abort saying %q:\n%.2000s", err, want, out)
	}
}
