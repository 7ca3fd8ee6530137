package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/redact"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// Page is the report of one or more runs of one workload: titled sections of tables and charts.
// The HTML page and its markdown are rendered from it, so they never disagree.
type Page struct {
	Title string
	// Lines are the header: the runs, their status, each configuration's errors and notes.
	Lines []string
	// Configs are the configuration labels in order; a label's index is its colour in every
	// chart and table.
	Configs []string
	// Base is the configuration the relative tables divide by.
	Base     string
	Sections []Section
	Legend   []string
	// spreads are the spreads of the repeated configurations (run --repeat); nil for none.
	spreads spreads
}

// Section is a titled part of the page.
type Section struct {
	ID, Title string
	Blocks    []Block
}

// Block is a paragraph, a list, a table, a row of charts, a flame graph or the search box of
// the page's flame graphs.
type Block struct {
	Text string
	// Items are the lines of a list (the flags in words).
	Items  []string
	Table  *Table
	Charts []Chart
	Flame  *Flame
	Search bool
}

// Chart is the data of one chart; the HTML page draws it (internal/report/chart).
type Chart struct {
	ID      string
	Options chart.Options
	// Series makes a line chart; Bars a bar chart; Levels a chart of capacity levels.
	Series []chart.Series
	Bars   *Bars
	Levels []chart.LevelSeries
	// Box makes a box chart of latency, a row per configuration (box.go).
	Box []chart.BoxRow
	// Sync, for a line chart, makes it interactive (drawn in the browser, interactive.go): the
	// charts with the same Sync share one cursor and one zoom.
	Sync string
}

// Bars is a bar chart's data: one bar per label, a NaN value missing.
type Bars struct {
	Labels []string
	Values []float64
	Colors []int
}

// Input is one run directory's results.
type Input struct {
	Dir string
	Run *result.Run
}

// Options choose what a report compares.
type Options struct {
	// Base names the configuration the relative tables divide by (its label, or its name when
	// that is unique); empty means the first.
	Base string
	// Ratio shows, for exactly two runs, the second run's rates as a percentage of the first's.
	Ratio bool
	// Layouts looks up the runs' workload's layout; it must be set.
	Layouts Layouts
	// HTMLDir is the directory the HTML page is written in, for its links to the run
	// directories' files (the pprof files); empty is the current directory.
	HTMLDir string
}

// NewPage builds the report of runs, which must all be of one workload. Several runs combine
// into one report, each configuration labelled by its run directory and its name. The errors are
// about the input (no runs, mixed workloads, an unknown base), found before anything is built.
func NewPage(runs []Input, o Options) (*Page, error) {
	if len(runs) == 0 {
		return nil, errors.New("no run to report")
	}
	if o.Layouts == nil {
		return nil, errors.New("no workload layouts to report with (Options.Layouts)")
	}
	if o.Ratio && len(runs) != 2 {
		return nil, fmt.Errorf("--ratio compares two runs, got %d", len(runs))
	}
	for _, in := range runs[1:] {
		if w, w0 := in.Run.Workload.Name, runs[0].Run.Workload.Name; w != w0 {
			return nil, fmt.Errorf("runs of different workloads cannot be combined: %s is %s, %s is %s", runs[0].Dir, w0, in.Dir, w)
		}
	}
	runs = matrixOrder(runs)
	r, sp := collapseRepeats(merge(runs))
	p := &Page{Lines: append(mergedHeader(runs, r), comparisonLines(runs)...), spreads: sp}
	for _, c := range r.Configs {
		p.Configs = append(p.Configs, c.Name)
	}
	base, err := findBase(runs, r, o.Base)
	if err != nil {
		return nil, err
	}
	p.Base = base
	p.Title = fmt.Sprintf("enginebench: %s benchmark", r.Workload.Name)
	if len(runs) == 1 {
		p.Title += ", run " + r.RunID
	}
	l := o.Layouts(r.Workload.Name)
	p.Sections = append(p.Sections, topSection(r, p))
	flagged, verdicts := verdictSections(pageRuns(runs))
	if flagged != nil {
		p.Sections = append(p.Sections, *flagged)
	}
	if o.Ratio {
		p.Sections = append(p.Sections, ratioSection(runs[0], runs[1], l))
	}
	p.Sections = append(p.Sections, l.sections(r, p)...)
	p.Sections = append(p.Sections, serverSections(r, sp)...)
	p.Sections = append(p.Sections, cpuSections(runs, r, p.Base, o.HTMLDir)...)
	if verdicts != nil {
		p.Sections = append(p.Sections, *verdicts)
	}
	p.Sections = append(p.Sections, metadataSection(runs, r))
	p.Legend = append(colourLegend(), summaryOf(l, r, sp).Legend...)
	p.Legend = append(p.Legend, topLegend...)
	if verdicts != nil {
		p.Legend = append(p.Legend, verdictLegend)
	}
	if len(sp) > 0 {
		p.Legend = append(p.Legend, spreadColourLegend)
	}
	traceSources(p, runs, r)
	scrub(p)
	return p, nil
}

