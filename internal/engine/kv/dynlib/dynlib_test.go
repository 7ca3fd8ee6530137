//go:build linux && cgo

package dynlib

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"unsafe"
)

// names is a list of function names in the generated form: NUL-terminated, ended by an empty one.
func names(ns ...string) []byte { return []byte(strings.Join(ns, "\x00") + "\x00\x00") }

// library returns a Library of soname over a new table for ns, and the table.
func library(soname string, ns ...string) (Library, []uintptr) {
	table := make([]uintptr, len(ns))
	n := names(ns...)
	return Library{Soname: soname, Package: "pkg-" + soname, Table: unsafe.Pointer(&table[0]), Names: unsafe.Pointer(&n[0])}, table
}

// TestMissingLibrary checks the error of a library that does not exist: dlerror's text and the
// package to install, and the table left as it was.
func TestMissingLibrary(t *testing.T) {
	lib, table := library("libenginebench-missing.so.0", "cos")
	err := lib.Load()
	const want = "built in, but its library is missing: libenginebench-missing.so.0: cannot open shared object file: No such file or directory (install pkg-libenginebench-missing.so.0, or run make deps)"
	var le *Error
	if !errors.As(err, &le) || err.Error() != want || le.Symbol != "" {
		t.Fatalf("loading a missing library: %v\nwant: %s", err, want)
	}
	if table[0] != 0 {
		t.Error("the table was written")
	}
}

// TestMissingFunction checks that a library without one of the functions is refused, with the
// function named, and that no entry of the table is written.
func TestMissingFunction(t *testing.T) {
	lib, table := library("libm.so.6", "cos", "enginebench_no_such_function", "sin")
	err := lib.Load()
	var le *Error
	if !errors.As(err, &le) || le.Symbol != "enginebench_no_such_function" ||
		!strings.Contains(err.Error(), "built in, but its library is not the one it was built for: ") ||
		!strings.Contains(err.Error(), "undefined symbol: enginebench_no_such_function") ||
		!strings.HasSuffix(err.Error(), " (install pkg-libm.so.6, or run make deps)") {
		t.Fatalf("loading a library without a function: %v", err)
	}
	if table[0] != 0 || table[1] != 0 || table[2] != 0 {
		t.Errorf("the table was written: %x", table)
	}
}

// TestLoad loads libm, and each engine library whose development package is installed (as
// make decides which engines to build in), and checks that every entry of the table is filled.
func TestLoad(t *testing.T) {
	for _, c := range []struct {
		soname, pkgConfig string
		names             []string
	}{
		{"libm.so.6", "", []string{"cos", "sin", "sqrt"}},
		{"liblmdb.so.0", "lmdb", []string{"mdb_version", "mdb_env_create", "mdb_strerror"}},
		{"librocksdb.so.7.8", "rocksdb", []string{"rocksdb_open", "rocksdb_close", "rocksdb_options_create"}},
	} {
		t.Run(c.soname, func(t *testing.T) {
			if c.pkgConfig != "" && exec.Command("pkg-config", "--exists", c.pkgConfig).Run() != nil {
				t.Skipf("pkg-config finds no %s (make deps installs it)", c.pkgConfig)
			}
			lib, table := library(c.soname, c.names...)
			if err := lib.Load(); err != nil {
				t.Fatal(err)
			}
			for i, p := range table {
				if p == 0 || (i > 0 && p == table[i-1]) {
					t.Errorf("table %x: entry %d (%s) not filled", table, i, c.names[i])
				}
			}
			// A second load fills the same addresses.
			again, table2 := library(c.soname, c.names...)
			if err := again.Load(); err != nil || table2[0] != table[0] {
				t.Errorf("second load: %v, %x vs %x", err, table2, table)
			}
		})
	}
}
