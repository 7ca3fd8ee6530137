package engine

import "runtime/debug"

// ModuleVersion returns the version of the Go module path built into the binary (e.g. "v1.1.5",
// or its replacement's), or unknown when the binary carries no module information: the version
// of an engine that is a Go library.
func ModuleVersion(path, unknown string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return unknown
	}
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
	return unknown
}
