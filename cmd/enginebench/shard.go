package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/registry"
	"github.com/enginebench/enginebench/internal/shard"
)

// shardFlags are the flags of a sharded run (docs/scale-out.md, Shards).
type shardFlags struct {
	shard   string        // --shard I/N
	run     string        // --shard-run ID
	timeout time.Duration // --shard-timeout
	startAt string        // --start-at TIME
	// parsed is the shard the run runs, set by check; the zero value for a whole run.
	parsed shard.Shard
}

// maxStartAhead bounds how far ahead --start-at may be: every wait is bounded.
const maxStartAhead = 24 * time.Hour

// add adds the shard flags to fl.
func (s *shardFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&s.shard, "shard", "", "run only shard `I/N` of the clients (client c is shard c % N's; auto/N: I from $"+shard.JobIndexEnv+") against an existing server that every shard reaches (--dsn); docs/scale-out.md")
	fl.StringVar(&s.run, "shard-run", "", "the `ID` every shard of one run shares: their meeting key in the server's "+shard.BarrierTable+" table (default: from --start-at)")
	fl.DurationVar(&s.timeout, "shard-timeout", shard.DefaultTimeout, "how long a shard waits at a barrier for a shard that gives no sign of life (heartbeat) or never came; one that does not come fails the step for every shard")
	fl.StringVar(&s.startAt, "start-at", "", "start the first step no earlier than `TIME` (RFC 3339, at most 24 h ahead); every shard of a run given the same TIME starts then")
}

// check parses and checks the shard flags of a run of workload name into parsed.
func (s *shardFlags) check(fl *pflag.FlagSet, name string) error {
	sh := shard.Shard{Index: 0, Count: 1, Run: s.run, Timeout: s.timeout}
	if s.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, s.startAt)
		if err != nil {
			return fmt.Errorf("--start-at %q: want a time in RFC 3339 (2026-11-24T14:00:00Z)", s.startAt)
		}
		if time.Until(t) > maxStartAhead {
			return fmt.Errorf("--start-at %s: more than %v ahead", s.startAt, maxStartAhead)
		}
		sh.StartAt = t
		if sh.Run == "" {
			sh.Run = "start-" + t.UTC().Format(time.RFC3339Nano)
		}
	}
	if !fl.Changed("shard") {
		for _, f := range []string{"shard-run", "shard-timeout"} {
			if fl.Changed(f) {
				return fmt.Errorf("--%s is a flag of a sharded run: give --shard I/N", f)
			}
		}
		s.parsed = shard.Shard{StartAt: sh.StartAt}
		return nil
	}
	var err error
	if sh.Index, sh.Count, err = shard.ParseFlag(s.shard, os.Getenv); err != nil {
		return err
	}
	if s.timeout <= 0 {
		return fmt.Errorf("--shard-timeout %v: want a duration of more than 0", s.timeout)
	}
	if w, _ := registry.Lookup(name); sh.Count > 1 && !w.Shardable {
		return fmt.Errorf("--shard %s: the %s workload cannot be sharded yet (%s can)", s.shard, name, strings.Join(shardable(), " and "))
	}
	if sh.Count > 1 && strings.TrimSpace(sh.Run) == "" {
		return fmt.Errorf("--shard %s: give the id every shard of the run shares: --shard-run ID (or --start-at TIME)", s.shard)
	}
	s.parsed = sh
	return nil
}

// shardable returns the workloads that can be sharded (--shard I/N, N > 1).
func shardable() []string {
	var out []string
	for _, w := range registry.Workloads() {
		if w.Shardable {
			out = append(out, w.Name)
		}
	}
	return out
}
