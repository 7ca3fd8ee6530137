package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/enginebench/enginebench/internal/result"
)

// spread is what a configuration's repeats of one step measured: min and max hold, figure by
// figure, the least and the greatest over the repeats whose step finished (n of them, of the
// of that ran it), reps are those repeats' steps, in the order of the repeats, and rounds
// their rounds (each repeat's index), by which the confidence intervals pair them with the
// base's (confidence.go).
type spread struct {
	min, max *result.Step
	n, of    int
	reps     []*result.Step
	rounds   []int
}

// spreads are the spreads of a run's repeated configurations: by label, then by step. A nil
// spreads (a run without repeats) has none.
type spreads map[string]map[string]*spread

// get returns the spread of config's step, nil for a configuration that ran once.
func (sp spreads) get(config, step string) *spread {
	return sp[config][step]
}

// repeatLabel is the label of c's configuration: its name without the "#<index>" of its
// repeat (a run prefix of a combined report stays: "a/innodb#2" is "a/innodb").
func repeatLabel(c result.Config) string {
	return strings.TrimSuffix(c.Name, "#"+strconv.Itoa(c.Repeat.Index))
}

// collapseRepeats returns r with the repeats of each configuration (run --repeat K) folded
// into one configuration under its name: each step's figures are the medians over the repeats
// whose step finished, and sp holds their min and max. A run without repeats is returned as
// it is, with nil spreads. r is not changed.
func collapseRepeats(r *result.Run) (*result.Run, spreads) {
	if !slices.ContainsFunc(r.Configs, func(c result.Config) bool { return c.Repeat != nil }) {
		return r, nil
	}
	out := *r
	out.Configs = nil
	sp := spreads{}
	groups := map[string][]result.Config{}
	var order []string
	for _, c := range r.Configs {
		label := c.Name
		if c.Repeat != nil {
			label = repeatLabel(c)
		}
		if _, seen := groups[label]; !seen {
			order = append(order, label)
		}
		groups[label] = append(groups[label], c)
	}
	for _, label := range order {
		reps := groups[label]
		if len(reps) == 1 && reps[0].Repeat == nil {
			out.Configs = append(out.Configs, reps[0])
			continue
		}
		c, steps := collapseConfig(label, reps)
		out.Configs, sp[label] = append(out.Configs, c), steps
	}
	return &out, sp
}

// collapseConfig folds reps, the repeats of one configuration, into one named label, and
// returns it with each step's spread.
func collapseConfig(label string, reps []result.Config) (result.Config, map[string]*spread) {
	c := reps[0]
	c.Name, c.Repeat, c.Notes, c.Error, c.Steps = label, nil, nil, "", nil
	c.Memory = collapseMemory(reps)
	c.Capacity = collapseCapacity(reps)
	c.Notes = repeatNotes(reps)
	for _, rc := range reps {
		switch {
		case rc.Status == result.StatusFailed && c.Status != result.StatusInterrupted,
			rc.Status == result.StatusInterrupted, rc.Status == result.StatusRunning:
			c.Status = rc.Status
		}
		if c.Error == "" && rc.Error != "" {
			c.Error = rc.Name + ": " + rc.Error
		}
	}
	steps := map[string]*spread{}
	for _, name := range repeatSteps(reps) {
		var all, ok []*result.Step
		var rounds []int
		for _, rc := range reps {
			if s := findStep(rc, name); s != nil {
				all = append(all, s)
				if s.Status == result.StatusOK {
					ok, rounds = append(ok, s), append(rounds, roundOf(rc))
				}
			}
		}
		if len(ok) == 0 {
			c.Steps = append(c.Steps, *all[0]) // no repeat finished it: the first says why
			continue
		}
		med := combineSteps(ok, median)
		c.Steps = append(c.Steps, *med)
		steps[name] = &spread{min: combineSteps(ok, slices.Min), max: combineSteps(ok, slices.Max), n: len(ok), of: len(all), reps: ok, rounds: rounds}
	}
	return c, steps
}

// roundOf is the round of a repeat (its index); 0 for a configuration that is no repeat.
func roundOf(c result.Config) int {
	if c.Repeat == nil {
		return 0
	}
	return c.Repeat.Index
}

