package verdict

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	th, err := Parse([]string{"steal=3,other_cpu=20", "swap=1.5"})
	if err != nil {
		t.Fatal(err)
	}
	if th["steal"] != 3 || th["other_cpu"] != 20 || th["swap"] != 1.5 || th["psi_memory"] != Defaults()["psi_memory"] {
		t.Errorf("Parse: %v", th)
	}
	for _, c := range []struct{ arg, want string }{
		{"steal", "want CHECK=VALUE"},
		{"noise=3", `unknown check "noise"`},
		{"steal=-1", "want a number of 0 or more"},
		{"steal=NaN", "want a number of 0 or more"},
		{"steal=x", "want a number of 0 or more"},
	} {
		if _, err := Parse([]string{c.arg}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error with %q", c.arg, err, c.want)
		}
	}
	var none Thresholds
	if none.Of("steal") != Defaults()["steal"] {
		t.Error("a nil Thresholds is not the defaults")
	}
}

// A verdict of a check with a threshold carries the check's unit; one without a threshold none.
func TestVerdictUnit(t *testing.T) {
	if v := flag("steal", 7, 5, "steal"); v.Unit != "%" {
		t.Errorf("steal's unit %q, want %%", v.Unit)
	}
	if v := pass("swap", 0, 0); v.Unit != "pages/s" {
		t.Errorf("swap's unit %q, want pages/s", v.Unit)
	}
	if v := unmeasured("governor", "no cpufreq"); v.Unit != "" {
		t.Errorf("an unmeasured verdict's unit %q", v.Unit)
	}
}
