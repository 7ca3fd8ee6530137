package report

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/enginebench/enginebench/internal/flame"
	"github.com/enginebench/enginebench/internal/numfmt"
	"github.com/enginebench/enginebench/internal/result"
)

// Where the CPU went: each step's CPU profiles (run --cpu-profile) as flame graphs, the
// differential graph of each configuration against the base, the top functions by CPU per
// operation, and the step's counters per operation (run --counters). The pprof files are read
// from the run directories, so a report rebuilt from them alone shows them.

// topFunctions is how many functions a top table lists.
const topFunctions = 15

// Flame is a flame graph of the page, drawn into the HTML page (internal/flame); report.md
// has its title and lines.
type Flame struct {
	ID, Title string
	Tree      *flame.Tree
	// PerOp is the operation the tree's values are per ("insert").
	PerOp string
	// Lines say what the graph is of and what pruning left out.
	Lines []string
	// Path is the whole pprof file as named from where the report was made, Href the same
	// file relative to the HTML page; empty for a differential graph, whose lines name both.
	Path, Href string
}

// profiled is a configuration's profile and counters of one step, as its run.json has them.
type profiled struct {
	label string
	dir   string       // its run directory
	step  *result.Step // a repeated configuration's first repeat that has them
	// stacks are the profile's, read from its file; err says why there are none.
	stacks flame.Stacks
	err    error
}

func (pr *profiled) profile() *result.Profile   { return pr.step.Profile }
func (pr *profiled) counters() *result.Counters { return pr.step.Counters }

// hasStacks reports whether pr's profile was read.
func (pr *profiled) hasStacks() bool {
	return pr.profile() != nil && pr.profile().File != "" && pr.err == nil
}

// unsampled reports whether pr's profile was read and holds no CPU: a step shorter than a few
// sampling periods (tiny scales' loads can take 10 ms) may have no sample at all.
func (pr *profiled) unsampled() bool {
	return pr.hasStacks() && len(pr.stacks.Stacks) == 0
}

// unsampledText says that pr's profile has no samples, and what it sampled.
func (pr *profiled) unsampledText() string {
	p, seconds := pr.profile(), 0.0
	for _, w := range p.Windows {
		seconds += w.Seconds
	}
	return fmt.Sprintf("%s: no CPU sampled in this step (%s profiled at %d Hz, too short for a sample; %s holds the empty profile)",
		pr.label, numfmt.Seconds(seconds), p.Hz, pr.path())
}

// path is the profile's file as named from the current directory.
func (pr *profiled) path() string { return filepath.Join(pr.dir, pr.profile().File) }

// perOp is the operation the profile is divided by, "op" when unknown.
func (pr *profiled) perOp() string {
	if p := pr.profile(); p != nil && p.PerOp != "" {
		return p.PerOp
	}
	if c := pr.counters(); c != nil && c.PerOp != "" {
		return c.PerOp
	}
	return "op"
}

