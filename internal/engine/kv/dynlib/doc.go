// Package dynlib loads at run time the C library of an engine that is built in with a build
// tag, so that the binary starts where the library is not installed and the engine reports it
// missing (in enginebench engines, and when it is opened) instead of the binary not starting.
//
// A package calls the library's functions through trampolines that command dyngen generates
// (an assembly file, run by go generate): for every library function the package's C code and
// cgo wrappers call (or those of a binding it imports, such as grocksdb), a global function of
// the same name that jumps through one entry of a table. The linker resolves the calls to the
// trampolines, so the binary takes nothing from the library; with -Wl,--as-needed in the
// package's cgo LDFLAGS, ahead of the library's -l flag (cmd/link passes the cgo LDFLAGS of an
// importing package before those of the packages it imports, and -extldflags after all of
// them), the linker does not record the library as needed (no DT_NEEDED entry). Library.Load
// opens the library with dlopen and fills the table with dlsym; an engine does it once, the
// first time it is checked or opened.
//
// Only x86-64 Linux is supported (the trampolines are x86-64 code, and the binary must be linked
// by the external linker, the default for cgo); on other platforms the engines link their
// library as before, and the binary does not start without it.
package dynlib
