package workload

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/enginebench/enginebench/internal/shard"
)

// Descriptor is what the command line, run specs and the workload registry know of a
// workload: its name and help, its own flags and how it is built from them. A workload
// package declares its own (Describe); internal/registry lists them.
type Descriptor struct {
	// Name is the workload's name on the command line and in run.json ("run NAME").
	Name string
	// Title is the benchmark's name in prose ("the Insert Benchmark").
	Title string
	// Seed is the seed of a run without --seed.
	Seed uint64
	// StepsHelp says what --steps takes for this workload.
	StepsHelp string
	// Scales are the names of its size presets.
	Scales []string
	// Flags declares the workload's own flags on fl (bound to values of their own): the
	// flags the command line parses and its help shows.
	Flags func(fl *pflag.FlagSet)
	// New builds the workload from its scale preset, the run-wide options and the flags
	// that were given (Options.Given), and validates it.
	New func(o Options) (Benchmark, error)
	// Shardable says whether its clients can be split over processes (--shard I/N, N > 1).
	Shardable bool
}

// Benchmark is a workload as a run plans it: it can tell the space one configuration needs
// and how many clients a sharded run splits over its shards.
type Benchmark interface {
	Workload
	EstimateBytes() int64
	// Clients are the clients a sharded run splits over its shards (client c is shard
	// c % N's).
	Clients() int
}

// Timed is a Benchmark that knows, before the run, which of its steps run for a duration
// (runner.Step.Duration) and how long: the steps --exclude-warmup applies to, which the plan
// checks it against.
type Timed interface {
	TimedSteps() []TimedStep
}

// TimedStep is a step of a run that runs for a duration: its name ("qr100", "run.N" for a
// series of them, "cap.N" for a capacity search's levels) and its duration.
type TimedStep struct {
	Name     string
	Duration time.Duration
}

// Seconds returns secs seconds as a Duration.
func Seconds(secs float64) time.Duration { return time.Duration(secs * float64(time.Second)) }

// Options are what a run gives every workload besides its own flags.
type Options struct {
	// Scale is the size preset (--scale).
	Scale string
	// Seed is --seed when given, else nil (the workload's own seed).
	Seed *uint64
	// Steps is --steps as given; "" for the workload's default steps.
	Steps string
	// Variant and Verify are --variant and --verify when given, else "" (the preset's).
	Variant Variant
	Verify  Verify
	// Shard is the part of the clients this process runs; the zero value for all.
	Shard shard.Shard
	// Given is the flag set the command line parsed (the run spec's params set on it too):
	// each of the workload's own flags given there overrides its preset's value. nil for none.
	Given *pflag.FlagSet
}

// Preset returns the parameters a workload is built with from o: its preset for o.Scale
// (preset), its own flags declared by declare on a set bound to them and set from what was
// given, and the run-wide seed, fidelity and shard applied where common says they are; and
// that set, which tells which flags were given.
func Preset[P any](o Options, preset func(scale string) (P, error), declare func(*pflag.FlagSet, *P),
	common func(*P) (*uint64, *Fidelity, *shard.Shard)) (*P, *pflag.FlagSet, error) {
	p, err := preset(o.Scale)
	if err != nil {
		return nil, nil, err
	}
	fl := pflag.NewFlagSet("params", pflag.ContinueOnError)
	declare(fl, &p)
	if o.Given != nil {
		if err := copyGiven(o.Given, fl); err != nil {
			return nil, nil, err
		}
	}
	seed, fid, sh := common(&p)
	if o.Seed != nil {
		*seed = *o.Seed
	}
	if o.Variant != "" {
		fid.Variant = o.Variant
	}
	if o.Verify != "" {
		fid.Verify = o.Verify
	}
	*sh = o.Shard
	return &p, fl, nil
}

// copyGiven sets on to every flag of from that was given and that to has too: how a
// workload's own flag set, bound to its preset, gets the values the command line parsed.
func copyGiven(from, to *pflag.FlagSet) error {
	var err error
	from.Visit(func(f *pflag.Flag) {
		t := to.Lookup(f.Name)
		if t == nil || err != nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			if tv, ok := t.Value.(pflag.SliceValue); ok {
				err = tv.Replace(sv.GetSlice())
				t.Changed = true
				return
			}
		}
		if e := to.Set(f.Name, f.Value.String()); e != nil {
			err = fmt.Errorf("--%s: %w", f.Name, e)
		}
	})
	return err
}

// StepsOr returns the steps of --steps, blanks dropped, or def when it was not given.
func (o Options) StepsOr(def []string) []string {
	if o.Steps == "" {
		return def
	}
	var out []string
	for _, s := range strings.Split(o.Steps, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DomainFlags declares the flags of the value domains (cashregisterid, productid,
// customerid, price), which iiBench shares with the Insert Benchmark, bound to the four
// values given.
func DomainFlags(fl *pflag.FlagSet, cashRegs, products, customers, maxPrice *int) {
	fl.IntVar(cashRegs, "cashregisters", *cashRegs, "insert, iibench: cashregisterid domain (default 1000)")
	fl.IntVar(products, "products", *products, "insert, iibench: productid domain (default 10000)")
	fl.IntVar(customers, "customers", *customers, "insert, iibench: customerid domain (default 100000)")
	fl.IntVar(maxPrice, "max-price", *maxPrice, "insert, iibench: price domain (default 500)")
}