// repeatNotes say which repeats the configuration's figures fold, with each one's place in the
// run and status ("repeats (median and spread): sqlite#1 (run 1) ok, sqlite#2 (run 3) failed"),
// then the repeats' notes: once a note every repeat has, else under the repeat's name.
func repeatNotes(reps []result.Config) []string {
	var parts, shared, own []string
	for _, rc := range reps {
		part := rc.Name
		if rc.Repeat != nil {
			part += " (run " + strconv.Itoa(rc.Repeat.Order) + ")"
		}
		parts = append(parts, part+" "+rc.Status)
		for _, n := range rc.Notes {
			everyone := !slices.ContainsFunc(reps, func(o result.Config) bool { return !slices.Contains(o.Notes, n) })
			switch {
			case !everyone:
				own = append(own, rc.Name+": "+n)
			case !slices.Contains(shared, n):
				shared = append(shared, n)
			}
		}
	}
	return append(append([]string{"repeats (median and spread): " + strings.Join(parts, ", ")}, shared...), own...)
}

// repeatSteps returns the names of the steps of reps in the order they ran.
func repeatSteps(reps []result.Config) []string {
	var names []string
	for _, rc := range reps {
		for _, s := range rc.Steps {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// collapseMemory is the first repeat's memory cap with the OOM kills of every repeat, so that
// no kill is hidden; nil when no repeat ran under a cap.
func collapseMemory(reps []result.Config) *result.Memory {
	var m *result.Memory
	var kills int64
	for _, rc := range reps {
		if rc.Memory == nil {
			continue
		}
		if m == nil {
			cp := *rc.Memory
			m = &cp
		}
		kills += rc.Memory.OOMKills
	}
	if m != nil {
		m.OOMKills = kills
	}
	return m
}

// median is the median of xs (the mean of the two middle values for an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// combineSteps returns a step whose every figure (every number of run.json's form of the
// step, in the ops, latencies, efficiency, sizes, resources, periods ...) is f over the steps'
// figures, and whose other fields (name, status, times, notes, the per-second series) are
// those of the step whose headline rate is the median (the lower middle one for an even
// count): the charts show that repeat. A figure some steps lack is f over those that have it.
// A marked step stays marked: client-bound when any step was, its SLA met and its
// verification ok only when every step's was.
func combineSteps(steps []*result.Step, f func([]float64) float64) *result.Step {
	first := medianStep(steps)
	docs := []any{stepDoc(first)}
	for _, s := range steps {
		if s != first {
			docs = append(docs, stepDoc(s))
		}
	}
	b, err := json.Marshal(combine(docs, f, reflect.TypeFor[result.Step]()))
	out := *first
	if err == nil {
		var st result.Step
		if json.Unmarshal(b, &st) == nil {
			out = st
			out.Intervals = first.Intervals
		}
	}
	for _, s := range steps {
		out.ClientBound = out.ClientBound || s.ClientBound
		if out.Target != nil && s.Target != nil && !s.Target.SLAMet {
			out.Target.SLAMet = false
		}
		if out.Verify != nil && s.Verify != nil && !s.Verify.OK {
			out.Verify.OK, out.Verify.Detail = false, s.Verify.Detail
		}
	}
	return &out
}

// medianStep is the step whose headline rate is the median of steps' (the lower middle for
// an even count; the first step when none has a rate).
func medianStep(steps []*result.Step) *result.Step {
	sorted := slices.Clone(steps)
	slices.SortStableFunc(sorted, func(a, b *result.Step) int {
		va, _ := stepRate(a)
		vb, _ := stepRate(b)
		switch {
		case va < vb:
			return -1
		case va > vb:
			return 1
		}
		return 0
	})
	return sorted[(len(sorted)-1)/2]
}

// stepDoc is s as run.json holds it, decoded with its numbers kept as written.
func stepDoc(s *result.Step) any {
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// combine applies f to the numbers at each place of docs (decoded JSON of one shape, of Go
// type t): objects key by key, arrays of one length element by element; anything else is the
// first doc's. A number whose field is an integer (a count) is rounded.
func combine(docs []any, f func([]float64) float64, t reflect.Type) any {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch first := docs[0].(type) {
	case map[string]any:
		return combineObjects(docs, f, t)
	case []any:
		for _, d := range docs {
			if a, ok := d.([]any); !ok || len(a) != len(first) {
				return first
			}
		}
		out := make([]any, len(first))
		for i := range first {
			vals := make([]any, len(docs))
			for j, d := range docs {
				vals[j] = d.([]any)[i]
			}
			out[i] = combine(vals, f, elemType(t))
		}
		return out
	case json.Number:
		return combineNumbers(docs, f, t != nil && t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64)
	}
	return docs[0]
}

// combineObjects combines docs, JSON objects of Go type t (a struct or a map), key by key: a
// key some docs lack is combined over those that have it.
func combineObjects(docs []any, f func([]float64) float64, t reflect.Type) any {
	keys := map[string]bool{}
	for _, d := range docs {
		m, ok := d.(map[string]any)
		if !ok {
			return docs[0]
		}
		for k := range maps.Keys(m) {
			keys[k] = true
		}
	}
	out := map[string]any{}
	for k := range keys {
		var vals []any
		for _, d := range docs {
			if v, ok := d.(map[string]any)[k]; ok {
				vals = append(vals, v)
			}
		}
		out[k] = combine(vals, f, keyType(t, k))
	}
	return out
}

// elemType is the element type of a slice or map type t; nil when t is neither.
func elemType(t reflect.Type) reflect.Type {
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		return t.Elem()
	}
	return nil
}

// keyType is the type of key k of a JSON object of Go type t: a map's element, or the struct
// field whose json name is k; nil when unknown.
func keyType(t reflect.Type, k string) reflect.Type {
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Map {
		return t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		fd := t.Field(i)
		if name, _, _ := strings.Cut(fd.Tag.Get("json"), ","); name == k || (name == "" && fd.Name == k) {
			return fd.Type
		}
	}
	return nil
}

// combineNumbers is f over docs, which should all be numbers (else the first doc), rounded
// when whole.
func combineNumbers(docs []any, f func([]float64) float64, whole bool) any {
	xs := make([]float64, len(docs))
	for i, d := range docs {
		n, ok := d.(json.Number)
		if !ok {
			return docs[0]
		}
		v, err := n.Float64()
		if err != nil {
			return docs[0]
		}
		xs[i] = v
	}
	v := f(xs)
	if whole {
		return json.Number(strconv.FormatInt(int64(math.Round(v)), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// span returns the figure get reads from config's step s, with its spread over the
// configuration's repeats: a point for a configuration that ran once. ok is false when s has
// no such figure.
func (sp spreads) span(config, step string, s *result.Step, get func(*result.Step) (float64, bool)) (span, bool) {
	v, ok := get(s)
	if !ok {
		return span{}, false
	}
	sr := sp.get(config, step)
	if sr == nil {
		return point(v), true
	}
	lo, lok := get(sr.min)
	hi, hok := get(sr.max)
	if !lok || !hok {
		return point(v), true
	}
	return span{v: v, lo: math.Min(lo, v), hi: math.Max(hi, v), n: sr.n}, true
}

// okFigure reads a figure of a finished step: get's value, ok false when the step did not
// finish or lacks it.
func okFigure(get func(*result.Step) *float64) func(*result.Step) (float64, bool) {
	return func(s *result.Step) (float64, bool) {
		if s == nil || s.Status != result.StatusOK {
			return 0, false
		}
		if p := get(s); p != nil {
			return *p, true
		}
		return 0, false
	}
}

// spreadText is a figure's spread over the repeats, " (lo-hi)", with how many repeats
// finished the step when not all did: " (lo-hi, 2 of 3)"; nothing when every repeat
// finished it and printed the same.
func spreadText(lo, hi string, sr *spread) string {
	if lo == hi && sr.n == sr.of {
		return "" // every repeat printed the same
	}
	t := " (" + lo + "-" + hi
	if sr.n < sr.of {
		t += ", " + strconv.Itoa(sr.n) + " of " + strconv.Itoa(sr.of)
	}
	return t + ")"
}

// spreadCells are cells(s), each figure followed by its spread over the repeats when sr is not
// nil: the least and the greatest of that cell over the repeats' own steps (sr.reps), so that a
// figure a cell derives from several fields (a ratio, a difference) is spread as each repeat
// printed it. A cell that is not a figure (a name, a status, "yes", "-") stays as it is.
func spreadCells(cells func(*result.Step) []string, s *result.Step, sr *spread) []string {
	med := cells(s)
	if sr == nil {
		return med
	}
	reps := make([][]string, len(sr.reps))
	for i, rs := range sr.reps {
		reps[i] = cells(rs)
	}
	return withSpreads(med, reps, sr.of)
}

// withSpreads returns med, cells of a median, each followed by its spread (figureSpread) over
// reps, the same cells of each repeat that finished the step, of the of that ran it.
func withSpreads(med []string, reps [][]string, of int) []string {
	for j := range med {
		col := make([]string, len(reps))
		for i, rc := range reps {
			if j < len(rc) {
				col[i] = rc[j]
			}
		}
		med[j] += figureSpread(med[j], col, of)
	}
	return med
}

// spreadCell is cell(s) with its spread over the repeats (spreadCells).
func spreadCell(cell func(*result.Step) string, s *result.Step, sr *spread) string {
	return spreadCells(func(s *result.Step) []string { return []string{cell(s)} }, s, sr)[0]
}

// cells are cells(s) of config's step s, each figure with its spread over the configuration's
// repeats (spreadCells); as they are for a configuration that ran once.
func (sp spreads) cells(config string, s *result.Step, cells func(*result.Step) []string) []string {
	return spreadCells(cells, s, sp.get(config, s.Name))
}

// figureSpread is the spread text (spreadText) of med, a figure cell of a median, over reps,
// the same cell of each repeat that finished the step, of the of repeats that ran it: from the
// least to the greatest figure, med included; ", n of K" counts the repeats that have the
// figure. Nothing when med is not a figure or no repeat has it.
func figureSpread(med string, reps []string, of int) string {
	v, ok := parseFigure(med)
	if !ok {
		return ""
	}
	lo, hi, lv, hv, n := med, med, v, v, 0
	for _, c := range reps {
		x, ok := parseFigure(c)
		if !ok {
			continue
		}
		n++
		if x < lv {
			lo, lv = c, x
		}
		if x > hv {
			hi, hv = c, x
		}
	}
	if n == 0 {
		return ""
	}
	return spreadText(lo, hi, &spread{n: n, of: of})
}

// figureUnits are the suffixes of numfmt's forms (and of a percentage) with their scale.
var figureUnits = []struct {
	suffix string
	scale  float64
}{{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"%", 1}}

// parseFigure reads back a figure as the tables print it (numfmt's Num, Count, Duration and
// Seconds, a percentage, dollars, "<0.001"), to order the repeats' cells of one column; ok is
// false for any other text.
func parseFigure(text string) (float64, bool) {
	t, below := strings.CutPrefix(text, "<")
	t = strings.TrimPrefix(t, "$")
	scale := 1.0
	for _, u := range figureUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, scale = rest, u.scale
			break
		}
	}
	if t == "" || !strings.ContainsAny(t[:1], "0123456789-") {
		return 0, false
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	if below {
		v /= 2 // less than v
	}
	return v * scale, true
}

// repeatLegend explains the medians and spreads of a run with repeats; nothing without.
func repeatLegend(sp spreads) []string {
	if len(sp) == 0 {
		return nil
	}
	return []string{
		"Repeats (run --repeat K): each configuration is shown once, by the median of its repeats (NAME#1 ... NAME#K, run interleaved, each on a fresh engine) that finished the step; " +
			"every figure of a step is followed by the spread of the repeats, min-max as each repeat printed it (\"20.1k (19.5k-20.8k)\"; \", 2 of 3\" when only two of the three repeats that ran the step have it; nothing when every repeat printed the same): " +
			"the rates, latencies, quartiles and response-time distributions, the SLA's and rate limit's achieved rates, the steps' times, probes and fairness, the resources and efficiency per step, the engine's counters, LinkBench's and iiBench's tables (iiBench's rates against rows inserted over each repeat's periods), and the relative cells and the top summary's ratios. " +
			"A figure derived from several fields (a ratio, a bucket's share) is spread over the figure each repeat printed. " +
			"A step's per-second charts show the repeat whose rate in that step is the median (the lower middle one for an even K).",
	}
}

// spreadColourLegend says how repeats change the colour of a relative cell (spanClass).
const spreadColourLegend = "Relative cells with repeats: the ratio of the medians, then the configuration's spread (each repeat's min and max divided by the base's median); " +
	"it is blue or gold only when the ratio lies outside 0.95-1.05 AND the spreads do not overlap (every repeat of the configuration above every repeat of the base, or below), so a difference within the measured noise is not coloured."

// bounds returns copies of r, a run whose repeats collapseRepeats folded, in which every step
// that has a spread is its min step (lo) or its max step (hi): the runs of the least and the
// greatest figures.
func (sp spreads) bounds(r *result.Run) (lo, hi *result.Run) {
	pick := func(max bool) *result.Run {
		out := *r
		out.Configs = slices.Clone(r.Configs)
		for i, c := range out.Configs {
			steps := slices.Clone(c.Steps)
			for j, s := range steps {
				if sr := sp.get(c.Name, s.Name); sr != nil {
					steps[j] = *sr.min
					if max {
						steps[j] = *sr.max
					}
				}
			}
			out.Configs[i].Steps = steps
		}
		return &out
	}
	return pick(false), pick(true)
}
