package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/result"
)

// LoadRuns reads the run directories and checks them with CheckRun against the names of the
// workloads this build knows. An error is a *badinput.Error (no run.json, or not a run of a workload this build knows) or a
// *badinput.Path (a run directory that failed to read).
func LoadRuns(dirs []string, workloads []string) ([]Input, error) {
	var runs []Input
	for _, d := range dirs {
		r, err := result.LoadDir(d)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, badinput.Errorf("%s is not a run directory (no run.json)", d)
			}
			return nil, &badinput.Path{Err: fmt.Errorf("%s: %w", d, err)}
		}
		if err := CheckRun(r, workloads); err != nil {
			return nil, badinput.Errorf("%s: %v", filepath.Join(d, "run.json"), err)
		}
		runs = append(runs, Input{Dir: d, Run: r})
	}
	return runs, nil
}

// CheckRun refuses a run.json that is no run of enginebench (null, {}, a run of a workload
// not among workloads, the names this build knows), which would make an empty or misleading
// report.
func CheckRun(r *result.Run, workloads []string) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("not a run of enginebench: %w", err)
	}
	if !slices.Contains(workloads, r.Workload.Name) {
		return fmt.Errorf("unknown workload %q (known: %s)", r.Workload.Name, strings.Join(workloads, ", "))
	}
	return nil
}

// WritePage writes page as HTML at out and as markdown at md, once out's directory is known
// to be writable (a *badinput.Path if not), and returns the HTML's size in bytes.
func WritePage(page *Page, out, md string) (int, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return 0, &badinput.Path{Err: fmt.Errorf("cannot write the report in %s: %w", filepath.Dir(out), err)}
	}
	if err := result.ProbeWrite(filepath.Dir(out), 0); err != nil {
		return 0, &badinput.Path{Err: fmt.Errorf("cannot write the report in %s: %w", filepath.Dir(out), err)}
	}
	return writeFiles(page, out, md)
}

// writeFiles writes page as HTML at out and as markdown at md, each atomically, and returns
// the HTML's size in bytes.
func writeFiles(page *Page, out, md string) (int, error) {
	var html bytes.Buffer
	if err := WriteHTML(&html, page); err != nil {
		return 0, err
	}
	if err := result.WriteFile(out, html.Bytes()); err != nil {
		return 0, err
	}
	return html.Len(), result.WriteFile(md, []byte(MarkdownPage(page)))
}

// Paths returns the HTML file to write, out or by default report.html in the one run
// directory or the current one (in out when it is a directory), and the markdown beside it.
func Paths(dirs []string, out string) (html, md string) {
	if out == "" {
		out = "report.html"
		if len(dirs) == 1 {
			out = filepath.Join(dirs[0], "report.html")
		}
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		out = filepath.Join(out, "report.html")
	}
	md = strings.TrimSuffix(out, filepath.Ext(out)) + ".md"
	if md == out {
		md = out + ".md"
	}
	return out, md
}

// WriteRunReport writes the report of res, a run whose directory is dir, into it:
// report.html and its tables as report.md, each workload read with its layout of ls.
func WriteRunReport(dir *result.Dir, res *result.Run, ls Layouts) error {
	page, err := NewPage([]Input{{Dir: dir.Path(), Run: res}}, Options{Layouts: ls, HTMLDir: dir.Path()})
	if err != nil {
		return err
	}
	_, err = writeFiles(page, filepath.Join(dir.Path(), "report.html"), filepath.Join(dir.Path(), "report.md"))
	return err
}
