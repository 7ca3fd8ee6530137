// Package report turns run results into what users read: the summary tables printed at the end
// of a run (summary.md), and the report of one or more runs (report.html with its tables as
// report.md), which compares configurations in coloured tables and charts. Each output comes
// from one model, so its forms never disagree. A metric that is missing is shown as "-", never
// as 0. What differs per workload (its summary's tables, its page's sections, its part of a ratio
// of two runs) is its Layout, one file per workload; the caller hands in the lookup (Layouts),
// and nothing here chooses by a workload's name.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/enginebench/enginebench/internal/result"
)

// Table is one titled table of the summary or the report.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Class, when set, has the shape of Rows: each cell's colour class in the HTML page
	// (Class* constants), "" for none. The cell's text always says what the colour does.
	Class [][]string
	// Metric, when set, is what every column but the first shows, in a table whose columns
	// are steps or runs (the probe's seconds, the SLA): the metric whose direction they have;
	// "value" for a table of descriptions (runs, hosts, parameters, settings).
	Metric string
	// Src, when set, has the shape of Rows: where each cell's value was read (source.go); a
	// zero Source is none, and the page infers one from the table's layout (traceSources).
	Src [][]Source
	// Full, when set, has the shape of Rows: the whole value of each cell that shows it
	// abbreviated (a build's configure options), "" for a cell that shows all of it. The HTML
	// page folds it under the cell; markdown and the terminal show the cell alone.
	Full [][]string
}

// Summary is the whole summary of a run.
type Summary struct {
	Lines  []string // header lines: workload, run, status, notes
	Tables []Table
	Legend []string
}

// Build makes the summary of r in its workload's layout (ls looks it up).
// A run with repeats (run --repeat K) shows each configuration once: the median of its
// repeats, each per-step figure with their spread (min-max).
func Build(r *result.Run, ls Layouts) Summary {
	r, sp := collapseRepeats(r)
	return summaryOf(ls(r.Workload.Name), r, sp)
}

