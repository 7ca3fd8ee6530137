package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// releaseForbidden are the shared libraries the release binary must not load: the tagged
// engines' libraries and their modules (libwiredtiger_snappy.so), their compression libraries
// and the C++ runtime, all of them linked statically by make release.
var releaseForbidden = regexp.MustCompile(`\b(librocksdb|liblmdb|libwiredtiger|libsnappy|liblz4|libzstd|libbz2|libz\.so|libgflags|libstdc\+\+)`)

// releaseRunLimit bounds each command the test runs: the build, and each tiny run.
const releaseRunLimit = 10 * time.Minute

// TestReleaseBinary builds the release binary with make release (the Makefile holds its link
// flags), checks with ldd that it needs none of the tagged engines' libraries nor their
// compression libraries, and runs it for real on lmdb, rocksdb and wiredtiger (WiredTiger with
// each of its compressors) under the dynamic loader's trace (LD_DEBUG=files): every run must
// succeed and load none of those libraries, not even with dlopen.
func TestReleaseBinary(t *testing.T) {
	integration(t, "builds the release binary (-short)")
	bin := buildRelease(t)
	out, err := exec.Command("ldd", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd %s: %v\n%s", bin, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if releaseForbidden.MatchString(line) {
			t.Errorf("the release binary needs %s", strings.TrimSpace(line))
		}
	}
	runRelease(t, bin, "lmdb,rocksdb,wiredtiger")
	runRelease(t, bin, "wiredtiger", "--set", "wiredtiger.compression=zlib")
}

// buildRelease runs make release into a temporary file and returns its path. Without make or
// the engines' libraries it skips the test, and fails it under CI=true.
func buildRelease(t *testing.T) string {
	t.Helper()
	missing := func(what string, err error) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v", what, err)
		}
		t.Skipf("%s: %v", what, err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		missing("make", err)
	}
	if out, err := exec.Command("pkg-config", "--exists", "lmdb", "rocksdb", "wiredtiger").CombinedOutput(); err != nil {
		missing("the lmdb, rocksdb and wiredtiger libraries (make deps installs them)", fmt.Errorf("%w %s", err, out))
	}
	bin := filepath.Join(t.TempDir(), "enginebench-release")
	ctx, cancel := context.WithTimeout(context.Background(), releaseRunLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "-C", filepath.Join("..", ".."), "release", "RELEASE_BIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	return bin
}

// runRelease runs the release binary's insert benchmark (l.i0 on 2,000 rows) on engines, with
// extra flags, under LD_DEBUG=files, and checks its exit status, that every configuration's
// status in run.json is ok, and that the loader loaded none of releaseForbidden.
func runRelease(t *testing.T, bin, engines string, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	trace := filepath.Join(dir, "ld")
	args := append([]string{"run", "--scale", "tiny", "--engines", engines, "--rows", "2000", "--steps", "l.i0",
		"--out", filepath.Join(dir, "out"), "--data-dir", filepath.Join(dir, "data")}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), releaseRunLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "LD_DEBUG=files", "LD_DEBUG_OUTPUT="+trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	checkRunStatus(t, filepath.Join(dir, "out", "run.json"), strings.Split(engines, ","))
	checkLoaded(t, trace, engines)
}

// checkRunStatus checks that run.json has a configuration of status ok for each engine.
func checkRunStatus(t *testing.T, path string, engines []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Status  string `json:"status"`
		Configs []struct {
			Engine string `json:"engine"`
			Status string `json:"status"`
		} `json:"configs"`
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ok := map[string]bool{}
	for _, c := range run.Configs {
		ok[c.Engine] = c.Status == "ok"
	}
	for _, e := range engines {
		if !ok[e] {
			t.Errorf("%s: engine %s did not run ok (run status %q): %s", path, e, run.Status, b)
		}
	}
}

// checkLoaded reads the loader's trace (files trace.PID, one per process) of a run on engines
// and fails when a library of releaseForbidden was loaded; it requires the trace to show libc,
// so that a loader that ignored LD_DEBUG does not pass for a clean run.
func checkLoaded(t *testing.T, trace, engines string) {
	t.Helper()
	files, err := filepath.Glob(trace + ".*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no loader trace %s.* (%v)", trace, err)
	}
	sawLibc := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, "file=") {
				continue
			}
			sawLibc = sawLibc || strings.Contains(line, "file=libc.so")
			if releaseForbidden.MatchString(line) {
				t.Errorf("the run on %s loaded a library it links statically: %s", engines, strings.TrimSpace(line))
			}
		}
	}
	if !sawLibc {
		t.Errorf("the loader's trace %v does not show libc being loaded: was LD_DEBUG honoured?", files)
	}
}
