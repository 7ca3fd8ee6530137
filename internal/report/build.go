package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// buildsTitle is the title of the metadata table of the configurations' builds.
const buildsTitle = "Builds"

// The well-known keys of result.Config.Build, in the order the report shows them (those of
// engine/server's build.go, then an embedded engine's); any other key follows them, sorted.
var buildKeyOrder = []string{"binary", "sha256", "configure", "cc", "cflags", "library", "library_version", "compile_options"}

// How long a build value may be in a table cell or a header line before it is abbreviated
// (maxBuildCell runes), how many hex digits of a checksum are shown, and how long a value may
// be to be quoted in the same-version warning.
const (
	maxBuildCell   = 40
	shortSHA       = 12
	maxWarnedValue = 24
)

// hasBuild reports whether c recorded where its engine's binary came from.
func hasBuild(c result.Config) bool { return len(c.Build) > 0 }

// buildKeys returns the keys of the builds of configs: the well-known ones first, in their
// order, then the others sorted.
func buildKeys(configs []result.Config) []string {
	seen := map[string]bool{}
	for _, c := range configs {
		for k := range c.Build {
			seen[k] = true
		}
	}
	var keys []string
	for _, k := range buildKeyOrder {
		if seen[k] {
			keys = append(keys, k)
			delete(seen, k)
		}
	}
	return append(keys, sortedKeys(seen)...)
}

// shortBuildValue is a build value as a table cell shows it: a checksum's first shortSHA hex
// digits; a path longer than maxBuildCell with its middle elided, any other long value with
// its end elided.
func shortBuildValue(key, v string) string {
	r := []rune(v)
	switch {
	case key == "sha256" && len(r) > shortSHA:
		return string(r[:shortSHA])
	case len(r) <= maxBuildCell:
		return v
	case key == "binary" || key == "library":
		head := maxBuildCell / 3
		return string(r[:head]) + "…" + string(r[len(r)-(maxBuildCell-head-1):])
	}
	return string(r[:maxBuildCell-1]) + "…"
}

// buildsTable has a row per configuration of r when any has a build: each build key's value
// (abbreviated, the whole value in Full), "-" where a configuration has none. It has no rows
// (and is left out) when no configuration recorded a build.
func buildsTable(r *result.Run) Table {
	keys := buildKeys(r.Configs)
	t := Table{Title: buildsTitle, Header: append([]string{"config"}, keys...), Metric: "value"}
	if len(keys) == 0 {
		return t
	}
	for _, c := range r.Configs {
		row, full := []string{c.Name}, []string{""}
		src := []Source{{Config: c.Name, Field: "name"}}
		for _, k := range keys {
			v, ok := c.Build[k]
			cell := missing
			if ok && v != "" {
				cell = shortBuildValue(k, v)
			}
			row = append(row, cell)
			full = append(full, "")
			if cell != v && cell != missing {
				full[len(full)-1] = v
			}
			src = append(src, Source{Config: c.Name, Field: "build." + k})
		}
		t.Rows, t.Full, t.Src = append(t.Rows, row), append(t.Full, full), append(t.Src, src)
	}
	return t
}

// buildLines are the header lines of the configurations' builds, in short form: one per
// configuration when any has a build ("-" for one without), else none.
func buildLines(configs []result.Config) []string {
	if !slices.ContainsFunc(configs, hasBuild) {
		return nil
	}
	keys := buildKeys(configs)
	var lines []string
	for _, c := range configs {
		var parts []string
		for _, k := range keys {
			if v := c.Build[k]; v != "" {
				parts = append(parts, k+" "+shortBuildValue(k, v))
			}
		}
		if len(parts) == 0 {
			parts = []string{missing}
		}
		lines = append(lines, c.Name+": build "+strings.Join(parts, ", "))
	}
	return lines
}

// buildWarnings warns of each configuration whose version is that of an earlier configuration
// with a build but whose build differs from that one's: the figures then differ by the build
// as well as by the settings. Configurations of unknown version or without a build are not
// compared.
func buildWarnings(configs []result.Config) []string {
	first := map[string]result.Config{} // the first configuration with a build, by version
	var lines []string
	for _, c := range configs {
		if c.Version == "" || !hasBuild(c) {
			continue
		}
		ref, ok := first[c.Version]
		if !ok {
			first[c.Version] = c
			continue
		}
		if d := buildDiffs(ref.Build, c.Build); len(d) > 0 {
			lines = append(lines, fmt.Sprintf("%s%s and %s both say version %q but differ in build: %s",
				warningPrefix, ref.Name, c.Name, c.Version, strings.Join(d, ", ")))
		}
	}
	return lines
}

// buildDiffs lists the keys present in both builds whose values differ, each with the two
// values when they are short. The binary's path alone is no difference when both checksums
// are recorded and equal: the same file, installed elsewhere.
func buildDiffs(a, b map[string]string) []string {
	sameFile := a["sha256"] != "" && a["sha256"] == b["sha256"]
	var d []string
	for _, k := range buildKeys([]result.Config{{Build: a}}) {
		x, y := a[k], b[k]
		_, inB := b[k]
		if !inB || x == y || (k == "binary" && sameFile) {
			continue
		}
		sx, sy := shortBuildValue(k, x), shortBuildValue(k, y)
		if len([]rune(sx)) <= maxWarnedValue && len([]rune(sy)) <= maxWarnedValue {
			d = append(d, fmt.Sprintf("%s (%s vs %s)", k, orMissing(sx), orMissing(sy)))
		} else {
			d = append(d, k)
		}
	}
	return d
}
