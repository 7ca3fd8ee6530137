package workload

import "fmt"

// Variant chooses between what a workload's reference implementation does and the corrections
// enginebench offers of it (docs/fidelity.md lists every difference and which variant has it).
type Variant string

// The variants: Reference, the default, reproduces what produced the published numbers,
// statement for statement and bug for bug where a bug shapes the load; Corrected turns on
// every documented correction.
const (
	Reference Variant = "reference"
	Corrected Variant = "corrected"
)

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	switch v := Variant(s); v {
	case Reference, Corrected:
		return v, nil
	}
	return "", fmt.Errorf("--variant %q: must be reference or corrected", s)
}

// Verify says when a workload checks that nothing written was lost.
type Verify string

// VerifyEnd verifies once, after the last step (the default: a verification read between
// steps would warm the cache for the next measured step); VerifyEachStep verifies after every
// step that writes as well.
const (
	VerifyEnd      Verify = "end"
	VerifyEachStep Verify = "each-step"
)

// ParseVerify returns the verification policy named s.
func ParseVerify(s string) (Verify, error) {
	switch v := Verify(s); v {
	case VerifyEnd, VerifyEachStep:
		return v, nil
	}
	return "", fmt.Errorf("--verify %q: must be end or each-step", s)
}

// Fidelity is how a run holds to its workload's reference: the variant and when it verifies.
// Every workload's parameters carry one.
type Fidelity struct {
	Variant Variant `json:"variant"`
	Verify  Verify  `json:"verify"`
}

// DefaultFidelity is the reference variant, verified after the last step.
func DefaultFidelity() Fidelity { return Fidelity{Variant: Reference, Verify: VerifyEnd} }

// Corrected reports whether the corrected variant runs.
func (f Fidelity) Corrected() bool { return f.Variant == Corrected }

// Validate checks both fields.
func (f Fidelity) Validate() error {
	if _, err := ParseVariant(string(f.Variant)); err != nil {
		return err
	}
	_, err := ParseVerify(string(f.Verify))
	return err
}

// VerifyAfter reports whether a workload verifies after a step: after every writing step
// with VerifyEachStep, else only after the last step it runs.
func (f Fidelity) VerifyAfter(writes, last bool) bool {
	if last {
		return true
	}
	return writes && f.Verify == VerifyEachStep
}
