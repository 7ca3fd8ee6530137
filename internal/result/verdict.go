package result

// Verdict states: a check that found the figures may be off, one that passed, and one whose
// sensor is absent (shown as "-", never as a pass).
const (
	VerdictFlag       = "flag"
	VerdictOK         = "ok"
	VerdictUnmeasured = "unmeasured"
)

// Verdict is one check of whether figures can be trusted (docs/results.md, Verdicts): of the
// environment a run or a step ran in (steal, pressure, swap, other processes' CPU, the CPU
// frequency, the governor, SMT, the data device), of what a step declared against what it
// measured (a cached preset that read from the device), or of its steady state.
type Verdict struct {
	// Check names what was checked (package verdict lists the checks and their thresholds).
	Check string `json:"check"`
	// State is VerdictFlag, VerdictOK or VerdictUnmeasured.
	State string `json:"state"`
	// Value is the measured figure and Threshold the limit it was held to, in the check's
	// unit; nil where the check has none (a setting such as the governor).
	Value     *float64 `json:"value,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	// Unit is the unit of Value and Threshold ("%", "pages/s", "reads/op"); empty where the
	// check has no figure.
	Unit string `json:"unit,omitempty"`
	// Message says it in words, as the summary and the report show it ("steal 7% during
	// qr100: figures may be noisy"); for an unmeasured check, why.
	Message string `json:"message,omitempty"`
}

// Flagged returns the verdicts of vs whose state is VerdictFlag.
func Flagged(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.State == VerdictFlag {
			out = append(out, v)
		}
	}
	return out
}
