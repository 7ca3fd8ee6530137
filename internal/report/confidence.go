package report

import (
	"fmt"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
	"github.com/enginebench/enginebench/internal/stats"
)

// The confidence of the ratios to the base, in a run with repeats (run --repeat): each
// configuration's rate divided by the base's, per step and for the at-a-glance geometric mean,
// with its 95% interval from the repeats paired by round (stats.GlanceInterval), and the words
// that say whether a difference is inside the noise.

// confidenceTitle is the title of the table of intervals.
const confidenceTitle = "Ratio to the base with its 95% confidence interval"

// rounds are config's headline rates (rates) by round, from its repeats that finished each
// step; empty for a configuration that ran once.
func (sp spreads) rounds(config string, rates []stats.Rate) stats.Rounds {
	out := stats.Rounds{}
	for _, rt := range rates {
		sr := sp.get(config, rt.Step)
		if sr == nil {
			continue
		}
		for i, s := range sr.reps {
			out.Add(sr.rounds[i], s, []stats.Rate{rt})
		}
	}
	return out
}

// glanceRates are the stats.Rates of the top summary's columns.
func glanceRates(cols []topCol) []stats.Rate {
	out := make([]stats.Rate, len(cols))
	for i, c := range cols {
		out[i] = stats.Rate{Step: c.step, Op: c.op}
	}
	return out
}

// pairable reports whether config and base can be paired by round: both repeated, in one
// run (a combined report's labels start with their run's: the rounds of two runs did not run
// side by side).
func pairable(sp spreads, config, base string) bool {
	return config != base && sp[config] != nil && sp[base] != nil && runPrefix(config) == runPrefix(base)
}

// runPrefix is the run part of a combined report's label ("a/" of "a/pebble"); "" for a
// configuration of a single run.
func runPrefix(label string) string {
	if i := strings.LastIndexByte(label, '/'); i >= 0 {
		return label[:i+1]
	}
	return ""
}

// intervalText is an interval's ratio with its bounds: "1.04 (0.97-1.11)".
func intervalText(iv stats.Interval) string {
	return fmt.Sprintf("%.2f (%.2f-%.2f)", iv.Estimate, iv.Lo, iv.Hi)
}

// intervalClass colours an interval that lies wholly above 1 (better) or below it (worse);
// one that contains 1 is inside the noise and is not coloured.
func intervalClass(iv stats.Interval) string {
	switch {
	case iv.Lo > 1:
		return ClassBetter
	case iv.Hi < 1:
		return ClassWorse
	}
	return ""
}

// intervalCell is an interval's cell: its text and colour, "-" when it has none.
func intervalCell(iv stats.Interval, err error, src Source) topCell {
	if err != nil {
		return dash(src)
	}
	return topCell{text: intervalText(iv), class: intervalClass(iv), src: src}
}

// confidenceTable has a row per repeated configuration but the base, and a cell per column of
// the top summary and for their geometric mean: its ratio to the base with its 95% interval
// (stats.StepInterval, stats.GlanceInterval); ok false when no configuration has one.
func confidenceTable(r *result.Run, base string, sp spreads) (Table, bool) {
	cols := topColumns(r)
	rates := glanceRates(cols)
	t := Table{Title: confidenceTitle + " (relative to " + base + ")", Header: []string{"config"}, Metric: "vs base"}
	for _, c := range cols {
		t.Header = append(t.Header, c.name)
	}
	t.Header = append(t.Header, "geometric mean")
	baseRounds := sp.rounds(base, rates)
	for _, c := range r.Configs {
		if !pairable(sp, c.Name, base) {
			continue
		}
		cr := sp.rounds(c.Name, rates)
		cells := []topCell{{text: c.Name, src: Source{Config: c.Name, Field: "name"}}}
		for _, col := range cols {
			src := Source{Config: c.Name, Step: col.step, Field: rateField(col), Of: &Source{Config: base, Step: col.step, Field: rateField(col)}}
			iv, err := stats.StepInterval(cr, baseRounds, stats.Rate{Step: col.step, Op: col.op}, stats.Level)
			cells = append(cells, intervalCell(iv, err, src))
		}
		all := Source{Config: c.Name, Step: stepList(cols) + " (geometric mean by round)", Field: "ops.<primary_op>.per_sec", Of: &Source{Config: base, Step: stepList(cols), Field: "ops.<primary_op>.per_sec"}}
		iv, err := stats.GlanceInterval(cr, baseRounds, rates, stats.Level)
		cells = append(cells, intervalCell(iv, err, all))
		row, class, src := make([]string, len(cells)), make([]string, len(cells)), make([]Source, len(cells))
		for j, cell := range cells {
			row[j], class[j], src[j] = cell.text, cell.class, cell.src
		}
		t.Rows, t.Class, t.Src = append(t.Rows, row), append(t.Class, class), append(t.Src, src)
	}
	return t, len(t.Rows) > 0
}

