package flame

import (
	"cmp"
	"maps"
	"math"
	"slices"
)

// Func is a function's CPU per operation: Self in the function itself, Total with its
// callees (a recursive function's stack counted once).
type Func struct {
	Name        string
	Self, Total float64
}

// FuncDiff is a function's CPU per operation in a base and in another profile.
type FuncDiff struct {
	Name        string
	Base, Other Func
}

// SelfRatio is the other's self CPU per operation over the base's: NaN when the base has none.
func (d FuncDiff) SelfRatio() float64 { return Ratio(d.Base.Self, d.Other.Self) }

// TotalRatio is as SelfRatio for the total CPU.
func (d FuncDiff) TotalRatio() float64 { return Ratio(d.Base.Total, d.Other.Total) }

// Ratio is other over base; NaN when base is not above 0.
func Ratio(base, other float64) float64 {
	if base <= 0 {
		return math.NaN()
	}
	return other / base
}

// Top is the n functions of s with the most self CPU per operation (ties by total, then name);
// n <= 0 is all of them. ops <= 0 (unknown) divides by 1.
func Top(s Stacks, ops float64, n int) []Func {
	fs := slices.Collect(maps.Values(funcs(s, perOp(ops))))
	slices.SortFunc(fs, byCPU)
	return head(fs, n)
}

// TopDiff is the n functions with the most self CPU per operation in base or in other (the
// larger of the two), each with both.
func TopDiff(base, other Stacks, baseOps, otherOps float64, n int) []FuncDiff {
	b, o := funcs(base, perOp(baseOps)), funcs(other, perOp(otherOps))
	names := map[string]bool{}
	for k := range b {
		names[k] = true
	}
	for k := range o {
		names[k] = true
	}
	var ds []FuncDiff
	for name := range names {
		ds = append(ds, FuncDiff{Name: name, Base: b[name], Other: o[name]})
	}
	slices.SortFunc(ds, func(x, y FuncDiff) int {
		return byCPU(
			Func{x.Name, max(x.Base.Self, x.Other.Self), max(x.Base.Total, x.Other.Total)},
			Func{y.Name, max(y.Base.Self, y.Other.Self), max(y.Base.Total, y.Other.Total)})
	})
	for i := range ds {
		ds[i].Base.Name, ds[i].Other.Name = ds[i].Name, ds[i].Name
	}
	return head(ds, n)
}

func byCPU(a, b Func) int {
	return cmp.Or(cmp.Compare(b.Self, a.Self), cmp.Compare(b.Total, a.Total), cmp.Compare(a.Name, b.Name))
}

func head[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[:n]
	}
	return s
}

// funcs is each function's self and total CPU in s, divided by ops.
func funcs(s Stacks, ops float64) map[string]Func {
	out := map[string]Func{}
	for _, st := range s.Stacks {
		if len(st.Frames) == 0 {
			continue
		}
		v := st.Value / ops
		seen := map[string]bool{}
		for _, f := range st.Frames {
			if seen[f] {
				continue
			}
			seen[f] = true
			fn := out[f]
			fn.Name = f
			fn.Total += v
			out[f] = fn
		}
		leaf := out[st.Frames[len(st.Frames)-1]]
		leaf.Self += v
		out[leaf.Name] = leaf
	}
	return out
}
