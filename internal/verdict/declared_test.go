package verdict

import (
	"strings"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

func TestDeclared(t *testing.T) {
	step := func(primary string, rpq *float64) *result.Step {
		return &result.Step{Name: "qr100", Primary: primary, Status: result.StatusOK, Efficiency: &result.Efficiency{Rpq: rpq}}
	}
	cases := []struct {
		name, scale string
		s           *result.Step
		state, msg  string // state "" for no verdict
	}{
		{"cached, read from the device", "cached", step("query", new(2.5)), result.VerdictFlag, "2.5 device reads per query during qr100 of the cached preset (more than 0.1): the data was not cached"},
		{"cached, cached", "cached", step("query", new(0.0002)), result.VerdictOK, ""},
		{"iobound, cached", "iobound", step("requests", new(0.01)), result.VerdictFlag, "0.01 device reads per request during qr100 of the iobound preset (fewer than 0.1): the data was cached"},
		{"iobound, read from the device", "iobound", step("requests", new(1.2)), result.VerdictOK, ""},
		{"iobound, no device", "iobound", step("query", nil), result.VerdictUnmeasured, "not measured"},
		{"a load declares nothing", "iobound", step("insert", new(0.0)), "", ""},
		{"tiny declares nothing", "tiny", step("query", new(3.0)), "", ""},
	}
	for _, c := range cases {
		vs := Declared(c.s, c.scale, nil)
		switch {
		case c.state == "" && len(vs) != 0:
			t.Errorf("%s: %+v, want no verdict", c.name, vs)
		case c.state == "":
		case len(vs) != 1 || vs[0].State != c.state || !strings.Contains(vs[0].Message, c.msg):
			t.Errorf("%s: %+v, want one %s verdict with %q", c.name, vs, c.state, c.msg)
		}
	}
	failed := step("query", new(9.0))
	failed.Status = result.StatusFailed
	if vs := Declared(failed, "cached", nil); len(vs) != 0 {
		t.Errorf("a failed step: %+v, want no verdict", vs)
	}
}
