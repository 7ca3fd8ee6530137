package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// maxBriefFlags is the number of flags the brief summary lists; it counts the others and
// names their configurations, so that a run flagged in every step still fits on a screen.
const maxBriefFlags = 10

// briefRepeatLegend explains a repeated configuration's cells in a line; the full summary's
// legend says the rest (repeatLegend).
const briefRepeatLegend = "Repeats (run --repeat K): each configuration's cell is the median of its repeats, then their spread (min-max)."

// printed is a summary as the terminal and summary.md show it: the header lines, the tables
// (the top summary's first), with repeats the words on the noise after the first noiseAt
// tables (the top summary's), the flags in words after the first flagsAt tables (flagsText
// empty: a run without verdicts, which shows no flags), and the legend.
type printed struct {
	lines     []string
	tables    []Table
	noiseAt   int
	noise     []string
	flagsAt   int
	flagsText string
	flags     []string
	legend    []string
}

// fullSummary is the whole summary of r: the top summary, the flags, the workload's tables
// (Build), the verdicts' tables and the legend.
func fullSummary(r *result.Run, ls Layouts) printed {
	s := Build(r, ls)
	glance := glanceTables(r)
	d := printed{lines: s.Lines, tables: append(glance, s.Tables...), noiseAt: len(glance), noise: glanceNoise(r), flagsAt: len(glance), legend: s.Legend}
	if vrs := oneRun(r); hasVerdicts(vrs) {
		d.flagsText, d.flags = flagsText(vrs, "the Verdicts tables show every check"), flagLines(vrs)
		d.tables = append(d.tables, nonEmpty(verdictTables(vrs))...)
		d.legend = append(d.legend, verdictLegend)
	}
	return d
}

// WriteBrief writes the brief summary of r, as run prints it by default: the run's and each
// configuration's status with every warning, the top summary, the workload's throughput table
// (its layout's brief tables), the flags in words and what the full summary has besides. The
// caller prints the paths of the results and the report after it.
func WriteBrief(w io.Writer, r *result.Run, ls Layouts) error {
	return writeText(w, briefSummary(r, ls))
}

// briefSummary is the brief summary of r (WriteBrief).
func briefSummary(r *result.Run, ls Layouts) printed {
	cr, sp := collapseRepeats(r)
	glance := glanceTables(r)
	tables := append(glance, nonEmpty(ls(cr.Workload.Name).brief(cr, sp))...)
	d := printed{lines: briefLines(cr), tables: tables, noiseAt: len(glance), noise: glanceNoise(r), flagsAt: len(tables)}
	if vrs := oneRun(r); hasVerdicts(vrs) {
		d.flagsText, d.flags = flagsText(vrs, "summary.md has every check"), briefFlags(vrs)
	}
	d.legend = clientLegend(cr)
	if len(sp) > 0 {
		d.legend = append(d.legend, briefRepeatLegend)
	}
	if more := len(fullSummary(r, ls).tables) - len(tables); more > 0 {
		noun := "tables"
		if more == 1 {
			noun = "table"
		}
		d.legend = append(d.legend, fmt.Sprintf("%d more %s and the legend are in summary.md and the report (report.html, report.md); run --summary full prints them.", more, noun))
	}
	return d
}

// briefLines are the brief summary's header: the run's line and error, its notes, each
// configuration's engine, version and status (with its error), and every warning (a process
// the OOM killer killed, builds that differ). The builds and the steps' notes are left out.
func briefLines(r *result.Run) []string {
	lines := []string{titleLine(r)}
	if r.Error != "" {
		lines = append(lines, "error: "+r.Error)
	}
	lines = append(lines, r.Notes...)
	for _, c := range r.Configs {
		lines = append(lines, configStatus(c))
		if l := serverLine(c); l != "" {
			lines = append(lines, l)
		}
	}
	for _, l := range configLines(r.Configs) {
		if strings.HasPrefix(l, warningPrefix) {
			lines = append(lines, l)
		}
	}
	return lines
}

// briefFlags are the flag lines of the runs (flagGroups) up to maxBriefFlags, and a line that
// counts the others by configuration ("and 7 more (pebble 4, sqlite 3)"), so that a run flagged
// by many checks still fits on a screen; summary.md lists them all.
func briefFlags(vrs []verdictRun) []string {
	groups := flagGroups(vrs)
	var lines []string
	for _, g := range groups[:min(len(groups), maxBriefFlags)] {
		lines = append(lines, g.line())
	}
	if len(groups) <= maxBriefFlags {
		return lines
	}
	var order []string
	n, total := map[string]int{}, 0
	for _, g := range groups[maxBriefFlags:] {
		if n[g.first.who] == 0 {
			order = append(order, g.first.who)
		}
		n[g.first.who] += 1 + len(g.steps)
		total += 1 + len(g.steps)
	}
	parts := make([]string, len(order))
	for i, who := range order {
		parts[i] = fmt.Sprintf("%s %d", who, n[who])
	}
	return append(lines, fmt.Sprintf("and %d more (%s)", total, strings.Join(parts, ", ")))
}
