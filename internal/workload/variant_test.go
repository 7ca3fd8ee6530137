package workload

import "testing"

func TestFidelityParseAndValidate(t *testing.T) {
	for _, s := range []string{"reference", "corrected"} {
		if v, err := ParseVariant(s); err != nil || string(v) != s {
			t.Errorf("ParseVariant(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"", "Reference", "fixed"} {
		if _, err := ParseVariant(s); err == nil {
			t.Errorf("ParseVariant(%q) accepted", s)
		}
	}
	for _, s := range []string{"end", "each-step"} {
		if v, err := ParseVerify(s); err != nil || string(v) != s {
			t.Errorf("ParseVerify(%q) = %q, %v", s, v, err)
		}
	}
	if _, err := ParseVerify("always"); err == nil {
		t.Error("ParseVerify(always) accepted")
	}
	if err := DefaultFidelity().Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
	if DefaultFidelity().Corrected() {
		t.Error("the default is the corrected variant")
	}
	if err := (Fidelity{Variant: Corrected}).Validate(); err == nil {
		t.Error("a missing verify policy validated")
	}
}

func TestVerifyAfter(t *testing.T) {
	end := Fidelity{Variant: Reference, Verify: VerifyEnd}
	each := Fidelity{Variant: Reference, Verify: VerifyEachStep}
	cases := []struct {
		f          Fidelity
		writes     bool
		last       bool
		wantVerify bool
	}{
		{end, true, false, false}, {end, false, false, false}, {end, true, true, true}, {end, false, true, true},
		{each, true, false, true}, {each, false, false, false}, {each, false, true, true},
	}
	for _, c := range cases {
		if got := c.f.VerifyAfter(c.writes, c.last); got != c.wantVerify {
			t.Errorf("%s VerifyAfter(writes=%v, last=%v) = %v", c.f.Verify, c.writes, c.last, got)
		}
	}
}
