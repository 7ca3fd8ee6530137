package report

import "github.com/enginebench/enginebench/internal/result"

// Layout is what the report shows of one workload: its summary (tables and legend), its
// sections of the page, and what it adds to the ratio of two runs. Only this package implements
// it: InsertLayout, IIBenchLayout and LinkBenchLayout, each in the file named for its workload.
type Layout interface {
	// summary is the summary of r, whose repeats are folded (their spreads sp): the header
	// lines, the tables that have rows and the workload's legend.
	summary(r *result.Run, sp spreads) Summary
	// brief are the tables of r (repeats folded, spreads sp) that the brief printed summary
	// shows after the top summary: the workload's throughput table, and a capacity search's
	// best rates. Every other table is in the full summary alone.
	brief(r *result.Run, sp spreads) []Table
	// sections are the workload's sections of p, the page of r: after the top summary (and
	// the ratio of two runs), before the metadata.
	sections(r *result.Run, p *Page) []Section
	// ratio is what the workload adds to the ratio of runs a and b (ratio.go), each the
	// medians of its repeats.
	ratio(a, b *result.Run) ratioAdds
}

// Layouts returns the layout of the named workload. It never returns nil: for an unknown or
// empty name (a run.json older than the workload's name) it returns the default workload's.
type Layouts func(workload string) Layout

// ratioAdds is what a workload adds to the ratio of two runs: columns of the rates table after
// the steps' rates, a sentence of the section's text, and tables of their own.
type ratioAdds struct {
	cols   []ratioCol
	text   string
	tables []ratioSpec
}

// ratioSpec is a table of a ratio of two runs: its title, which goes before the rates table's
// ("Operations over all request intervals: b as % of a"), and its columns.
type ratioSpec struct {
	title string
	cols  []ratioCol
}

// summaryOf is l's summary of r (repeats folded, their spreads sp) with the legends every
// workload shares: the repeats' and the quartiles'.
func summaryOf(l Layout, r *result.Run, sp spreads) Summary {
	s := l.summary(r, sp)
	s.Tables = append(s.Tables, nonEmpty([]Table{serverTable(r), remoteTable(r, sp)})...)
	s.Legend = append(s.Legend, serverLegend(r)...)
	s.Legend = append(s.Legend, repeatLegend(sp)...)
	s.Legend = append(s.Legend, quartileLegend)
	return s
}