// noiseLines say in words, for each repeated configuration but the base, whether its
// at-a-glance ratio to the base (the geometric mean over the steps, paired by round) is inside
// the noise: "pebble against sqlite: 1.04x, inside the noise (95% interval 0.97–1.11, 3
// rounds)", or outside it, better or worse. None for a run without repeats. The page's top
// summary shows them; the terminal summary shows them with the at-a-glance table
// (glanceNoise).
func noiseLines(r *result.Run, base string, sp spreads) []string {
	rates := glanceRates(topColumns(r))
	baseRounds := sp.rounds(base, rates)
	var lines []string
	for _, c := range r.Configs {
		if !pairable(sp, c.Name, base) {
			continue
		}
		iv, err := stats.GlanceInterval(sp.rounds(c.Name, rates), baseRounds, rates, stats.Level)
		lines = append(lines, noiseLine(c.Name, base, iv, err))
	}
	return lines
}

// noiseLine is the words of one configuration's interval against the base (noiseLines).
func noiseLine(config, base string, iv stats.Interval, err error) string {
	who := config + " against " + base + ": "
	if err != nil {
		return who + "no confidence interval: fewer than two rounds in which both finished every step"
	}
	within := fmt.Sprintf("(%.0f%% interval %.2f–%.2f, %d rounds)", 100*iv.Level, iv.Lo, iv.Hi, iv.N)
	switch intervalClass(iv) {
	case ClassBetter:
		return fmt.Sprintf("%s%.2fx, better, outside the noise %s", who, iv.Estimate, within)
	case ClassWorse:
		return fmt.Sprintf("%s%.2fx, worse, outside the noise %s", who, iv.Estimate, within)
	}
	return fmt.Sprintf("%s%.2fx, inside the noise %s", who, iv.Estimate, within)
}

// glanceNoise are the words of noiseLines for the terminal summary, against the first
// configuration as the at-a-glance table there (glanceTables); none without repeats.
func glanceNoise(r *result.Run) []string {
	r, sp := collapseRepeats(r)
	if len(r.Configs) == 0 {
		return nil
	}
	return noiseLines(r, r.Configs[0].Name, sp)
}

// confidenceBlocks are, in a run with repeats, the top summary's words on the noise (a
// paragraph per configuration, above its table) and the table of intervals with how to read
// it (below); none without repeats.
func confidenceBlocks(r *result.Run, base string, sp spreads) (words, intervals []Block) {
	lines := noiseLines(r, base, sp)
	t, ok := confidenceTable(r, base, sp)
	if len(lines) == 0 || !ok {
		return nil, nil
	}
	for _, l := range lines {
		words = append(words, Block{Text: l})
	}
	text := "With repeats, each ratio to the base has its 95% confidence interval: the repeats run in rounds (A#1 B#1 A#2 B#2 ...), each round's ratio of the configuration's rate to the base's is one sample, " +
		"and the interval is Student's t interval of the mean of their logarithms, exponentiated (paired by round, as Kalibera and Jones recommend, ISMM 2013), so its centre is the geometric mean of the rounds' ratios, near but not always equal to the ratio of the medians above. " +
		"geometric mean: the same for the geometric mean over the steps of each round's ratios (the at-a-glance figure). Blue: the whole interval above 1 (better), gold: below 1 (worse); uncoloured: it contains 1, the difference is inside the noise. \"-\": fewer than two rounds in which both finished."
	return words, []Block{{Text: text}, {Table: &t}}
}
