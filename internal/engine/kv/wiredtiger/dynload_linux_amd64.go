//go:build wiredtiger && cgo

package wiredtiger

// On x86-64 Linux the binary does not link libwiredtiger: the C code of wiredtiger.go calls its
// entry points through the trampolines of wiredtiger_trampolines_linux_amd64.S, and load fills
// their table the first time the engine is checked or opened (package dynlib). -Wl,--as-needed
// keeps the linker from recording libwiredtiger as needed for the -lwiredtiger of pkg-config.

/*
#cgo LDFLAGS: -Wl,--as-needed
extern void *enginebench_wiredtiger_table[];
extern const char enginebench_wiredtiger_names[];

static void **eb_wt_table(void) { return enginebench_wiredtiger_table; }
static const char *eb_wt_names(void) { return enginebench_wiredtiger_names; }
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine/kv/dynlib"
)

//go:generate go run ../dynlib/dyngen -from . -tags wiredtiger -prefix wiredtiger_ -name wiredtiger -soname libwiredtiger.so.0 -build "wiredtiger && cgo" -o wiredtiger_trampolines_linux_amd64.S

// soname is the library the engine loads, and debPackage the Debian package that installs it.
const (
	soname     = "libwiredtiger.so.0"
	debPackage = "libwiredtiger0"
)

// loaded is the result of the one load of libwiredtiger, made on first use.
var loaded = sync.OnceValue(func() error { return load(soname) })

// available loads libwiredtiger the first time it is called, and says why the engine cannot run
// if that failed.
func available() error { return loaded() }

// load loads the library called name (soname; tests pass a missing one) and fills the
// trampolines' table.
func load(name string) error {
	return dynlib.Library{Soname: name, Package: debPackage,
		Table: unsafe.Pointer(C.eb_wt_table()), Names: unsafe.Pointer(C.eb_wt_names())}.Load()
}