// profiledSteps are the names of the steps, in the order they ran, that any configuration of
// runs profiled or counted.
func profiledSteps(runs []Input) []string {
	var names []string
	for _, in := range runs {
		for _, n := range stepsWith(in.Run, func(s *result.Step) bool { return s.Profile != nil || s.Counters != nil }) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// collectProfiles is each configuration of r (in order) that profiled or counted step, with
// its profile's stacks read from its run directory.
func collectProfiles(runs []Input, tr *tracer, r *result.Run, step string) []*profiled {
	var out []*profiled
	for _, c := range r.Configs {
		for _, o := range tr.origins[c.Name] {
			s := originStep(runs, o, step)
			if s == nil || (s.Profile == nil && s.Counters == nil) {
				continue
			}
			pr := &profiled{label: c.Name, dir: o.dir, step: s}
			if p := s.Profile; p != nil && p.File != "" {
				pr.stacks, pr.err = flame.LoadStacks(pr.path())
			}
			out = append(out, pr)
			break
		}
	}
	return out
}

// originStep is the step of the configuration o of runs, nil when it has none.
func originStep(runs []Input, o origin, step string) *result.Step {
	for _, in := range runs {
		if in.Dir != o.dir {
			continue
		}
		for _, c := range in.Run.Configs {
			if c.Name == o.name {
				return findStep(c, step)
			}
		}
	}
	return nil
}

// cpuSections are the sections "Where the CPU went", one per step profiled or counted. base is
// the page's base configuration; htmlDir the directory of the HTML page, for the links to the
// pprof files.
func cpuSections(runs []Input, r *result.Run, base, htmlDir string) []Section {
	tr := newTracer(runs, r)
	var out []Section
	for _, step := range profiledSteps(runs) {
		prs := collectProfiles(runs, tr, r, step)
		if len(prs) == 0 {
			continue
		}
		sec := Section{ID: "cpu-" + strings.ReplaceAll(step, " ", "-"), Title: "Where the CPU went: " + step}
		sec.Blocks = append(sec.Blocks, profileBlocks(prs, base, step, htmlDir)...)
		for _, t := range nonEmpty(counterTables(prs, base, step)) {
			sec.Blocks = append(sec.Blocks, Block{Table: &t})
		}
		out = append(out, sec)
	}
	return out
}

// profileBlocks are a step's profiles: what they are, a search box, a flame graph of each
// configuration, a differential one of each against the base, and the top functions.
func profileBlocks(prs []*profiled, base, step, htmlDir string) []Block {
	var withProfile []*profiled
	for _, pr := range prs {
		if pr.profile() != nil {
			withProfile = append(withProfile, pr)
		}
	}
	if len(withProfile) == 0 {
		return nil
	}
	blocks := []Block{{Text: fmt.Sprintf("The CPU profiles of step %s (--cpu-profile): a flame graph of each configuration, each frame as wide as its CPU with its callees, its callers below it; "+
		"hover over a frame for its CPU per operation and its share. Then each configuration against the base, %s: the same graph with each frame red where its CPU per operation grew, "+
		"blue where it shrank (the deeper, the larger the change: full at twice or half), so that steps that did different amounts of work compare. "+
		"Frames under 0.5%% of the CPU are merged into (other) or drawn as their caller's.", step, base)}, {Search: true}}
	t := profileTable(withProfile, step)
	blocks = append(blocks, Block{Table: &t})
	var basePr *profiled
	for i, pr := range withProfile {
		if pr.label == base {
			basePr = pr
		}
		blocks = append(blocks, flameBlock(pr, fmt.Sprintf("flame-%s-%d", step, i), htmlDir))
	}
	for i, pr := range withProfile {
		if pr != basePr && basePr != nil {
			blocks = append(blocks, diffBlock(basePr, pr, fmt.Sprintf("flame-diff-%s-%d", step, i)))
		}
	}
	for _, t := range funcTables(withProfile, basePr, step) {
		blocks = append(blocks, Block{Table: &t})
	}
	return blocks
}

// profileTable says of each configuration's profile of step what took it, of what, its
// samples and CPU per operation, and its file or why it has none.
func profileTable(prs []*profiled, step string) Table {
	t := Table{Title: "CPU profiles: " + step, Header: []string{"config", "tool", "of", "samples", "cpu s", "ops", "cpu/op", "shares", "file"}, Metric: "value"}
	for _, pr := range prs {
		p := pr.profile()
		file := p.File
		switch {
		case p.Error != "":
			file = missing + " (" + p.Error + ")"
		case pr.err != nil:
			file += " (unreadable: " + pr.err.Error() + ")"
		case p.Partial:
			file += " (partial: " + orMissing(p.Note) + ")"
		}
		perOp := missing
		if p.Ops > 0 && p.Error == "" {
			perOp = numfmt.Seconds(p.CPUSeconds/p.Ops) + "/" + pr.perOp()
		}
		samples, cpu := missing, missing
		if p.Error == "" {
			samples, cpu = numfmt.Count(float64(p.Samples)), numfmt.Num(p.CPUSeconds)
		}
		row := []string{pr.label, orMissing(p.Tool), orMissing(p.Of), samples, cpu, opsCell(p.Ops, pr.perOp()), perOp, sharesCell(p.Shares), file}
		src := make([]Source, len(row))
		for j := range src {
			src[j] = Source{Config: pr.label, Step: step, Field: "cpu_profile"}
		}
		t.Rows, t.Src = append(t.Rows, row), append(t.Src, src)
	}
	return t
}

func opsCell(ops float64, op string) string {
	if ops <= 0 {
		return missing
	}
	return numfmt.Count(ops) + " " + plural(op)
}

// plural is the plural of an operation's name: "queries", "inserts", "indexes", "requests".
func plural(op string) string {
	switch {
	case strings.HasSuffix(op, "s"):
		return op
	case strings.HasSuffix(op, "y"):
		return strings.TrimSuffix(op, "y") + "ies"
	case strings.HasSuffix(op, "x"):
		return op + "es"
	}
	return op + "s"
}

// sharesCell is an embedded engine's shares of its profile's CPU: "engine 60%, harness 30%".
func sharesCell(shares map[string]float64) string {
	if len(shares) == 0 {
		return missing
	}
	var total float64
	for _, v := range shares {
		total += v
	}
	var parts []string
	for _, k := range []string{result.ShareEngine, result.ShareHarness, result.ShareRuntime} {
		if v, ok := shares[k]; ok && total > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*v/total))
		}
	}
	return strings.Join(parts, ", ")
}

