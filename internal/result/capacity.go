package result

// Verdicts of a capacity level.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// Capacity is a configuration's capacity search (--capacity): the levels it tried, in the
// order it tried them, and the best sustainable rate, the highest level that passed.
type Capacity struct {
	// BestRate is the highest target rate that passed, per client; absent when none passed.
	BestRate *float64 `json:"best_rate,omitempty"`
	// Units names what the rates count: "rows/s per client", "requests/s per requester".
	Units  string          `json:"units"`
	Levels []CapacityLevel `json:"levels"`
}

// CapacityLevel is one level of a capacity search: a step run at a target rate and its verdict.
type CapacityLevel struct {
	// Step is the step's name (cap.1, cap.2, ...).
	Step string `json:"step"`
	// Rate is the level's target, per client; Achieved the rate its clients achieved, per client.
	Rate     float64 `json:"rate"`
	Achieved float64 `json:"achieved"`
	// Units names what the rates count (as Capacity.Units).
	Units string `json:"units,omitempty"`
	// P99Us is the response-time p99 (from the intended start) of the level's paced op in
	// microseconds, its limit P99LimitUs (absent: not judged).
	P99Us      *float64 `json:"p99_us,omitempty"`
	P99LimitUs *float64 `json:"p99_limit_us,omitempty"`
	// Debt holds the named engine-debt counters the engine reported at the level's end; a
	// counter the engine does not report is absent, and DebtUnmeasured names it.
	Debt           map[string]float64 `json:"debt,omitempty"`
	DebtUnmeasured []string           `json:"debt_unmeasured,omitempty"`
	// CooloffSeconds is how long the writers were idle before the level.
	CooloffSeconds float64 `json:"cooloff_seconds,omitempty"`
	// Verdict is pass or fail; Reason says why a level failed (the rate dip, the p99, which
	// debt counter, the step's own failure).
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

// CapacityOf returns the capacity search of a configuration's steps: every step that holds a
// capacity level, in order, with the best passing rate; nil when no step does.
func CapacityOf(steps []Step) *Capacity {
	var c *Capacity
	for _, st := range steps {
		if st.Capacity == nil {
			continue
		}
		if c == nil {
			c = &Capacity{Units: st.Capacity.Units}
		}
		c.Levels = append(c.Levels, *st.Capacity)
		if l := st.Capacity; l.Verdict == VerdictPass && (c.BestRate == nil || l.Rate > *c.BestRate) {
			r := l.Rate
			c.BestRate = &r
		}
	}
	return c
}
