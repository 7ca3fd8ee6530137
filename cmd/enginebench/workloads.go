package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/workload"
)

// flagOwners maps each workload's own flag to the workloads that declare it.
type flagOwners map[string][]string

// addWorkloadFlags adds every workload's own flags to fl (a flag two workloads declare, once)
// and returns which workloads each belongs to.
func addWorkloadFlags(fl *pflag.FlagSet) flagOwners {
	owner := flagOwners{}
	for _, w := range registry.Workloads() {
		own := pflag.NewFlagSet(w.Name, pflag.ContinueOnError)
		w.Flags(own)
		own.VisitAll(func(fg *pflag.Flag) { owner[fg.Name] = append(owner[fg.Name], w.Name) })
		fl.AddFlagSet(own)
	}
	return owner
}

// check refuses a flag given on fl for another workload than name, the one that runs.
func (owner flagOwners) check(fl *pflag.FlagSet, name string) error {
	var wrong []string
	owners := map[string]bool{}
	fl.Visit(func(fg *pflag.Flag) {
		if own, ok := owner[fg.Name]; ok && !slices.Contains(own, name) {
			wrong = append(wrong, "--"+fg.Name)
			for _, o := range own {
				owners[o] = true
			}
		}
	})
	if len(wrong) == 0 {
		return nil
	}
	var of []string
	for o := range owners {
		of = append(of, o)
	}
	sort.Strings(of)
	return fmt.Errorf("%s: not a parameter of the %s workload (%s only); see `enginebench run --help`",
		strings.Join(wrong, ", "), name, strings.Join(of, ", "))
}

// workload builds the named workload from its scale preset and the flags that were given.
func (f *runFlags) workload(fl *pflag.FlagSet, name string) (workload.Benchmark, error) {
	w, ok := registry.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", name)
	}
	o := workload.Options{Scale: f.scale, Steps: f.steps, Shard: f.sh.parsed, Given: fl}
	if fl.Changed("seed") {
		o.Seed = &f.seed
	}
	if fl.Changed("variant") {
		o.Variant = workload.Variant(f.variant)
	}
	if fl.Changed("verify") {
		o.Verify = workload.Verify(f.verify)
	}
	return w.New(o)
}

// workloadHelp returns the help texts that name every workload: the run command's Use, the
// list of workloads for Long, the --steps, --seed and --scale flags' words.
type workloadHelp struct{ use, list, steps, seeds, scales, moreScales string }

// helpOf builds the help texts of the workloads ws, the default first.
func helpOf(ws []registry.Workload) workloadHelp {
	var names, list, steps, seeds, extra []string
	for _, w := range ws {
		names = append(names, w.Name)
		list = append(list, w.Name+": "+w.Title)
		steps = append(steps, w.Name+": "+w.StepsHelp)
		seeds = append(seeds, fmt.Sprintf("%s %d", w.Name, w.Seed))
		if more := slices.DeleteFunc(slices.Clone(w.Scales), func(s string) bool { return slices.Contains(ws[0].Scales, s) }); len(more) > 0 {
			extra = append(extra, w.Name+" also "+strings.Join(more, ", "))
		}
	}
	h := workloadHelp{use: strings.Join(names, "|"), list: strings.Join(list, "; "),
		steps: strings.Join(steps, "; "), seeds: strings.Join(seeds, ", "), scales: strings.Join(ws[0].Scales, ", ")}
	h.moreScales = strings.Join(extra, "; ")
	return h
}

// scaleHelp says which presets --scale takes: the default workload's, then what the others
// add, as "a, b (w also c)" (paren) or "a, b; w also c".
func (h workloadHelp) scaleHelp(paren bool) string {
	switch {
	case h.moreScales == "":
		return h.scales
	case paren:
		return h.scales + " (" + h.moreScales + ")"
	}
	return h.scales + "; " + h.moreScales
}
