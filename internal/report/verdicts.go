package report

import (
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// Titles of the verdicts' tables and of the page's sections that show them.
const (
	hostVerdictsTitle = "Verdicts: the host"
	stepVerdictsTitle = "Verdicts: the steps"
	flagsTitle        = "Flags"
	verdictsTitle     = "Verdicts"
)

// verdictRun is a run whose verdicts a summary or a page shows. label is its run label
// (runLabels), which the cells' sources name; shown says whether the tables name it (a page
// of several runs); prefix whether its configurations' names carry it, as merge labels them.
type verdictRun struct {
	run    *result.Run
	label  string
	shown  bool
	prefix bool
}

// oneRun is the verdicts of r alone, a run the summary shows.
func oneRun(r *result.Run) []verdictRun { return []verdictRun{{run: r}} }

// pageRuns are the verdicts of the runs of a page, labelled and named as the page names them.
func pageRuns(runs []Input) []verdictRun {
	labels, plain := runLabels(runs), len(runs) == 1 || matrixJoin(runs)
	out := make([]verdictRun, len(runs))
	for i, in := range runs {
		out[i] = verdictRun{run: in.Run, label: labels[i], shown: len(runs) > 1, prefix: !plain}
	}
	return out
}

// configName is c's name as the tables show it: under its run's label when the page prefixes
// it. A repeat keeps its own name (sqlite#2): each repeat's environment is its own, so its
// verdicts are not folded into a median.
func (vr verdictRun) configName(c result.Config) string {
	if vr.prefix {
		return vr.label + "/" + c.Name
	}
	return c.Name
}

// hasVerdicts reports whether any of the runs, or any of their steps, has a verdict: a run
// without (one made before the checks) shows nothing of them, exactly as before.
func hasVerdicts(vrs []verdictRun) bool {
	for _, vr := range vrs {
		if len(vr.run.Verdicts) > 0 {
			return true
		}
		for _, c := range vr.run.Configs {
			for _, s := range c.Steps {
				if len(s.Verdicts) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// verdictTables are the tables of every verdict of the runs: the host's (a row per check of
// each run), then the steps' (a row per check of each step of each configuration). A run
// without verdicts adds no row; the caller leaves out a table without rows.
func verdictTables(vrs []verdictRun) []Table {
	cols := []string{"check", "state", "value", "threshold", "message"}
	host := Table{Title: hostVerdictsTitle, Header: cols}
	multi := len(vrs) > 0 && vrs[0].shown
	if multi {
		host.Header = append([]string{"run"}, cols...)
	}
	steps := Table{Title: stepVerdictsTitle, Header: append([]string{"config", "step"}, cols...)}
	for _, vr := range vrs {
		for i, v := range vr.run.Verdicts {
			field := fmt.Sprintf("verdicts[%d]", i)
			src := Source{Run: vr.label, Field: field}
			var lead []string
			if multi {
				lead = []string{vr.label}
			}
			addVerdictRow(&host, lead, v, src)
		}
		for _, c := range vr.run.Configs {
			name := vr.configName(c)
			for _, s := range c.Steps {
				for i, v := range s.Verdicts {
					src := Source{Run: vr.label, Config: c.Name, Step: s.Name, Field: fmt.Sprintf("verdicts[%d]", i)}
					addVerdictRow(&steps, []string{name, s.Name}, v, src)
				}
			}
		}
	}
	return []Table{host, steps}
}

// withUnit is a verdict's figure with its unit ("7.2 %", "0.3 reads/op"), "-" without one.
func withUnit(v *float64, unit string) string {
	if v == nil || unit == "" {
		return optNum(v)
	}
	return optNum(v) + " " + unit
}

// addVerdictRow adds v to t after the cells lead: its check, state, value, threshold and
// message, the state coloured (a flag bad, an unmeasured check missing) and each cell's
// source the verdict's field (src.Field) in run.json.
func addVerdictRow(t *Table, lead []string, v result.Verdict, src Source) {
	row := append(append([]string{}, lead...), v.Check, verdictState(v.State), withUnit(v.Value, v.Unit), withUnit(v.Threshold, v.Unit), v.Message)
	class := make([]string, len(row))
	switch v.State {
	case result.VerdictFlag:
		class[len(lead)+1] = ClassBad
	case result.VerdictUnmeasured:
		class[len(lead)+1] = ClassMissing
	}
	srcs := make([]Source, len(row))
	for j, f := range []string{"check", "state", "value", "threshold", "message"} {
		s := src
		s.Field += "." + f
		srcs[len(lead)+j] = s
	}
	t.Rows, t.Class, t.Src = append(t.Rows, row), append(t.Class, class), append(t.Src, srcs)
}

// verdictState is a verdict's state as the tables show it: an unmeasured check is "-", never
// a pass.
func verdictState(state string) string {
	if state == result.VerdictUnmeasured {
		return missing
	}
	return state
}

// flagNote is a flagged verdict as the flags say it: who it is of (a configuration, "host"), its
// step ("" for the host's), its check and its text.
type flagNote struct {
	who, step, check, text string
}

// line is the flag in words: "pebble: steal 7% during qr100: figures may be noisy".
func (f flagNote) line() string { return f.who + ": " + f.text }

// flags are the flagged verdicts of the runs, the host's first, then each configuration's
// steps' in order. A message that does not name its step is preceded by it.
func flags(vrs []verdictRun) []flagNote {
	var out []flagNote
	for _, vr := range vrs {
		who := "host"
		if vr.shown {
			who = vr.label + " host"
		}
		for _, v := range result.Flagged(vr.run.Verdicts) {
			out = append(out, flagNote{who: who, check: v.Check, text: flagText(v)})
		}
		for _, c := range vr.run.Configs {
			for _, s := range c.Steps {
				for _, v := range result.Flagged(s.Verdicts) {
					text := flagText(v)
					if !strings.Contains(text, s.Name) {
						text = s.Name + ": " + text
					}
					out = append(out, flagNote{who: vr.configName(c), step: s.Name, check: v.Check, text: text})
				}
			}
		}
	}
	return out
}

// flagGroup is the flags of one check of one configuration (or host): the first, and the
// other steps it flagged.
type flagGroup struct {
	first flagNote
	steps []string
}

// flagGroups are the flags of the runs (flags), those of one check of one configuration
// together, in the order of their first.
func flagGroups(vrs []verdictRun) []*flagGroup {
	var groups []*flagGroup
	byKey := map[[2]string]*flagGroup{}
	for _, f := range flags(vrs) {
		key := [2]string{f.who, f.check}
		if g := byKey[key]; g != nil && f.step != "" {
			g.steps = append(g.steps, f.step)
			continue
		}
		g := &flagGroup{first: f}
		byKey[key] = g
		groups = append(groups, g)
	}
	return groups
}

// maxNamedSteps is the number of other steps a flag line names.
const maxNamedSteps = 5

// line is the group in words: the first flag, then the other steps it flagged, up to
// maxNamedSteps of them ("pebble: steal 7% during l.i0: figures may be noisy (and 3 more
// steps: l.x, l.i1, qr100)").
func (g flagGroup) line() string {
	s := g.steps
	switch {
	case len(s) == 0:
		return g.first.line()
	case len(s) == 1:
		return g.first.line() + " (and step " + s[0] + ")"
	case len(s) > maxNamedSteps:
		return fmt.Sprintf("%s (and %d more steps: %s, ...)", g.first.line(), len(s), strings.Join(s[:maxNamedSteps], ", "))
	}
	return fmt.Sprintf("%s (and %d more steps: %s)", g.first.line(), len(s), strings.Join(s, ", "))
}

// flagLines say in words the flags of the runs, a line per check of each configuration
// (flagGroups); the verdicts' tables have a row per step.
func flagLines(vrs []verdictRun) []string {
	var out []string
	for _, g := range flagGroups(vrs) {
		out = append(out, g.line())
	}
	return out
}

// flagText is a flagged verdict in words: its message, or for one without a message its check,
// with its value and threshold when it has them.
func flagText(v result.Verdict) string {
	switch {
	case v.Message != "":
		return v.Message
	case v.Value != nil && v.Threshold != nil:
		return fmt.Sprintf("%s %s above its threshold %s: figures may be off", v.Check, optNum(v.Value), optNum(v.Threshold))
	}
	return v.Check + " flagged: figures may be off"
}

// flagCount says how many of the runs' verdicts are flagged and of how many, and how many could
// not be measured, with note in the parentheses: "2 flags of 14 checks (3 unmeasured; note)".
func flagCount(vrs []verdictRun, note string) string {
	var all, flagged, unmeasured int
	count := func(vs []result.Verdict) {
		for _, v := range vs {
			all++
			switch v.State {
			case result.VerdictFlag:
				flagged++
			case result.VerdictUnmeasured:
				unmeasured++
			}
		}
	}
	for _, vr := range vrs {
		count(vr.run.Verdicts)
		for _, c := range vr.run.Configs {
			for _, s := range c.Steps {
				count(s.Verdicts)
			}
		}
	}
	text := counted(flagged, "flag")
	if flagged == 0 {
		text = "no flag"
	}
	text += " of " + counted(all, "check")
	var in []string
	if unmeasured > 0 {
		in = append(in, fmt.Sprintf("%d unmeasured", unmeasured))
	}
	if note != "" {
		in = append(in, note)
	}
	if len(in) > 0 {
		text += " (" + strings.Join(in, "; ") + ")"
	}
	return text
}

// counted is n and the noun, in the plural unless n is 1.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// verdictLegend explains the verdicts, for a run that has some.
const verdictLegend = "Verdicts: the checks of whether the figures can be trusted, of the host the run ran on and of each step's environment, of what a step declared against what it measured, and of its steady state. " +
	"state flag: the value passed its threshold, so the figures may be off (the message says how); ok: within its threshold; \"-\": the sensor is absent or the check could not be made (the message says why), never a pass. " +
	"value and threshold are in the check's unit (docs/results.md, Verdicts); --threshold CHECK=VALUE sets a threshold. A repeat's verdicts are its own, not folded into the median."

// verdictSections are the page's sections of the runs' verdicts: the flags in words, to go
// near the top summary, and every verdict in tables, to go before the metadata. A page of runs
// without verdicts (made before the checks) has neither.
func verdictSections(vrs []verdictRun) (flagged, all *Section) {
	if !hasVerdicts(vrs) {
		return nil, nil
	}
	all = &Section{ID: "verdicts", Title: verdictsTitle, Blocks: []Block{{Text: "Every check of the host and of each step: " + flagCount(vrs, "") +
		". A flag says a figure may not be trusted as it is; \"-\" is a check whose sensor is absent, never a pass (the legend says more)."}}}
	for _, t := range nonEmpty(verdictTables(vrs)) {
		all.Blocks = append(all.Blocks, Block{Table: &t})
	}
	flagged = &Section{ID: "flags", Title: flagsTitle, Blocks: []Block{{Text: flagsText(vrs, "the Verdicts section has every check")}}}
	if lines := flagLines(vrs); len(lines) > 0 {
		flagged.Blocks = append(flagged.Blocks, Block{Items: lines})
	}
	return flagged, all
}

// flagsText introduces the flags: how many of how many checks, with note (where every check
// is), and what a flag means.
func flagsText(vrs []verdictRun, note string) string {
	text := flagCount(vrs, note)
	if len(flags(vrs)) > 0 {
		return text + ": these figures may not be trusted as they are."
	}
	return text + "."
}
