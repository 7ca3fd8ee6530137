package merge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/enginebench/enginebench/internal/hdrlog"
	"github.com/enginebench/enginebench/internal/result"
)

// Merge merges the shards (as Load returns them) into the run directory dir: run.json,
// intervals.csv and the merged HdrHistogram logs, and returns the merged run. smp, when not
// nil, is the database host's sample, whose figures become the run's server-side costs.
// command is the merge's command line.
func Merge(shards []Shard, dir *result.Dir, smp *Sample, command []string, rules Rules) (*result.Run, error) {
	run := mergeHeader(shards, smp, command)
	hdrRoot := filepath.Join(dir.Path(), hdrlog.DirName)
	for ci := range shards[0].Run.Configs {
		c, err := mergeConfig(shards, ci, smp, hdrRoot, rules)
		if err != nil {
			return nil, err
		}
		run.Configs = append(run.Configs, c)
	}
	run.Status, run.Error = runStatus(shards)
	if err := errors.Join(dir.WriteRun(run), dir.WriteIntervals(run)); err != nil {
		return nil, err
	}
	return run, nil
}

// mergeHeader returns the merged run without its configurations: shard 0's tool, workload and
// settings, the run id the shards share, from the first shard's start to the last one's end.
func mergeHeader(shards []Shard, smp *Sample, command []string) *result.Run {
	first := shards[0].Run
	sh := first.Shard
	run := &result.Run{Tool: first.Tool, RunID: sh.Run, Command: command, Host: first.Host,
		ClientCPULimitPct: first.ClientCPULimitPct, Workload: first.Workload, StartedAt: first.StartedAt,
		FinishedAt: first.FinishedAt, Merged: &result.Merged{Run: sh.Run, Count: sh.Count}}
	for _, s := range shards {
		run.Merged.Shards = append(run.Merged.Shards, s.Dir)
		run.StartedAt = earlier(run.StartedAt, s.Run.StartedAt)
		if s.Run.FinishedAt.After(run.FinishedAt) {
			run.FinishedAt = s.Run.FinishedAt
		}
	}
	run.Notes = append(run.Notes, fmt.Sprintf("merged from the %d shards of run %s (%s): every figure is all their clients'",
		sh.Count, sh.Run, strings.Join(run.Merged.Shards, ", ")))
	if smp != nil {
		run.Merged.Sample = smp.Dir
		run.Host = smp.Host
		run.Notes = append(run.Notes, "host: the database host's, from the sample "+smp.Dir+"; CPU, IO and sizes are the database host's, client CPU the shards' summed")
	} else {
		run.Notes = append(run.Notes, "host: shard 0's client host; the database host's CPU, IO and sizes were not sampled (merge --sample): they are absent, client CPU is the shards' summed")
	}
	return run
}

// earlier returns the earlier of a and b, ignoring a zero b.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// runStatus returns the merged run's status and error: failed when a shard's run failed,
// interrupted when one was, else ok; the error names the shards.
func runStatus(shards []Shard) (string, string) {
	status := result.StatusOK
	var errs []string
	for _, s := range shards {
		r := s.Run
		switch r.Status {
		case result.StatusFailed, result.StatusKilled:
			status = result.StatusFailed
		case result.StatusInterrupted:
			if status == result.StatusOK {
				status = result.StatusInterrupted
			}
		}
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("shard %d: %s", r.Shard.Index, r.Error))
		}
	}
	return status, strings.Join(errs, "; ")
}

// mergeConfig merges configuration ci of every shard: its steps, matched by name.
func mergeConfig(shards []Shard, ci int, smp *Sample, hdrRoot string, rules Rules) (result.Config, error) {
	base := shards[0].Run.Configs[ci]
	c := result.Config{Name: base.Name, Engine: base.Engine, Version: base.Version, Settings: base.Settings,
		Status: result.StatusOK, Steps: []result.Step{}}
	cfgs := make([]*result.Config, len(shards))
	for i := range shards {
		cfgs[i] = &shards[i].Run.Configs[ci]
		c.Status = worse(c.Status, cfgs[i].Status)
		if cfgs[i].Error != "" {
			c.Error = joinErr(c.Error, fmt.Sprintf("shard %d: %s", i, cfgs[i].Error))
		}
	}
	c.Notes = shardNotes(cfgs)
	for _, name := range stepNames(cfgs) {
		steps := make([]*result.Step, len(cfgs))
		for i, sc := range cfgs {
			for k := range sc.Steps {
				if sc.Steps[k].Name == name {
					steps[i] = &sc.Steps[k]
				}
			}
		}
		st, err := mergeStep(shards, c.Name, steps, smp, hdrRoot, rules)
		if err != nil {
			return c, fmt.Errorf("%s/%s: %w", c.Name, name, err)
		}
		c.Steps = append(c.Steps, *st)
	}
	return c, nil
}

// worse returns the worse of two statuses: failed, interrupted, then the others.
func worse(a, b string) string {
	rank := func(s string) int {
		switch s {
		case result.StatusFailed, result.StatusKilled:
			return 2
		case result.StatusInterrupted:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// shardNotes returns the configurations' notes, each once, those not every shard has marked
// with the shards that have it.
func shardNotes(cfgs []*result.Config) []string {
	var order []string
	by := map[string][]string{}
	for i, c := range cfgs {
		for _, n := range c.Notes {
			if by[n] == nil {
				order = append(order, n)
			}
			by[n] = append(by[n], fmt.Sprint(i))
		}
	}
	var out []string
	for _, n := range order {
		if len(by[n]) == len(cfgs) {
			out = append(out, n)
		} else {
			out = append(out, "shard "+strings.Join(by[n], ", ")+": "+n)
		}
	}
	return out
}

// stepNames returns the names of the steps of every configuration, in the order of the one
// with the most steps, then those of the others it lacks.
func stepNames(cfgs []*result.Config) []string {
	var names []string
	seen := map[string]bool{}
	longest := 0
	for i, c := range cfgs {
		if len(c.Steps) > len(cfgs[longest].Steps) {
			longest = i
		}
	}
	for _, c := range append([]*result.Config{cfgs[longest]}, cfgs...) {
		for _, s := range c.Steps {
			if !seen[s.Name] {
				seen[s.Name] = true
				names = append(names, s.Name)
			}
		}
	}
	return names
}
