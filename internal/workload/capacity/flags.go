package capacity

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/workload"
)

// Flags are the capacity search's flags (--capacity ...), which the workloads that search
// declare among their own.
type Flags struct {
	on          bool
	start       float64
	step        float64
	level       float64
	cooloff     float64
	p99         time.Duration
	debt        []string
	maxLevels   int
	refinements int
}

// maxLevelSeconds bounds the default length of a level: a preset's query seconds, at
// most this (cached's 1800 s would make a search of ten levels last five hours).
const maxLevelSeconds = 300

// Declare declares the capacity search's flags on fl, parsed into c.
func (c *Flags) Declare(fl *pflag.FlagSet) {
	fl.BoolVar(&c.on, "capacity", false, "insert, linkbench: after the steps, search the best sustainable open-loop rate: levels cap.1, cap.2, ... at a rate that ramps, each failed when its achieved rate dips more than 10% below the target, its response-time p99 breaks --capacity-p99 or an engine debt counter breaks --capacity-debt (docs/insert-benchmark.md, Capacity search)")
	workload.FloatVar(fl, &c.start, "capacity-start", 0, "insert, linkbench: the first level's rate per client (insert: rows/s of each background writer, default 100; linkbench: requests/s of each requester, default 100)")
	workload.FloatVar(fl, &c.step, "capacity-step", 2, "insert, linkbench: the factor from one level's rate to the next until a level fails (more than 1)")
	workload.FloatVar(fl, &c.level, "capacity-level-seconds", 0, "insert, linkbench: seconds of each level (default: the preset's --query-seconds or --interval-seconds, at most 300)")
	workload.FloatVar(fl, &c.cooloff, "capacity-cooloff", 5, "insert, linkbench: seconds the writers stay idle before each level but the first")
	fl.DurationVar(&c.p99, "capacity-p99", time.Second, "insert, linkbench: a level fails when the response-time p99 of its paced operations is above this (0: not judged)")
	fl.StringArrayVar(&c.debt, "capacity-debt", nil, "insert, linkbench: COUNTER=LIMIT (repeatable): a level fails when the engine's counter (engine_stats: l0_files, pending_compaction_bytes, history_list_length, dead_tuples, ...) is above LIMIT at its end; an engine that does not report it: not judged")
	fl.IntVar(&c.maxLevels, "capacity-max-levels", 12, "insert, linkbench: levels at most before a level fails")
	fl.IntVar(&c.refinements, "capacity-refinements", 4, "insert, linkbench: levels at most after the first failure, bisecting between the last passing and the failing rate")
}

// Params returns the search of the flags given on fl, where c's flags are declared (off
// without --capacity), its first rate and level length defaulting to start and level; a
// --capacity-* flag without --capacity is refused.
func (c *Flags) Params(fl *pflag.FlagSet, start, level float64) (Params, error) {
	if !c.on {
		var given []string
		own := pflag.NewFlagSet("capacity", pflag.ContinueOnError)
		(&Flags{}).Declare(own)
		own.VisitAll(func(f *pflag.Flag) {
			if fl.Changed(f.Name) {
				given = append(given, "--"+f.Name)
			}
		})
		if len(given) > 0 {
			return Params{}, fmt.Errorf("%s: only with --capacity", strings.Join(given, ", "))
		}
		return Params{}, nil
	}
	debt, err := ParseDebt(c.debt)
	if err != nil {
		return Params{}, err
	}
	p := Params{On: true, Start: start, Factor: c.step, LevelSeconds: min(level, maxLevelSeconds),
		CooloffSeconds: c.cooloff, P99: c.p99, Debt: debt, MaxLevels: c.maxLevels, Refinements: c.refinements}
	if fl.Changed("capacity-start") {
		p.Start = c.start
	}
	if fl.Changed("capacity-level-seconds") {
		p.LevelSeconds = c.level
	}
	return p, p.Validate()
}
