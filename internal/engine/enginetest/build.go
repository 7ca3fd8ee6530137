package enginetest

import (
	"testing"

	"github.com/enginebench/enginebench/internal/engine"
)

// CheckBuild checks an embedded engine's Build: it has one, no value is empty, it names library,
// its library version is version (left out when version is ""), and its Go module is module
// (none when module is "").
func CheckBuild(t testing.TB, eng engine.Engine, library, version, module string) map[string]string {
	t.Helper()
	b, ok := eng.(engine.Builder)
	if !ok {
		t.Fatalf("%T does not implement engine.Builder", eng)
	}
	build := b.Build()
	for k, v := range build {
		if v == "" {
			t.Errorf("build key %s is empty", k)
		}
	}
	for k, want := range map[string]string{
		engine.BuildLibrary: library, engine.BuildLibraryVersion: version, engine.BuildModule: module,
	} {
		if got, ok := build[k]; got != want || (want == "" && ok) {
			t.Errorf("build %s = %q, want %q (build %v)", k, got, want, build)
		}
	}
	if _, ok := build[engine.BuildModuleVersion]; ok && module == "" {
		t.Errorf("build has a module version and no module: %v", build)
	}
	t.Logf("build %v", build)
	return build
}
