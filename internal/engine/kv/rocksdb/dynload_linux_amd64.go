//go:build rocksdb && cgo

package rocksdb

// On x86-64 Linux the binary does not link librocksdb: grocksdb's C code and cgo wrappers call
// librocksdb's functions, and the linker resolves those calls to the trampolines of
// rocksdb_trampolines_linux_amd64.S, whose table load fills the first time the engine is
// checked or opened (package dynlib). grocksdb's own #cgo LDFLAGS still name -lrocksdb (and
// its compression libraries); -Wl,--as-needed here comes before them on the link line, because
// the linker passes this package's LDFLAGS before those of the packages it imports, so the
// linker records none of them as needed: nothing is taken from them.

/*
#cgo LDFLAGS: -Wl,--as-needed

extern void *enginebench_rocksdb_table[];
extern const char enginebench_rocksdb_names[];

static void **eb_rocksdb_table(void) { return enginebench_rocksdb_table; }
static const char *eb_rocksdb_names(void) { return enginebench_rocksdb_names; }
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine/kv/dynlib"
)

//go:generate go run ../dynlib/dyngen -from github.com/linxGnu/grocksdb -prefix rocksdb_ -name rocksdb -soname librocksdb.so.7.8 -build "rocksdb && cgo" -o rocksdb_trampolines_linux_amd64.S

// soname is the library the engine loads (librocksdb-dev 7.8's, which grocksdb v1.7.10 is built
// against), and debPackage the Debian package that installs it.
const (
	soname     = "librocksdb.so.7.8"
	debPackage = "librocksdb7.8"
)

// loaded is the result of the one load of librocksdb, made on first use.
var loaded = sync.OnceValue(func() error { return load(soname) })

// available loads librocksdb the first time it is called, and says why the engine cannot run if
// that failed.
func available() error { return loaded() }

// load loads the library called name (soname; tests pass a missing one) and fills the
// trampolines' table. RocksDB's C API has no version call; the soname carries the major and
// minor versions, and Version reads the full one from the OPTIONS file.
func load(name string) error {
	return dynlib.Library{Soname: name, Package: debPackage,
		Table: unsafe.Pointer(C.eb_rocksdb_table()), Names: unsafe.Pointer(C.eb_rocksdb_names())}.Load()
}