// flameBlock is pr's flame graph, or a paragraph saying why it has none.
func flameBlock(pr *profiled, id, htmlDir string) Block {
	p := pr.profile()
	if !pr.hasStacks() {
		why := p.Error
		if pr.err != nil {
			why = pr.err.Error()
		}
		return Block{Text: fmt.Sprintf("%s: no CPU profile of this step: %s", pr.label, orMissing(why))}
	}
	if pr.unsampled() {
		return Block{Text: pr.unsampledText()}
	}
	tree := flame.Build(pr.stacks, p.Ops)
	flame.Prune(tree, flame.DefaultPrune())
	f := &Flame{ID: id, Tree: tree, PerOp: pr.perOp(), Path: pr.path(), Href: href(htmlDir, pr.path())}
	f.Title = fmt.Sprintf("%s: CPU of %s by %s, %s samples, %s per %s%s", pr.label, whose(p.Of), orMissing(p.Tool),
		numfmt.Count(float64(p.Samples)), flame.FormatCPU(tree.Root.Value, tree.Unit), f.PerOp, partialMark(p))
	if p.Ops <= 0 {
		f.Lines = append(f.Lines, "the step's operations are unknown: the graph is of the whole CPU, not per operation")
	}
	f.Lines = append(f.Lines, prunedLine(tree)...)
	return Block{Flame: f}
}

// whose names what a profile or counters sampled (result.Of*).
func whose(of string) string {
	switch of {
	case result.OfDBMS:
		return "the DBMS"
	case result.OfEnginebench:
		return "the enginebench process"
	}
	return orMissing(of)
}

func partialMark(p *result.Profile) string {
	if !p.Partial {
		return ""
	}
	return " (partial: " + orMissing(p.Note) + ")"
}

// prunedLine says what pruning left out of tree's drawing, if anything.
func prunedLine(t *flame.Tree) []string {
	if t.Pruned.Frames == 0 || t.Root.Value == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d frames not drawn (under 0.5%% of the CPU, deeper than 64 levels or beyond 600 frames): %.1f%% of the CPU, %.1f%% of it drawn as (other), the rest as their callers'",
		t.Pruned.Frames, 100*t.Pruned.Value/t.Root.Value, 100*t.Pruned.Merged/t.Root.Value)}
}

// href is path relative to the HTML page's directory, with forward slashes and escaped as a
// URL's path (a repeat's "pebble#2" is a directory, not a fragment); path itself when it cannot
// be made relative.
func href(htmlDir, path string) string {
	esc := func(p string) string { return (&url.URL{Path: filepath.ToSlash(p)}).EscapedPath() }
	from, err1 := filepath.Abs(htmlDir)
	to, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return esc(path)
	}
	rel, err := filepath.Rel(from, to)
	if err != nil {
		return esc(path)
	}
	return esc(rel)
}

// diffBlock is pr's differential flame graph against base, or why it has none.
func diffBlock(base, pr *profiled, id string) Block {
	bp, p := base.profile(), pr.profile()
	switch {
	case !pr.hasStacks() || pr.unsampled():
		return Block{} // its own block says why
	case !base.hasStacks():
		return Block{Text: fmt.Sprintf("%s against %s: no differential graph, the base has no profile of this step", pr.label, base.label)}
	case base.unsampled():
		return Block{Text: fmt.Sprintf("%s against %s: no differential graph, the base's profile of this step has no samples", pr.label, base.label)}
	case bp.Ops <= 0 || p.Ops <= 0:
		return Block{Text: fmt.Sprintf("%s against %s: no differential graph, the operations of one of them are unknown (CPU per operation cannot compare)", pr.label, base.label)}
	}
	tree := flame.Diff(base.stacks, pr.stacks, bp.Ops, p.Ops)
	flame.Prune(tree, flame.DefaultPrune())
	f := &Flame{ID: id, Tree: tree, PerOp: pr.perOp()}
	f.Title = fmt.Sprintf("%s against %s: CPU per %s %s vs %s (red grew, blue shrank)", pr.label, base.label, f.PerOp,
		flame.FormatCPU(tree.Root.Value, tree.Unit), flame.FormatCPU(tree.Root.Base, tree.Unit))
	f.Lines = append(f.Lines, fmt.Sprintf("from %s (CPU of %s by %s) against %s (CPU of %s by %s)", pr.path(), whose(p.Of), p.Tool, base.path(), whose(bp.Of), bp.Tool))
	if bp.Of != p.Of {
		f.Lines = append(f.Lines, fmt.Sprintf("careful: the two profiles are of different processes (the CPU of %s against that of %s)", whose(p.Of), whose(bp.Of)))
	}
	f.Lines = append(f.Lines, prunedLine(tree)...)
	return Block{Flame: f}
}

