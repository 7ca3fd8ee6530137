package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/enginebench/enginebench/internal/badinput"
	"github.com/enginebench/enginebench/internal/flame"
)

// DiffOptions choose what WriteProfileDiff compares.
type DiffOptions struct {
	// A and B are the two configurations (labels, or names that one run has).
	A, B string
	// Step is the one step to compare; empty is every step either profiled or counted.
	Step string
}

// WriteProfileDiff writes, for each step that configuration A or B profiled or counted, their
// top functions by CPU per operation side by side with B's over A's, and their counters per
// operation, naming the files they came from. An unknown configuration or step is a
// *badinput.Error.
func WriteProfileDiff(w io.Writer, runs []Input, o DiffOptions) error {
	if len(runs) == 0 {
		return badinput.Errorf("--diff needs a run directory")
	}
	runs = matrixOrder(runs)
	r, _ := collapseRepeats(merge(runs))
	a, err := findLabel(runs, r, o.A, "--diff")
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	b, err := findLabel(runs, r, o.B, "--diff")
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	if a == b {
		return badinput.Errorf("--diff %s %s: name two different configurations", o.A, o.B)
	}
	tr := newTracer(runs, r)
	steps := profiledSteps(runs)
	if o.Step != "" {
		if !slices.Contains(steps, o.Step) {
			return badinput.Errorf("--step %s: no configuration profiled or counted it; the steps profiled or counted: %s", o.Step, orMissing(strings.Join(steps, ", ")))
		}
		steps = []string{o.Step}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "CPU profiles and counters per operation: %s (A) and %s (B)\n", a, b)
	shown := 0
	for _, step := range steps {
		var pa, pb *profiled
		for _, pr := range collectProfiles(runs, tr, r, step) {
			switch pr.label {
			case a:
				pa = pr
			case b:
				pb = pr
			}
		}
		if pa == nil && pb == nil {
			continue
		}
		shown++
		writeStepDiff(&out, step, pa, pb, a, b)
	}
	if shown == 0 {
		fmt.Fprintf(&out, "\nneither %s nor %s profiled or counted a step (run --cpu-profile, --counters)\n", a, b)
	}
	_, err = io.WriteString(w, out.String())
	return err
}

// writeStepDiff writes one step's profiles and counters of A (pa) and B (pb), either nil.
func writeStepDiff(out *strings.Builder, step string, pa, pb *profiled, a, b string) {
	fmt.Fprintf(out, "\nstep %s\n", step)
	for _, x := range []struct {
		name, label string
		pr          *profiled
	}{{"A", a, pa}, {"B", b, pb}} {
		fmt.Fprintf(out, "  %s %s: %s\n", x.name, x.label, profileOrigin(x.pr))
	}
	if pa != nil && pb != nil && pa.hasStacks() && pb.hasStacks() {
		op := pb.perOp()
		tw := textTable(fmt.Sprintf("top functions by CPU per %s", op), "function", "A self", "B self", "B/A", "A total", "B total", "B/A")
		unit := pb.stacks.Unit
		for _, d := range flame.TopDiff(pa.stacks, pb.stacks, pa.profile().Ops, pb.profile().Ops, 20) {
			tw.AppendRow(toRow([]string{d.Name, cpuOpCell(d.Base.Self, unit), cpuOpCell(d.Other.Self, unit), timesText(d.SelfRatio()),
				cpuOpCell(d.Base.Total, unit), cpuOpCell(d.Other.Total, unit), timesText(d.TotalRatio())}))
		}
		out.WriteString(tw.Render() + "\n")
		if pa.profile().Ops <= 0 || pb.profile().Ops <= 0 {
			out.WriteString("  careful: the operations of one of them are unknown, so its CPU is not divided\n")
		}
	}
	if pa == nil || pb == nil || pa.counters() == nil || pb.counters() == nil {
		return
	}
	ca, cb := pa.counters(), pb.counters()
	fmt.Fprintf(out, "  counters: %s from %s; %s from %s\n", counterNote(ca), filepath.Join(pa.dir, "run.json"), counterNote(cb), filepath.Join(pb.dir, "run.json"))
	tables := counterTables([]*profiled{pa, pb}, pa.label, step)
	abs := tables[0]
	tw := textTable(fmt.Sprintf("counters per %s", pb.perOp()), "event", "A", "B", "B/A")
	va, vb := counterValues(ca, abs.Header[2:len(abs.Header)-1]), counterValues(cb, abs.Header[2:len(abs.Header)-1])
	for j, col := range abs.Header {
		if j < 2 || j == len(abs.Header)-1 {
			continue
		}
		ratio := math.NaN()
		if x, y := va[col], vb[col]; x != nil && y != nil && *x != 0 {
			ratio = *y / *x
		}
		tw.AppendRow(toRow([]string{col, abs.Rows[0][j], abs.Rows[1][j], timesText(ratio)}))
	}
	out.WriteString(tw.Render() + "\n")
}

// profileOrigin says where a configuration's profile of a step came from, or why it has none.
func profileOrigin(pr *profiled) string {
	switch {
	case pr == nil:
		return "not profiled or counted"
	case pr.profile() == nil:
		return "no CPU profile (counters only)"
	case pr.profile().File == "":
		return "no CPU profile: " + orMissing(pr.profile().Error)
	case pr.err != nil:
		return pr.err.Error()
	}
	p := pr.profile()
	per := ""
	if p.Ops > 0 {
		per = fmt.Sprintf(", %s per %s", cpuOpCell(p.CPUSeconds/p.Ops, flame.UnitSeconds), pr.perOp())
	}
	return fmt.Sprintf("%s (CPU of %s by %s, %d samples%s%s)", pr.path(), whose(p.Of), orMissing(p.Tool), p.Samples, per, partialMark(p))
}

func timesText(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return missing
	}
	return fmt.Sprintf("%.2f", r)
}

// textTable is a terminal table with a title and a header.
func textTable(title string, header ...string) table.Writer {
	tw := table.NewWriter()
	tw.SetStyle(table.StyleLight)
	tw.SetTitle(title)
	tw.AppendHeader(toRow(header))
	return tw
}