// scrub removes any password of a DSN, or password=..., from every text of the page: errors and
// notes of runs that reached a server should already have none, and a report must never be where
// one leaks.
func scrub(p *Page) {
	for i := range p.Lines {
		p.Lines[i] = redact.Text(p.Lines[i])
	}
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			if t := b.Table; t != nil {
				for _, rows := range [][][]string{t.Rows, t.Full} {
					for _, row := range rows {
						for j := range row {
							row[j] = redact.Text(row[j])
						}
					}
				}
			}
		}
	}
	for i := range p.Sections {
		for j := range p.Sections[i].Blocks {
			b := &p.Sections[i].Blocks[j]
			b.Text = redact.Text(b.Text)
			for k := range b.Items {
				b.Items[k] = redact.Text(b.Items[k])
			}
			if f := b.Flame; f != nil {
				f.Title = redact.Text(f.Title)
				for k := range f.Lines {
					f.Lines[k] = redact.Text(f.Lines[k])
				}
			}
		}
	}
}

// merge combines runs into one result whose configurations are labelled: by their name for a
// single run or the runs of one run spec's configurations (matrixJoin), else by run directory
// and name.
func merge(runs []Input) *result.Run {
	first := *runs[0].Run
	if len(runs) == 1 {
		return &first
	}
	first.Configs = nil
	prefixes, plain := runLabels(runs), matrixJoin(runs)
	for i, in := range runs {
		for _, c := range in.Run.Configs {
			if !plain {
				c.Name = prefixes[i] + "/" + c.Name
			}
			first.Configs = append(first.Configs, c)
		}
		if in.Run.Status != result.StatusOK && first.Status == result.StatusOK {
			first.Status = in.Run.Status
		}
		if in.Run.ClientCPULimitPct != runs[0].Run.ClientCPULimitPct {
			first.ClientCPULimitPct = 0 // no one limit: the legend names none
		}
	}
	return &first
}

// runLabels names each run by its directory's base name, or by its position where two
// directories share a name.
func runLabels(runs []Input) []string {
	out := make([]string, len(runs))
	for i, in := range runs {
		out[i] = filepath.Base(filepath.Clean(in.Dir))
		if in.Dir == "" || out[i] == "." || out[i] == "/" {
			out[i] = in.Run.RunID
		}
	}
	for i := range out {
		if slices.Index(out, out[i]) != i || out[i] == "" {
			for j := range out {
				out[j] = fmt.Sprintf("run%d", j+1)
			}
			break
		}
	}
	return out
}

// findBase resolves the base configuration: a label, or a configuration name that only one
// run has.
func findBase(runs []Input, r *result.Run, want string) (string, error) {
	if len(r.Configs) == 0 {
		return "", nil
	}
	if want == "" {
		return r.Configs[0].Name, nil
	}
	return findLabel(runs, r, want, "--base")
}