// funcTables are the top functions by CPU per operation: of each configuration against the
// base when the base and another have a profile, else of each configuration alone.
func funcTables(prs []*profiled, base *profiled, step string) []Table {
	var read []*profiled
	for _, pr := range prs {
		if pr.hasStacks() {
			read = append(read, pr)
		}
	}
	var out []Table
	if base != nil && base.hasStacks() && len(read) > 1 {
		for _, pr := range read {
			if pr != base {
				out = append(out, topDiffTable(base, pr, step))
			}
		}
		return out
	}
	for _, pr := range read {
		out = append(out, funcTable(pr, step))
	}
	return out
}

// cpuOpCell is CPU per operation in a table: numfmt's seconds, or the value in its unit.
func cpuOpCell(v float64, unit string) string {
	if unit == flame.UnitSeconds {
		return numfmt.Seconds(v)
	}
	return numfmt.Num(v) + " " + unit
}

func funcTable(pr *profiled, step string) Table {
	t := Table{Title: fmt.Sprintf("Top functions by CPU per %s: %s, step %s", pr.perOp(), pr.label, step),
		Header: []string{"function", "self/op", "total/op", "self %"}}
	ops := pr.profile().Ops
	if ops <= 0 {
		ops = 1 // as flame.Top divides
	}
	perOp := pr.stacks.Total() / ops
	for _, f := range flame.Top(pr.stacks, pr.profile().Ops, topFunctions) {
		share := missing
		if perOp > 0 {
			share = fmt.Sprintf("%.1f%%", 100*f.Self/perOp)
		}
		row := []string{f.Name, cpuOpCell(f.Self, pr.stacks.Unit), cpuOpCell(f.Total, pr.stacks.Unit), share}
		t.Rows, t.Src = append(t.Rows, row), append(t.Src, profileSrc(pr, step, f.Name, len(row)))
	}
	return t
}

// profileSrc is the source of a row of a top table: the configuration's pprof file.
func profileSrc(pr *profiled, step, fn string, n int) []Source {
	src := make([]Source, n)
	for j := range src {
		src[j] = Source{Config: pr.label, Step: step, File: pr.profile().File, Field: "function " + fn}
	}
	return src
}

func topDiffTable(base, pr *profiled, step string) Table {
	t := Table{Title: fmt.Sprintf("Top functions by CPU per %s: %s against %s, step %s", pr.perOp(), pr.label, base.label, step),
		Header: []string{"function", "base self/op", "self/op", "self vs base", "base total/op", "total/op", "total vs base"}}
	unit := pr.stacks.Unit
	for _, d := range flame.TopDiff(base.stacks, pr.stacks, base.profile().Ops, pr.profile().Ops, topFunctions) {
		selfRel, selfCl := relCell(d.Other.Self, d.Base.Self, true, d.Base.Self > 0, lowerBetter)
		totRel, totCl := relCell(d.Other.Total, d.Base.Total, true, d.Base.Total > 0, lowerBetter)
		row := []string{d.Name, cpuOpCell(d.Base.Self, unit), cpuOpCell(d.Other.Self, unit), selfRel, cpuOpCell(d.Base.Total, unit), cpuOpCell(d.Other.Total, unit), totRel}
		t.Rows = append(t.Rows, row)
		t.Class = append(t.Class, []string{"", "", "", selfCl, "", "", totCl})
		src, bsrc := profileSrc(pr, step, d.Name, len(row)), profileSrc(base, step, d.Name, 1)[0]
		src[1], src[4] = bsrc, bsrc
		src[3].Of, src[6].Of = &bsrc, &bsrc
		t.Src = append(t.Src, src)
	}
	return t
}
