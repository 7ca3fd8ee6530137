package engine

import (
	"maps"
	"runtime/debug"
	"testing"
)

func TestModuleVersionFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "example.com/plain", Version: "v1.2.3"},
		{Path: "example.com/replaced", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1"}},
		{Path: "example.com/local", Version: "v1.0.0", Replace: &debug.Module{Path: "../local"}},
		{Path: "example.com/devel", Version: "(devel)"},
	}}
	for path, want := range map[string]string{
		"example.com/plain":    "v1.2.3",
		"example.com/replaced": "v1.0.1",
		"example.com/local":    "v1.0.0",
		"example.com/devel":    "",
		"example.com/absent":   "",
	} {
		if got := moduleVersion(bi, path); got != want {
			t.Errorf("moduleVersion(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestEmbeddedBuildLeavesOutTheUnknown checks that no key is recorded empty: a test binary
// carries no module versions, so go_module_version is left out here.
func TestEmbeddedBuildLeavesOutTheUnknown(t *testing.T) {
	got := EmbeddedBuild("lib", "1.2", "example.com/absent")
	want := map[string]string{BuildLibrary: "lib", BuildLibraryVersion: "1.2", BuildModule: "example.com/absent"}
	if !maps.Equal(got, want) {
		t.Errorf("EmbeddedBuild = %v, want %v", got, want)
	}
	got = EmbeddedBuild("lib", "", "")
	if want := map[string]string{BuildLibrary: "lib"}; !maps.Equal(got, want) {
		t.Errorf("EmbeddedBuild without version and module = %v, want %v", got, want)
	}
}
