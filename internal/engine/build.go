package engine

import "runtime/debug"

// The keys of an embedded engine's Build (docs/engines.md, Build provenance). A key whose value
// is not known is left out, never recorded empty.
const (
	// BuildLibrary is the storage library's name: "sqlite", "pebble", "rocksdb", ...
	BuildLibrary = "library"
	// BuildLibraryVersion is the library's version as the linked library reports it (for a
	// library in Go, its module's version), e.g. "3.46.1", "v1.1.5".
	BuildLibraryVersion = "library_version"
	// BuildLibraryBanner is the library's own version string, where it has one, e.g.
	// "WiredTiger 3.2.1: (August 27, 2019)".
	BuildLibraryBanner = "library_banner"
	// BuildCompileOptions are the options the library was compiled with, space-separated
	// (SQLite's PRAGMA compile_options).
	BuildCompileOptions = "compile_options"
	// BuildCompressions are the compression libraries the library was built with,
	// space-separated (RocksDB's supported compressions).
	BuildCompressions = "compressions"
	// BuildModule is the Go module through which the engine reaches its library: the driver or
	// binding (github.com/mattn/go-sqlite3), or the library itself (go.etcd.io/bbolt).
	BuildModule = "go_module"
	// BuildModuleVersion is that module's version, from the binary's build information.
	BuildModuleVersion = "go_module_version"
)

// ModuleVersion returns the version of the Go module path built into the binary (e.g. "v1.1.5",
// or its replacement's), or unknown when the binary carries no module information: the version
// of an engine that is a Go library.
func ModuleVersion(path, unknown string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return unknown
	}
	if v := moduleVersion(bi, path); v != "" {
		return v
	}
	return unknown
}

// moduleVersion returns the version of the module path among bi's dependencies, its
// replacement's where it has one, or "" when bi does not say.
func moduleVersion(bi *debug.BuildInfo, path string) string {
	for _, dep := range bi.Deps {
		if dep.Path != path {
			continue
		}
		if dep.Replace != nil && dep.Replace.Version != "" {
			return dep.Replace.Version
		}
		if dep.Version != "" && dep.Version != "(devel)" {
			return dep.Version
		}
	}
	return ""
}

// EmbeddedBuild returns the Build of an embedded engine: the library called library of version
// version, reached through the Go module module ("" for a binding inside enginebench) with the
// module's version where the binary records it. Empty values are left out.
func EmbeddedBuild(library, version, module string) map[string]string {
	b := map[string]string{}
	put := func(k, v string) {
		if v != "" {
			b[k] = v
		}
	}
	put(BuildLibrary, library)
	put(BuildLibraryVersion, version)
	put(BuildModule, module)
	if module != "" {
		put(BuildModuleVersion, ModuleVersion(module, ""))
	}
	return b
}
