//go:build rocksdb && cgo

package rocksdb

/*
#cgo CXXFLAGS: -std=c++17
#include <stdlib.h>

char *eb_rocksdb_version(void);
char *eb_rocksdb_compressions(void);
*/
import "C"

import (
	"unsafe"

	"github.com/enginebench/enginebench/internal/engine"
)

// grocksdbModule is the Go module that binds librocksdb.
const grocksdbModule = "github.com/linxGnu/grocksdb"

// build returns the linked librocksdb's version and compressions, and grocksdb's module
// (build.cc asks the library).
func build() map[string]string {
	b := engine.EmbeddedBuild("rocksdb", takeCString(C.eb_rocksdb_version()), grocksdbModule)
	if c := takeCString(C.eb_rocksdb_compressions()); c != "" {
		b[engine.BuildCompressions] = c
	}
	return b
}

// takeCString returns the malloc'ed C string p as a Go string and frees it ("" for NULL).
func takeCString(p *C.char) string {
	if p == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}
