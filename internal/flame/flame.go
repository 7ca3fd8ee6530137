// Package flame reads CPU profiles (pprof files) and draws what the report shows of them:
// folded stacks, flame graphs and differential flame graphs as SVG, and the top functions, all
// by CPU per operation so that steps that did different amounts of work compare.
package flame

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// UnitSeconds is Stacks.Unit when the values are CPU time.
const UnitSeconds = "seconds"

// Stacks are a profile's folded stacks: each distinct call stack, root first, with its CPU.
type Stacks struct {
	// Unit is the values' unit: UnitSeconds for CPU time, else the profile's own unit.
	Unit string
	// Stacks are sorted by their frames.
	Stacks []Stack
}

// Stack is one call stack, root first, and the CPU of the samples that had it.
type Stack struct {
	Frames []string
	Value  float64
}

// Total is the CPU of all the stacks.
func (s Stacks) Total() float64 {
	var t float64
	for _, st := range s.Stacks {
		t += st.Value
	}
	return t
}

// Load reads a pprof file (gzipped or not).
func Load(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return p, nil
}

// LoadStacks reads a pprof file and folds it.
func LoadStacks(path string) (Stacks, error) {
	p, err := Load(path)
	if err != nil {
		return Stacks{}, err
	}
	return Fold(p), nil
}

// timeUnits are the seconds of each time unit pprof names.
var timeUnits = map[string]float64{"nanoseconds": 1e-9, "microseconds": 1e-6, "milliseconds": 1e-3, "seconds": 1}

// Fold folds p's samples into stacks of function names, root first; a location's inline
// frames become frames of their own. The value is the sample type "cpu" when p has it, else
// the last one, in seconds when it is a time (or a count of samples of a timed period).
func Fold(p *profile.Profile) Stacks {
	if len(p.SampleType) == 0 {
		return Stacks{}
	}
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			idx = i
			break
		}
	}
	scale, unit := valueScale(p, p.SampleType[idx])
	sums := map[string]float64{}
	for _, s := range p.Sample {
		if idx >= len(s.Value) || s.Value[idx] == 0 {
			continue
		}
		sums[strings.Join(frames(s), "\x00")] += float64(s.Value[idx]) * scale
	}
	out := Stacks{Unit: unit}
	for _, k := range slices.Sorted(maps.Keys(sums)) {
		out.Stacks = append(out.Stacks, Stack{Frames: strings.Split(k, "\x00"), Value: sums[k]})
	}
	return out
}

// valueScale is what turns a value of type st into seconds, and the unit of the result: the
// profile's own unit (scale 1) when it is no time.
func valueScale(p *profile.Profile, st *profile.ValueType) (float64, string) {
	if s, ok := timeUnits[st.Unit]; ok {
		return s, UnitSeconds
	}
	if pt := p.PeriodType; pt != nil && p.Period > 0 && (st.Unit == "count" || st.Type == "samples") {
		if s, ok := timeUnits[pt.Unit]; ok {
			return float64(p.Period) * s, UnitSeconds
		}
	}
	return 1, st.Unit
}

// frames are a sample's function names, root first. A location lists its lines innermost
// first, and a sample its locations leaf first.
func frames(s *profile.Sample) []string {
	var out []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		if len(loc.Line) == 0 {
			out = append(out, locationName(loc))
			continue
		}
		for j := len(loc.Line) - 1; j >= 0; j-- {
			out = append(out, lineName(loc, loc.Line[j]))
		}
	}
	if len(out) == 0 {
		out = []string{"(unknown)"}
	}
	return out
}

func lineName(loc *profile.Location, l profile.Line) string {
	if l.Function != nil && l.Function.Name != "" {
		return l.Function.Name
	}
	return locationName(loc)
}

// locationName names a location without a function: its address, in its file when known.
func locationName(loc *profile.Location) string {
	if m := loc.Mapping; m != nil && m.File != "" {
		return fmt.Sprintf("%s+0x%x", baseName(m.File), loc.Address-m.Start+m.Offset)
	}
	return fmt.Sprintf("0x%x", loc.Address)
}

func baseName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}