// findLabel resolves want, named by flag, to a configuration's label: a label, or a
// configuration name that only one run has.
func findLabel(runs []Input, r *result.Run, want, flag string) (string, error) {
	var labels, matches []string
	for _, c := range r.Configs {
		labels = append(labels, c.Name)
		if c.Name == want {
			return want, nil
		}
		if _, name, ok := strings.Cut(c.Name, "/"); ok && len(runs) > 1 && name == want {
			matches = append(matches, c.Name)
		}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	if len(matches) > 1 {
		return "", fmt.Errorf("%s %s is in several runs; name one of: %s", flag, want, strings.Join(matches, ", "))
	}
	return "", fmt.Errorf("%s %s: no such configuration; the configurations are: %s", flag, want, strings.Join(labels, ", "))
}

// mergedHeader is the page's header lines: each run's, or one run's summary header.
func mergedHeader(runs []Input, r *result.Run) []string {
	if len(runs) == 1 {
		return header(r)
	}
	labels := runLabels(runs)
	var lines []string
	for i, in := range runs {
		line := fmt.Sprintf("run %s: %s, %s benchmark, scale %s%s, enginebench %s, status %s", labels[i],
			in.Run.RunID, in.Run.Workload.Name, in.Run.Workload.Scale, variantText(in.Run.Workload), in.Run.Tool.Version, in.Run.Status)
		if in.Run.Error != "" {
			line += ": " + in.Run.Error
		}
		lines = append(lines, line)
		for _, n := range in.Run.Notes {
			lines = append(lines, labels[i]+": "+n)
		}
	}
	return append(lines, configLines(r.Configs)...)
}

// colourLegend explains the colours of the tables; every coloured cell also says in words
// what its colour means, or holds the number the colour ranks.
func colourLegend() []string {
	return []string{
		"Colours (the values are always printed): in a rate column, green is the best quarter of the range between the lowest and the highest configuration (the top quarter for a rate), red the worst quarter (no red when the lowest is within 80% of the highest); grey: the step missed its SLA.",
		"Relative to the base (and --ratio): each value divided by the base configuration's (the first run's); blue: better than the base by more than 5%, gold: worse by more than 5%, in the metric's direction (in report.md the cell says \"better\" or \"worse\"). A rate is better above 1.05; a cost (CPU, IO or space per operation, latency, seconds) is better below 0.95, so 2.00 in cpupq is worse.",
		"Directions: higher is better for the rates (ips, qps, ops/s, links/s, rate p50 and p99); lower is better for cpupq, cspq, rpq, rkbpq, wpi, wkbpi, dbgb1, dbgb2, wamp, rss, maxrss, the latencies and response times, r_await, w_await, probe, fairness, errors and the engine's debt; counts, targets and the resources per second (rps, rmbps, wps, wmbps, csps, cpups, client%, aqu-sz, %util), which grow with the rate, are never coloured (docs/report.md).",
		"SLA: red when the achieved insert rate is below 95% of the target.",
		"\"failed\", \"interrupted\", \"skipped\": the step did not finish, so it has no rate; \"-\": not measured or not run, never a zero.",
	}
}

// MarkdownPage returns the page's tables as markdown; the charts are only in the HTML page.
func MarkdownPage(p *Page) string {
	var b strings.Builder
	b.WriteString("# " + p.Title + "\n\n")
	for _, l := range p.Lines {
		b.WriteString("- " + markdownLine(l) + "\n")
	}
	if p.Base != "" {
		b.WriteString("- base configuration of the relative tables: " + p.Base + "\n")
	}
	b.WriteString("- the charts are in the HTML report\n")
	for _, s := range p.Sections {
		b.WriteString("\n## " + s.Title + "\n")
		for _, bl := range s.Blocks {
			switch {
			case bl.Text != "":
				b.WriteString("\n" + bl.Text + "\n")
			case len(bl.Items) > 0:
				b.WriteString("\n")
				for _, it := range bl.Items {
					b.WriteString("- " + it + "\n")
				}
			case bl.Table != nil:
				b.WriteString("\n### " + bl.Table.Title + "\n\n")
				writeMarkdownTable(&b, judged(*bl.Table))
			case bl.Flame != nil:
				writeMarkdownFlame(&b, bl.Flame)
			}
		}
	}
	b.WriteString("\n## Legend\n\n")
	for _, l := range p.Legend {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// writeMarkdownFlame writes what a flame graph is of and where its profile is; the graph
// itself is in the HTML page.
func writeMarkdownFlame(b *strings.Builder, f *Flame) {
	b.WriteString("\n" + f.Title + " (flame graph in the HTML report)\n\n")
	for _, l := range f.Lines {
		b.WriteString("- " + l + "\n")
	}
	if f.Path != "" {
		b.WriteString("- the whole profile: " + f.Path + " (`go tool pprof -top " + f.Path + "`)\n")
	}
}

// judged is t with the verdict of each relative cell in words, for report.md, which has no
// colours: "0.50 better", "2.00 worse".
func judged(t Table) Table {
	out := t
	out.Rows = make([][]string, len(t.Rows))
	for i, row := range t.Rows {
		out.Rows[i] = slices.Clone(row)
		for j := range row {
			if i >= len(t.Class) || j >= len(t.Class[i]) {
				continue
			}
			switch t.Class[i][j] {
			case ClassBetter:
				out.Rows[i][j] += " better"
			case ClassWorse:
				out.Rows[i][j] += " worse"
			}
		}
	}
	return out
}