// nonEmpty returns the tables that have rows: a summary leaves the others out.
func nonEmpty(tables []Table) []Table {
	var out []Table
	for _, t := range tables {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// variantText is ", variant V, verified W" for a run that records its variant, else empty.
func variantText(w result.Workload) string {
	if w.Variant == "" {
		return ""
	}
	t := ", variant " + w.Variant
	if w.Verify != "" {
		t += ", verified " + strings.ReplaceAll(w.Verify, "-", " ")
	}
	return t
}

func header(r *result.Run) []string {
	lines := []string{titleLine(r)}
	if r.Error != "" {
		lines = append(lines, "error: "+r.Error)
	}
	lines = append(lines, r.Notes...)
	return append(lines, configLines(r.Configs)...)
}

// titleLine is the first line of the summary: the tool, the workload, its scale and variant,
// the run and its status.
func titleLine(r *result.Run) string {
	return fmt.Sprintf("enginebench %s: %s benchmark, scale %s%s, run %s, status %s",
		r.Tool.Version, r.Workload.Name, r.Workload.Scale, variantText(r.Workload), r.RunID, r.Status)
}

// configLines describe each configuration: engine, version, status, error, its build (when
// any configuration has one), its memory cap (with a warning when processes were OOM-killed
// under it), its notes and its steps' notes (what the cleanup did); then a warning for each
// configuration of a version another has but of a different build.
func configLines(configs []result.Config) []string {
	var lines []string
	builds := buildLines(configs)
	for i, c := range configs {
		lines = append(lines, configStatus(c))
		if builds != nil {
			lines = append(lines, builds[i])
		}
		lines = append(lines, memoryLines(c)...)
		if l := serverLine(c); l != "" {
			lines = append(lines, l)
		}
		for _, n := range c.Notes {
			lines = append(lines, c.Name+": "+n)
		}
		for _, s := range c.Steps {
			for _, n := range s.Notes {
				lines = append(lines, c.Name+": "+s.Name+": "+n)
			}
		}
	}
	return append(lines, buildWarnings(configs)...)
}

// configStatus is c's line of the header: its name, engine, version and status, and its error.
func configStatus(c result.Config) string {
	v := c.Version
	if v == "" {
		v = "version unknown"
	}
	line := fmt.Sprintf("%s: %s %s, status %s", c.Name, c.Engine, v, c.Status)
	if c.Error != "" {
		line += ": " + c.Error
	}
	return line
}

// Markdown returns the summary of r (Build) as markdown, with the top summary first, the
// flags in words after it and the verdicts' tables at the end (for a run that has verdicts).
func Markdown(r *result.Run, ls Layouts) string {
	d := fullSummary(r, ls)
	var b strings.Builder
	b.WriteString("# " + d.lines[0] + "\n\n")
	for _, l := range d.lines[1:] {
		b.WriteString("- " + markdownLine(l) + "\n")
	}
	tables := func(ts []Table) {
		for _, t := range ts {
			b.WriteString("\n## " + t.Title + "\n\n")
			writeMarkdownTable(&b, t)
		}
	}
	tables(d.tables[:d.noiseAt])
	if len(d.noise) > 0 {
		b.WriteString("\n")
	}
	for _, l := range d.noise {
		b.WriteString("- " + l + "\n")
	}
	tables(d.tables[d.noiseAt:d.flagsAt])
	if d.flagsText != "" {
		b.WriteString("\n## " + flagsTitle + "\n\n" + d.flagsText + "\n")
		if len(d.flags) > 0 {
			b.WriteString("\n")
		}
		for _, f := range d.flags {
			b.WriteString("- " + f + "\n")
		}
	}
	tables(d.tables[d.flagsAt:])
	b.WriteString("\n## Legend\n\n")
	for _, l := range d.legend {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// markdownLine is a header line in markdown: a warning in bold.
func markdownLine(l string) string {
	if rest, ok := strings.CutPrefix(l, warningPrefix); ok {
		return "**" + strings.TrimSpace(warningPrefix) + "** " + rest
	}
	return l
}

// writeMarkdownTable writes t as a GitHub table through go-pretty: the header as it is (not
// upper case), a pipe in a cell escaped and a line break as <br/>, so a cell stays one cell.
func writeMarkdownTable(b *strings.Builder, t Table) {
	tw := table.NewWriter()
	style := table.StyleDefault
	style.Format.Header = text.FormatDefault
	tw.SetStyle(style)
	tw.AppendHeader(toRow(t.Header))
	for _, row := range t.Rows {
		tw.AppendRow(toRow(row))
	}
	b.WriteString(tw.RenderMarkdown() + "\n")
}

// WriteText writes the whole summary of r (Build) as terminal tables (run --summary full):
// what summary.md shows.
func WriteText(w io.Writer, r *result.Run, ls Layouts) error {
	return writeText(w, fullSummary(r, ls))
}

// writeText writes d as terminal tables: its header lines, its tables with the flags in words
// after the first flagsAt of them, then its legend.
func writeText(w io.Writer, d printed) error {
	var b strings.Builder
	for _, l := range d.lines {
		b.WriteString(l + "\n")
	}
	tables := func(ts []Table) {
		for _, t := range ts {
			tw := table.NewWriter()
			tw.SetStyle(table.StyleLight)
			tw.SetTitle(t.Title)
			tw.AppendHeader(toRow(t.Header))
			for _, row := range t.Rows {
				tw.AppendRow(toRow(row))
			}
			b.WriteString("\n" + tw.Render() + "\n")
		}
	}
	tables(d.tables[:d.noiseAt])
	for _, l := range d.noise {
		b.WriteString(l + "\n")
	}
	tables(d.tables[d.noiseAt:d.flagsAt])
	if d.flagsText != "" {
		b.WriteString("\n" + flagsTitle + ": " + d.flagsText + "\n")
		for _, f := range d.flags {
			b.WriteString("  " + f + "\n")
		}
	}
	tables(d.tables[d.flagsAt:])
	b.WriteString("\n")
	for _, l := range d.legend {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func toRow(cells []string) table.Row {
	row := make(table.Row, len(cells))
	for i, c := range cells {
		row[i] = c
	}
	return row
}
