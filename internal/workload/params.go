package workload

import (
	"fmt"
	"slices"
	"strings"
)

// FindScale returns the preset of presets that name calls want, or an error naming what (a
// "scale", an "iibench scale") and every known preset.
func FindScale[S any](presets []S, name func(S) string, want, what string) (S, error) {
	i := slices.IndexFunc(presets, func(s S) bool { return name(s) == want })
	if i < 0 {
		names := make([]string, len(presets))
		for j, s := range presets {
			names[j] = name(s)
		}
		var zero S
		return zero, fmt.Errorf("unknown %s %q (known: %s)", what, want, strings.Join(names, ", "))
	}
	return presets[i], nil
}

// ScaleNames returns the names of presets, which name calls.
func ScaleNames[S any](presets []S, name func(S) string) []string {
	out := make([]string, len(presets))
	for i, s := range presets {
		out[i] = name(s)
	}
	return out
}

// IntParam is an integer parameter and the flag that sets it.
type IntParam struct {
	Flag  string
	Value int64
}

// Int returns the parameter flag of value v.
func Int[T int | int64](flag string, v T) IntParam { return IntParam{Flag: flag, Value: int64(v)} }

// CheckPositive returns an error for the first parameter of ps that is not > 0.
func CheckPositive(ps ...IntParam) error {
	for _, p := range ps {
		if p.Value <= 0 {
			return fmt.Errorf("%s must be > 0, got %d", p.Flag, p.Value)
		}
	}
	return nil
}

// OrderSteps checks the steps a run selects (--steps) against all, every step of the workload in
// the order it runs them, and returns them in that order. Each step may be given once, and
// first, the step that loads the database, must be among them. what names the list of known
// steps in the error ("steps", "linkbench steps").
func OrderSteps(steps, all []string, first, what string) ([]string, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("--steps is empty")
	}
	seen := map[string]bool{}
	for _, s := range steps {
		if !slices.Contains(all, s) {
			return nil, fmt.Errorf("unknown step %q (%s: %s)", s, what, strings.Join(all, ","))
		}
		if seen[s] {
			return nil, fmt.Errorf("step %q given twice in --steps", s)
		}
		seen[s] = true
	}
	if !seen[first] {
		return nil, fmt.Errorf("--steps must include %s: every run starts from an empty database", first)
	}
	return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return !seen[s] }), nil
}
