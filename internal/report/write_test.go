package report

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/enginebench/enginebench/internal/badinput"
)

// TestPaths checks where a report goes: beside the one run, here for several, inside --out
// when it is a directory, the markdown beside the HTML.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		dirs     []string
		out      string
		html, md string
	}{
		{[]string{"r1"}, "", filepath.Join("r1", "report.html"), filepath.Join("r1", "report.md")},
		{[]string{"r1", "r2"}, "", "report.html", "report.md"},
		{nil, dir, filepath.Join(dir, "report.html"), filepath.Join(dir, "report.md")},
		{nil, "page.md", "page.md", "page.md.md"},
	} {
		if html, md := Paths(c.dirs, c.out); html != c.html || md != c.md {
			t.Errorf("Paths(%q, %q) = %q, %q, want %q, %q", c.dirs, c.out, html, md, c.html, c.md)
		}
	}
}

// TestLoadRunsRefusesNoRun checks that a directory without run.json, or with one that is no
// run, is an InputError.
func TestLoadRunsRefusesNoRun(t *testing.T) {
	empty := t.TempDir()
	null := t.TempDir()
	if err := os.WriteFile(filepath.Join(null, "run.json"), []byte("null"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{empty, null} {
		var input *badinput.Error
		if _, err := LoadRuns([]string{d}, []string{"insert"}); !errors.As(err, &input) {
			t.Errorf("LoadRuns(%s): %v, want an InputError", d, err)
		}
	}
}
