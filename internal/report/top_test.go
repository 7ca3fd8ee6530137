package report

import (
	"fmt"
	"testing"

	"github.com/enginebench/enginebench/internal/result"
)

// thirtyConfigs is a run of 30 configurations made from the insert fixture: its three
// configurations ten times, each copy's rates scaled by its own factor.
func thirtyConfigs(t *testing.T) Input {
	t.Helper()
	in := loadFixture(t, "insert")
	r := *in.Run
	r.Configs = nil
	for k := range 10 {
		for _, c := range in.Run.Configs {
			c.Name = fmt.Sprintf("%s-%02d", c.Name, k)
			c.Steps = scaledSteps(c.Steps, 0.6+0.1*float64(k))
			r.Configs = append(r.Configs, c)
		}
	}
	return Input{Dir: in.Dir, Run: &r}
}

// scaledSteps are copies of steps whose every op rate is multiplied by f.
func scaledSteps(steps []result.Step, f float64) []result.Step {
	out := make([]result.Step, len(steps))
	for i, s := range steps {
		ops := map[string]*result.Op{}
		for k, op := range s.Ops {
			cp := *op
			cp.PerSec *= f
			ops[k] = &cp
		}
		s.Ops = ops
		out[i] = s
	}
	return out
}
