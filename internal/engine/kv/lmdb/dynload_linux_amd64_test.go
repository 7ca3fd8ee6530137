//go:build lmdb && cgo

package lmdb

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
	"github.com/enginebench/enginebench/internal/engine/kv/dynlib"
	"github.com/enginebench/enginebench/internal/engine/kv/kvtest"
)

// TestLibraryNotNeeded checks that the test binary, linked as the command is, does not record
// liblmdb as needed: it starts without it.
func TestLibraryNotNeeded(t *testing.T) {
	kvtest.NotNeeded(t, "liblmdb")
}

// TestMissingLibrary points the engine at a library that does not exist: available's check and
// Open fail with the loader's message and the package to install, and the real library still
// loads afterwards.
func TestMissingLibrary(t *testing.T) {
	missing := func() error { return load("liblmdb-enginebench-missing.so.0") }
	const want = "built in, but its library is missing: liblmdb-enginebench-missing.so.0: cannot open shared object file: No such file or directory (install liblmdb0, or run make deps)"
	err := missing()
	var le *dynlib.Error
	if !errors.As(err, &le) || err.Error() != want {
		t.Fatalf("load of a missing library: %v\nwant: %s", err, want)
	}
	d, err := openLoaded(context.Background(), engine.Config{DataDir: t.TempDir()}, missing)
	if err == nil || err.Error() != "lmdb: "+want {
		if d != nil {
			d.Close()
		}
		t.Fatalf("open with the library missing: %v", err)
	}
	if err := available(); err != nil {
		t.Fatalf("the real library: %v", err)
	}
	d = openTest(t, t.TempDir(), nil)
	if v := d.Version(); !strings.HasPrefix(v, "0.9.") {
		t.Errorf("version %q", v)
	}
}

// TestCallBeforeLoad calls liblmdb before it is loaded, in a new process: the trampoline's stub
// names the function and aborts, instead of jumping to address 0.
func TestCallBeforeLoad(t *testing.T) {
	if os.Getenv("LMDB_TEST_CALL_BEFORE_LOAD") == "1" {
		(&db{}).Version() // mdb_version, before any load
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallBeforeLoad$")
	cmd.Env = append(os.Environ(), "LMDB_TEST_CALL_BEFORE_LOAD=1")
	out, err := cmd.CombinedOutput()
	const want = "enginebench: mdb_version was called before liblmdb.so.0 was loaded"
	if err == nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "SIGABRT") {
		t.Errorf("a call before the load: %v, want an abort saying %q:\n%.2000s", err, want, out)
	}
}
