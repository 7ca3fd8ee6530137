// Package capacity is the capacity search (--capacity): it ramps an open-loop rate level by
// level, fails a level whose achieved rate dips more than 10% below its target, whose
// response-time p99 breaks a limit or whose engine debt crosses a limit, and backtracks by
// bisection between the last passing and the first failing rate. The best sustainable rate is
// the highest level that passed. A workload runs each level as a step (cap.1, cap.2, ...).
package capacity

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DipLimit is the share of its target a level must achieve: a dip of more than 10% fails it.
const DipLimit = 0.9

// Params are the capacity search's options.
type Params struct {
	// On turns the search on.
	On bool `json:"on"`
	// Start is the first level's rate per client; Factor multiplies it level after level.
	Start  float64 `json:"start"`
	Factor float64 `json:"factor"`
	// LevelSeconds is each level's length; CooloffSeconds the idle time before each level but
	// the first.
	LevelSeconds   float64 `json:"level_seconds"`
	CooloffSeconds float64 `json:"cooloff_seconds"`
	// P99 is the response-time p99 limit; 0: not judged.
	P99 time.Duration `json:"p99_ns"`
	// Debt holds the engine-debt limits by engine_stats counter.
	Debt map[string]float64 `json:"debt,omitempty"`
	// MaxLevels bounds the ramp; Refinements the bisections after the first failure.
	MaxLevels   int `json:"max_levels"`
	Refinements int `json:"refinements"`
}

// Defaults returns the search's defaults with start as the first rate and level seconds a
// level (off until On is set).
func Defaults(start, level float64) Params {
	return Params{Start: start, Factor: 2, LevelSeconds: level, CooloffSeconds: 5,
		P99: time.Second, MaxLevels: 12, Refinements: 4}
}

// Validate checks the options (the flags' names in the errors).
func (p Params) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(p.Start) || p.Start <= 0:
		return fmt.Errorf("--capacity-start %v: want a rate above 0", p.Start)
	case bad(p.Factor) || p.Factor <= 1 || p.Factor > 100:
		return fmt.Errorf("--capacity-step %v: want a factor above 1 and at most 100", p.Factor)
	case bad(p.LevelSeconds) || p.LevelSeconds < 1:
		return fmt.Errorf("--capacity-level-seconds %v: want at least 1", p.LevelSeconds)
	case bad(p.CooloffSeconds) || p.CooloffSeconds < 0:
		return fmt.Errorf("--capacity-cooloff %v: want 0 or more seconds", p.CooloffSeconds)
	case p.P99 < 0:
		return fmt.Errorf("--capacity-p99 %v: want 0 (not judged) or a positive duration", p.P99)
	case p.MaxLevels < 1 || p.MaxLevels > 100:
		return fmt.Errorf("--capacity-max-levels %d: want 1 to 100", p.MaxLevels)
	case p.Refinements < 0 || p.Refinements > 20:
		return fmt.Errorf("--capacity-refinements %d: want 0 to 20", p.Refinements)
	}
	return nil
}

// ParseDebt parses --capacity-debt values, each KEY=LIMIT (or several, comma-separated, as a
// run spec's list gives them) with KEY an engine_stats counter (l0_files,
// pending_compaction_bytes, history_list_length, dead_tuples, ...) and LIMIT a number of at
// least 0.
func ParseDebt(vals []string) (map[string]float64, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	m := map[string]float64{}
	for _, v := range splitAll(vals) {
		k, lim, ok := strings.Cut(v, "=")
		k = strings.TrimSpace(k)
		f, err := strconv.ParseFloat(strings.TrimSpace(lim), 64)
		if !ok || k == "" || err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return nil, fmt.Errorf("--capacity-debt %q: want COUNTER=LIMIT, e.g. l0_files=20 or history_list_length=1000000", v)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("--capacity-debt %q: %s given twice", v, k)
		}
		m[k] = f
	}
	return m, nil
}

// DebtKeys returns the debt counters of p, sorted.
func (p Params) DebtKeys() []string {
	keys := make([]string, 0, len(p.Debt))
	for k := range p.Debt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// splitAll returns the comma-separated parts of every value of vals.
func splitAll(vals []string) []string {
	var parts []string
	for _, v := range vals {
		parts = append(parts, strings.Split(v, ",")...)
	}
	return parts
}
