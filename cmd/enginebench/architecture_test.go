package main

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modulePrefix is what every package path of the project starts with.
const modulePrefix = "github.com/enginebench/enginebench/"

// projectImports returns each package of the module (with every build tag) and the packages
// of the project it imports, as `go list` sees them, paths relative to the module.
func projectImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "lmdb rocksdb wiredtiger", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		var own []string
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, modulePrefix) {
				own = append(own, strings.TrimPrefix(imp, modulePrefix))
			}
		}
		graph[strings.TrimPrefix(pkg, modulePrefix)] = own
	}
	return graph
}

// documentedImports reads the import block of docs/architecture.md: the lines between the
// marker lines, "package: import import ...".
func documentedImports(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	graph, in := map[string][]string{}, false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "<!-- imports begin"):
			in = true
		case strings.HasPrefix(line, "<!-- imports end"):
			in = false
		case in && strings.Contains(line, ":"):
			pkg, imports, _ := strings.Cut(line, ":")
			graph[pkg] = strings.Fields(imports)
		}
	}
	return graph
}

// TestArchitectureDocMatchesImports checks that docs/architecture.md names every package and
// every import between them as `go list` shows them, so that the page stays true.
func TestArchitectureDocMatchesImports(t *testing.T) {
	got, doc := projectImports(t), documentedImports(t)
	var want strings.Builder
	for _, pkg := range slices.Sorted(maps.Keys(got)) {
		want.WriteString(pkg + ": " + strings.Join(got[pkg], " ") + "\n")
		if d, ok := doc[pkg]; !ok || !slices.Equal(slices.Sorted(slices.Values(d)), slices.Sorted(slices.Values(got[pkg]))) {
			t.Errorf("%s: docs/architecture.md says it imports %v, go list says %v", pkg, d, got[pkg])
		}
	}
	for pkg := range doc {
		if _, ok := got[pkg]; !ok {
			t.Errorf("docs/architecture.md names %s, which is no package", pkg)
		}
	}
	if t.Failed() {
		t.Logf("the block as go list has it:\n%s", want.String())
	}
}

// TestDependenciesPointOneWay checks the rules of docs/architecture.md on the real graph: the
// engines never reach a workload, the runner no engine, the report nothing that runs, and only
// the CLI reaches the registry.
func TestDependenciesPointOneWay(t *testing.T) {
	graph := projectImports(t)
	reach := func(from string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for _, d := range graph[p] {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(from)
		return seen
	}
	for pkg := range graph {
		deps := reach(pkg)
		if deps[pkg] {
			t.Errorf("%s is in an import circle", pkg)
		}
		for dep := range deps {
			switch {
			case strings.HasPrefix(pkg, "internal/engine") && strings.HasPrefix(dep, "internal/workload"):
				t.Errorf("the engine package %s reaches the workload %s", pkg, dep)
			case pkg == "internal/runner" && strings.HasPrefix(dep, "internal/engine"):
				t.Errorf("the runner reaches the engine %s", dep)
			case strings.HasPrefix(pkg, "internal/report") && slices.Contains([]string{"internal/runner", "internal/engine", "internal/workload"}, dep):
				t.Errorf("the report reaches %s: a report is rebuilt from a run directory alone", dep)
			case dep == "internal/registry" && !strings.HasPrefix(pkg, "cmd/"):
				t.Errorf("%s reaches the registry, which only the CLI uses", pkg)
			}
		}
	}
}
