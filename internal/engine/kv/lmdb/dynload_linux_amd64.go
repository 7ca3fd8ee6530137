//go:build lmdb && cgo

package lmdb

// On x86-64 Linux the binary does not link liblmdb: the C code of lmdb.go calls liblmdb's
// functions through the trampolines of lmdb_trampolines_linux_amd64.S, and load fills their
// table the first time the engine is checked or opened (package dynlib). -Wl,--as-needed keeps
// the linker from recording liblmdb as needed for the -llmdb of pkg-config (which follows every
// #cgo LDFLAGS of the package).

/*
#cgo LDFLAGS: -Wl,--as-needed
#include <lmdb.h>

extern void *enginebench_lmdb_table[];
extern const char enginebench_lmdb_names[];

static void **eb_lmdb_table(void) { return enginebench_lmdb_table; }
static const char *eb_lmdb_names(void) { return enginebench_lmdb_names; }
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine/kv/dynlib"
)

//go:generate go run ../dynlib/dyngen -from . -tags lmdb -prefix mdb_ -name lmdb -soname liblmdb.so.0 -build "lmdb && cgo" -o lmdb_trampolines_linux_amd64.S

// soname is the library the engine loads, and debPackage the Debian package that installs it.
const (
	soname     = "liblmdb.so.0"
	debPackage = "liblmdb0"
)

// loaded is the result of the one load of liblmdb, made on first use.
var loaded = sync.OnceValue(func() error { return load(soname) })

// available loads liblmdb the first time it is called, and says why the engine cannot run if
// that failed.
func available() error { return loaded() }

// load loads the library called name (soname; tests pass a missing one), fills the trampolines'
// table and checks that the library is the LMDB version the binding was built against (the
// major and minor versions of lmdb.h: LMDB's structures are the same within them).
func load(name string) error {
	lib := dynlib.Library{Soname: name, Package: debPackage,
		Table: unsafe.Pointer(C.eb_lmdb_table()), Names: unsafe.Pointer(C.eb_lmdb_names())}
	if err := lib.Load(); err != nil {
		return err
	}
	var major, minor, patch C.int
	C.mdb_version(&major, &minor, &patch)
	if major != C.MDB_VERSION_MAJOR || minor != C.MDB_VERSION_MINOR {
		return fmt.Errorf("built in, but its library %s is LMDB %d.%d.%d and this binary was built against LMDB %d.%d (install %s, or run make deps)",
			name, major, minor, patch, C.MDB_VERSION_MAJOR, C.MDB_VERSION_MINOR, debPackage)
	}
	return nil
}
