package workload

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// maxFlagFloat bounds the float flags: a second count or a rate beyond it is no benchmark's,
// and NaN, the infinities or a value such as 1e300 would make a step never end or its
// run.json unwritable.
const maxFlagFloat = 1e9

// finiteFloat is a float flag that takes only finite values of at most maxFlagFloat in size, on
// the command line and in a run spec's params alike (both go through Set).
type finiteFloat struct{ p *float64 }

func (f finiteFloat) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f finiteFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxFlagFloat {
		return fmt.Errorf("want a finite number of at most %g", float64(maxFlagFloat))
	}
	*f.p = v
	return nil
}

func (f finiteFloat) Type() string { return "float" }

// FloatVar defines a float flag of fl that refuses what finiteFloat refuses.
func FloatVar(fl *pflag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fl.Var(finiteFloat{p}, name, usage)
}
