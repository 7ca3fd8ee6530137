//go:build wiredtiger && cgo

package wiredtiger

/*
#include <wiredtiger.h>
#include <wiredtiger_ext.h>

// The entry points of WiredTiger's snappy and zlib compressors (libwiredtiger_snappy.a and
// libwiredtiger_zlib.a). They are weak: make release links the archives into the binary (and
// they are then set); otherwise they are NULL and WiredTiger loads the compressors' shared
// modules.
extern int snappy_extension_init(WT_CONNECTION *, WT_CONFIG_ARG *) __attribute__((weak));
extern int zlib_extension_init(WT_CONNECTION *, WT_CONFIG_ARG *) __attribute__((weak));

static int eb_snappy_linked(void) { return snappy_extension_init != NULL; }
static int eb_zlib_linked(void) { return zlib_extension_init != NULL; }
*/
import "C"

// compressorLinked reports whether the compressor called name (snappy or zlib) is linked into
// the binary.
func compressorLinked(name string) bool {
	switch name {
	case "snappy":
		return C.eb_snappy_linked() != 0
	case "zlib":
		return C.eb_zlib_linked() != 0
	}
	return false
}

// extensionConfig is the wiredtiger_open configuration that loads the compressor called name
// ("" for none): WiredTiger finds a linked compressor's entry point in the binary itself
// ("local"), and otherwise loads its module, libwiredtiger_<name>.so (Debian's libwiredtiger0).
func extensionConfig(name string) string {
	switch {
	case name == "none":
		return ""
	case compressorLinked(name):
		return ",extensions=[local=(entry=" + name + "_extension_init)]"
	}
	return ",extensions=[libwiredtiger_" + name + ".so]"
}
