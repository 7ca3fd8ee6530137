//go:build linux && amd64 && cgo

package dynlib

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// engineLibs are the engines that load their library through this package: build tag, the
// pkg-config name of its development package, its soname, and the Debian package of its soname.
var engineLibs = []struct{ tag, pkgConfig, soname, deb string }{
	{"lmdb", "lmdb", "liblmdb.so.0", "liblmdb0"},
	{"rocksdb", "rocksdb", "librocksdb.so.7.8", "librocksdb7.8"},
	{"wiredtiger", "wiredtiger", "libwiredtiger.so.0", "libwiredtiger0"},
}

// buildBinary builds cmd/enginebench with the tags of the engines whose development packages
// are installed (as make does) and returns its path and the engines built in.
func buildBinary(t *testing.T) (string, []int) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	var tags []string
	var built []int
	for i, e := range engineLibs {
		if exec.Command("pkg-config", "--exists", e.pkgConfig).Run() == nil {
			tags = append(tags, e.tag)
			built = append(built, i)
		}
	}
	if len(tags) == 0 {
		t.Skip("pkg-config finds none of lmdb, rocksdb and wiredtiger (make deps installs them)")
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "enginebench")
	cmd := exec.Command("go", "build", "-tags", strings.Join(tags, " "), "-o", bin, "./cmd/enginebench")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %q: %v\n%s", tags, err, out)
	}
	return bin, built
}

// TestBinaryNeedsNoEngineLibrary builds the binary with the lmdb, rocksdb and wiredtiger tags and checks
// that it does not record their libraries as needed (readelf -d), that it starts and reports
// the engines available, and, where this test may create a mount namespace (root), that with
// the libraries hidden it still starts, reports each engine as built in but missing its
// library, and refuses to run it with exit status 2.
func TestBinaryNeedsNoEngineLibrary(t *testing.T) {
	bin, built := buildBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range needed {
		if strings.HasPrefix(lib, "liblmdb") || strings.HasPrefix(lib, "librocksdb") || strings.HasPrefix(lib, "libwiredtiger") {
			t.Errorf("the binary needs %s (DT_NEEDED): %v", lib, needed)
		}
	}
	for _, i := range built {
		e := engineLibs[i]
		out, err := exec.Command(bin, "engines", e.tag).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\nstate: available\n") {
			t.Errorf("enginebench engines %s: %v\n%s", e.tag, err, out)
		}
	}

	// Hide the libraries: in a private mount namespace, a directory of links to every file of
	// the library directory but the engines' libraries is mounted over it.
	libDir := "/usr/lib/x86_64-linux-gnu"
	if _, err := os.Stat(filepath.Join(libDir, "libc.so.6")); err != nil {
		t.Skipf("not a Debian multiarch library directory: %v", err)
	}
	if exec.Command("unshare", "--mount", "--propagation", "private", "true").Run() != nil {
		t.Skip("cannot create a mount namespace (needs root) to hide the libraries")
	}
	tmp := t.TempDir()
	// The library directory's second mount point is not in tmp, which is removed with its
	// contents: it is only ever removed empty, so that nothing could delete the libraries.
	orig, err := os.MkdirTemp("", "enginebench-libdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(orig) })
	script := `set -e
mkdir "$TMP/hidden"
mount --bind "$LIBDIR" "$ORIG"
for f in "$ORIG"/*; do
	case "${f##*/}" in liblmdb.so*|librocksdb.so*|libwiredtiger.so*) ;; *) ln -s "$f" "$TMP/hidden/" ;; esac
done
mount --bind "$TMP/hidden" "$LIBDIR"
for e in $ENGINES; do
	"$BIN" engines $e
	status=0
	"$BIN" run --scale tiny --engines $e --out "$TMP/results-$e" --data-dir "$TMP/data-$e" >/dev/null 2>"$TMP/run-$e" || status=$?
	echo "run $e: exit $status: $(cat "$TMP/run-$e")"
done
`
	var engines []string
	for _, i := range built {
		engines = append(engines, engineLibs[i].tag)
	}
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "TMP="+tmp, "ORIG="+orig, "LIBDIR="+libDir, "BIN="+bin, "ENGINES="+strings.Join(engines, " "))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("with the libraries hidden: %v\n%s", err, out)
	}
	for _, i := range built {
		e := engineLibs[i]
		missing := "built in, but its library is missing: " + e.soname +
			": cannot open shared object file: No such file or directory (install " + e.deb + ", or run make deps)"
		if !strings.Contains(string(out), "state: not available: "+missing+"\n") {
			t.Errorf("enginebench engines %s with its library hidden does not say %q:\n%s", e.tag, missing, out)
		}
		if !strings.Contains(string(out), "run "+e.tag+": exit 2: ") || !strings.Contains(string(out), missing) {
			t.Errorf("enginebench run --engines %s with its library hidden: want exit 2 and %q:\n%s", e.tag, missing, out)
		}
	}
}
