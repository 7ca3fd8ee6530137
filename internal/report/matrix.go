package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// matrixSpec returns the run spec hash that every run shares as a run of one of its
// configurations (run --config-index), or "" when the runs are not such a set: a run without
// the mark, marks of different specs, or a configuration name in two runs.
func matrixSpec(runs []Input) string {
	var names []string
	spec := ""
	for _, in := range runs {
		m := in.Run.Matrix
		if m == nil || (spec != "" && m.SpecSHA256 != spec) {
			return ""
		}
		spec = m.SpecSHA256
		for _, c := range in.Run.Configs {
			if slices.Contains(names, c.Name) {
				return ""
			}
			names = append(names, c.Name)
		}
	}
	return spec
}

// matrixJoin reports whether the runs are the configurations of one run spec run apart
// (several runs, each with --config-index): their configurations keep their own names and
// come in the spec's order.
func matrixJoin(runs []Input) bool { return len(runs) > 1 && matrixSpec(runs) != "" }

// matrixOrder returns the runs in the order of their configurations' indexes in the run spec
// when they are a matrix join, else as given.
func matrixOrder(runs []Input) []Input {
	if !matrixJoin(runs) {
		return runs
	}
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b Input) int { return a.Run.Matrix.Index - b.Run.Matrix.Index })
	return out
}

// matrixLines say which configurations of which run spec the runs hold, and warn when they
// come from different specs or when one configuration is in several runs.
func matrixLines(runs []Input) []string {
	type group struct {
		spec    *result.Matrix
		indexes []int
		runs    []string
	}
	var groups []*group
	labels := runLabels(runs)
	for i, in := range runs {
		m := in.Run.Matrix
		if m == nil {
			continue
		}
		j := slices.IndexFunc(groups, func(g *group) bool { return g.spec.SpecSHA256 == m.SpecSHA256 })
		if j < 0 {
			groups, j = append(groups, &group{spec: m}), len(groups)
		}
		groups[j].indexes = append(groups[j].indexes, m.Index)
		groups[j].runs = append(groups[j].runs, labels[i])
	}
	var lines []string
	for _, g := range groups {
		lines = append(lines, matrixLine(g.spec, g.indexes))
		for _, k := range duplicates(g.indexes) {
			lines = append(lines, fmt.Sprintf("%sconfiguration %d of run spec %s is in more than one run: the report shows each", warningPrefix, k, g.spec.Spec))
		}
	}
	if len(groups) > 1 {
		var specs []string
		for _, g := range groups {
			specs = append(specs, fmt.Sprintf("%s (sha256 %.12s: runs %s)", g.spec.Spec, g.spec.SpecSHA256, strings.Join(g.runs, ", ")))
		}
		lines = append(lines, warningPrefix+"the runs are configurations of different run specs: "+strings.Join(specs, "; "))
	}
	return lines
}

// matrixLine says which of a run spec's configurations (by index) the runs hold and which
// are missing.
func matrixLine(spec *result.Matrix, indexes []int) string {
	have := slices.Compact(slices.Sorted(slices.Values(indexes)))
	var missingIdx []string
	for k := range spec.Count {
		if !slices.Contains(have, k) {
			missingIdx = append(missingIdx, fmt.Sprint(k))
		}
	}
	line := fmt.Sprintf("run spec %s (sha256 %.12s): configurations %s of %d, each run on its own (--config-index)",
		spec.Spec, spec.SpecSHA256, joinInts(have), spec.Count)
	if len(missingIdx) > 0 {
		line += "; not among these runs: " + strings.Join(missingIdx, ", ")
	}
	return line
}

// duplicates returns the values that occur more than once in xs, sorted.
func duplicates(xs []int) []int {
	var out []int
	for i, x := range xs {
		if slices.Index(xs, x) != i && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// joinInts joins numbers with commas.
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
