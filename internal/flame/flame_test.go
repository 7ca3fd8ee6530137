package flame

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// builder makes small pprof profiles: a function per name, a location per call site.
type builder struct {
	p     *profile.Profile
	funcs map[string]*profile.Function
}

func newBuilder(types ...*profile.ValueType) *builder {
	if len(types) == 0 {
		types = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
	}
	return &builder{p: &profile.Profile{SampleType: types, PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000}, funcs: map[string]*profile.Function{}}
}

func (b *builder) fn(name string) *profile.Function {
	f := b.funcs[name]
	if f == nil {
		f = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name}
		b.funcs[name] = f
		b.p.Function = append(b.p.Function, f)
	}
	return f
}

// loc is a location whose lines are names, innermost (inlined) first, as pprof lists them.
func (b *builder) loc(names ...string) *profile.Location {
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: uint64(0x1000 + len(b.p.Location))}
	for _, n := range names {
		l.Line = append(l.Line, profile.Line{Function: b.fn(n)})
	}
	b.p.Location = append(b.p.Location, l)
	return l
}

// sample adds a sample of values at the stack of root-first names, one location each.
func (b *builder) sample(stack string, values ...int64) {
	var locs []*profile.Location
	names := strings.Split(stack, ";")
	for i := len(names) - 1; i >= 0; i-- {
		locs = append(locs, b.loc(names[i]))
	}
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: locs, Value: values})
}

// roundTrip writes p as a pprof file and loads it back.
func roundTrip(t *testing.T, p *profile.Profile) *profile.Profile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	q, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func folded(s Stacks) map[string]float64 {
	m := map[string]float64{}
	for _, st := range s.Stacks {
		m[strings.Join(st.Frames, ";")] = st.Value
	}
	return m
}

const ms = 1_000_000 // nanoseconds

func TestFoldMergesStacksRootFirstInSecondsOfCPU(t *testing.T) {
	b := newBuilder()
	b.sample("main;work;hash", 1, 10*ms)
	b.sample("main;work;hash", 2, 20*ms)
	b.sample("main;work", 1, 10*ms)
	b.sample("main;idle", 0, 0) // no CPU: no stack
	s := Fold(roundTrip(t, b.p))
	want := map[string]float64{"main;work;hash": 0.03, "main;work": 0.01}
	got := folded(s)
	if len(got) != len(want) {
		t.Fatalf("stacks %v, want %v", got, want)
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-12 {
			t.Errorf("stack %s = %g s, want %g", k, got[k], v)
		}
	}
	if s.Unit != UnitSeconds {
		t.Errorf("unit %q, want %q", s.Unit, UnitSeconds)
	}
	if !slices.IsSortedFunc(s.Stacks, func(a, b Stack) int { return strings.Compare(strings.Join(a.Frames, ";"), strings.Join(b.Frames, ";")) }) {
		t.Errorf("stacks not sorted: %v", s.Stacks)
	}
}

func TestFoldUsesTheLastSampleTypeWithoutCPU(t *testing.T) {
	b := newBuilder(&profile.ValueType{Type: "alloc_objects", Unit: "count"}, &profile.ValueType{Type: "alloc_space", Unit: "bytes"})
	b.p.PeriodType = nil
	b.sample("main;alloc", 3, 4096)
	s := Fold(b.p)
	if got := folded(s)["main;alloc"]; got != 4096 || s.Unit != "bytes" {
		t.Errorf("main;alloc = %g %s, want 4096 bytes", got, s.Unit)
	}
}

func TestFoldTurnsCountsOfATimedPeriodIntoSeconds(t *testing.T) {
	b := newBuilder(&profile.ValueType{Type: "samples", Unit: "count"}) // as perf's converted samples
	b.sample("main;work", 5)
	if got := folded(Fold(b.p))["main;work"]; math.Abs(got-0.05) > 1e-12 {
		t.Errorf("5 samples of 10ms = %g s, want 0.05", got)
	}
}

func TestFoldExpandsInlineFrames(t *testing.T) {
	b := newBuilder()
	// One location of three lines: inner inlined into middle inlined into outer.
	leaf := b.loc("inner", "middle", "outer")
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: []*profile.Location{leaf, b.loc("main")}, Value: []int64{1, 10 * ms}})
	got := folded(Fold(roundTrip(t, b.p)))
	if _, ok := got["main;outer;middle;inner"]; !ok || len(got) != 1 {
		t.Errorf("stacks %v, want main;outer;middle;inner", got)
	}
}

// wide is a profile of a hot path and many small callees.
func wide(t *testing.T, small int) Stacks {
	b := newBuilder()
	b.sample("main;hot;hotter", 1, 1000*ms)
	for i := range small {
		b.sample("main;cold;f"+string(rune('a'+i%26))+strings.Repeat("x", i/26), 1, 1*ms)
	}
	b.sample("main;cold;deep;d1;d2;d3;d4;d5", 1, 100*ms)
	return Fold(b.p)
}

func TestPruneKeepsTotalsAndSaysWhatItTookOut(t *testing.T) {
	s := wide(t, 40) // 40 frames of 1ms, 0.09% each of 1140ms
	tree := Build(s, 2)
	before := tree.Root.Value
	frames := tree.Count()
	Prune(tree, PruneOptions{MinShare: 0.005, MaxDepth: 5})
	if tree.Root.Value != before || math.Abs(before-s.Total()/2) > 1e-12 {
		t.Errorf("root %g after pruning, want %g (half the total %g)", tree.Root.Value, before, s.Total())
	}
	var cold *Node
	for _, c := range tree.Root.Children[0].Children {
		if c.Name == "cold" {
			cold = c
		}
	}
	if cold == nil {
		t.Fatal("cold was pruned")
	}
	var other *Node
	sum := 0.0
	for _, c := range cold.Children {
		sum += c.Value
		if c.Name == OtherName {
			other = c
		}
	}
	if other == nil || math.Abs(other.Value-0.040/2) > 1e-12 {
		t.Fatalf("cold's children %v, want an %s of 20ms/op", cold.Children, OtherName)
	}
	if math.Abs(sum-cold.Value) > 1e-12 {
		t.Errorf("cold's children sum to %g, cold is %g", sum, cold.Value)
	}
	if tree.Depth() != 5 {
		t.Errorf("depth %d, want 5", tree.Depth())
	}
	// 40 merged into one drawn (other); d3, d4 and d5 cut by depth (d2 is at level 5).
	if tree.Pruned.Frames != 40-1+3 || frames-tree.Count() != tree.Pruned.Frames {
		t.Errorf("pruned %d frames (%d → %d), want 42", tree.Pruned.Frames, frames, tree.Count())
	}
	if want := 0.040/2 + 0.100/2; math.Abs(tree.Pruned.Value-want) > 1e-12 || math.Abs(tree.Pruned.Merged-0.020) > 1e-12 {
		t.Errorf("pruned %g/op (merged %g), want %g (merged 0.020)", tree.Pruned.Value, tree.Pruned.Merged, want)
	}
}

func TestPruneCapsTheFramesKeepingTheHeaviest(t *testing.T) {
	tree := Build(wide(t, 40), 1)
	Prune(tree, PruneOptions{MaxNodes: 6})
	if n := tree.Count(); n != 6 {
		t.Fatalf("%d frames, want 6", n)
	}
	var names []string
	var walk func(n *Node)
	walk = func(n *Node) {
		names = append(names, n.Name)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tree.Root)
	if want := []string{"all", "main", "cold", "deep", "hot", "hotter"}; !slices.Equal(names, want) {
		t.Errorf("kept %v, want %v", names, want)
	}
}

func TestDiffIsPerOperation(t *testing.T) {
	base := wide(t, 3)
	double := Stacks{Unit: base.Unit}
	for _, st := range base.Stacks {
		double.Stacks = append(double.Stacks, Stack{Frames: st.Frames, Value: 2 * st.Value})
	}
	d := Diff(base, double, 100, 200)
	var walk func(n *Node)
	walk = func(n *Node) {
		if math.Abs(n.Value-n.Base) > 1e-15 || n.Value == 0 {
			t.Errorf("%s: base %g/op, other %g/op: twice the CPU for twice the ops is no change", n.Name, n.Base, n.Value)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(d.Root)
	for _, f := range TopDiff(base, double, 100, 200, 0) {
		if r := f.SelfRatio(); f.Base.Self > 0 && math.Abs(r-1) > 1e-12 {
			t.Errorf("%s: self ratio %g, want 1", f.Name, r)
		}
		if r := f.TotalRatio(); math.Abs(r-1) > 1e-12 {
			t.Errorf("%s: total ratio %g, want 1", f.Name, r)
		}
	}
	// The same CPU over the same ops, plus a new function: the path to it grew.
	more := Stacks{Unit: base.Unit, Stacks: append(slices.Clone(base.Stacks), Stack{Frames: []string{"main", "new"}, Value: 0.5})}
	d = Diff(base, more, 1, 1)
	if math.Abs(d.Root.Value-d.Root.Base-0.5) > 1e-12 {
		t.Errorf("root %g vs base %g, want 0.5 more", d.Root.Value, d.Root.Base)
	}
}

func TestTopOrdersBySelfThenTotal(t *testing.T) {
	b := newBuilder()
	b.sample("main;a;b", 1, 30*ms)
	b.sample("main;a", 1, 10*ms)
	b.sample("main;c", 1, 20*ms)
	b.sample("main;rec;rec", 1, 20*ms) // recursion: rec's total counts this once
	top := Top(Fold(b.p), 10, 0)
	var names []string
	for _, f := range top {
		names = append(names, f.Name)
	}
	if want := []string{"b", "c", "rec", "a", "main"}; !slices.Equal(names, want) {
		t.Fatalf("top %v, want %v", names, want)
	}
	byName := map[string]Func{}
	for _, f := range top {
		byName[f.Name] = f
	}
	if f := byName["rec"]; math.Abs(f.Total-0.002) > 1e-12 || math.Abs(f.Self-0.002) > 1e-12 {
		t.Errorf("rec %+v, want self and total 2ms/op", f)
	}
	if f := byName["a"]; math.Abs(f.Total-0.004) > 1e-12 || math.Abs(f.Self-0.001) > 1e-12 {
		t.Errorf("a %+v, want self 1ms/op, total 4ms/op", f)
	}
	if got := Top(Fold(b.p), 10, 2); len(got) != 2 || got[0].Name != "b" {
		t.Errorf("top 2 %v", got)
	}
}

func TestTopDiffShowsTheRelativeChange(t *testing.T) {
	b := newBuilder()
	b.sample("main;a", 1, 10*ms)
	b.sample("main;gone", 1, 5*ms)
	o := newBuilder()
	o.sample("main;a", 1, 60*ms) // three times a's CPU per op (twice the ops)
	o.sample("main;new", 1, 2*ms)
	ds := TopDiff(Fold(b.p), Fold(o.p), 1, 2, 0)
	if ds[0].Name != "a" || math.Abs(ds[0].SelfRatio()-3) > 1e-12 {
		t.Errorf("first %+v, want a at 3x", ds[0])
	}
	for _, d := range ds {
		switch d.Name {
		case "gone":
			if d.Other.Self != 0 || d.SelfRatio() != 0 {
				t.Errorf("gone %+v, want 0 in other", d)
			}
		case "new":
			if !math.IsNaN(d.SelfRatio()) {
				t.Errorf("new's ratio %g, want NaN (not in the base)", d.SelfRatio())
			}
		}
	}
}

// svgFrames parses an SVG and returns the data-fn of every frame.
func svgFrames(t *testing.T, svg []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var fns []string
	roots := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG not well-formed: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local == "svg" {
				roots++
			}
			for _, a := range se.Attr {
				if a.Name.Local == "data-fn" {
					fns = append(fns, a.Value)
				}
			}
		}
	}
	if roots != 1 {
		t.Errorf("%d svg elements, want 1", roots)
	}
	return fns
}

func TestSVGIsWellFormedAndSearchable(t *testing.T) {
	b := newBuilder()
	b.sample("main;github.com/x/db.(*Tree).Insert<K&V>;runtime.memmove", 1, 30*ms)
	b.sample(`main;"quoted"`, 1, 10*ms)
	tree := Build(Fold(b.p), 10)
	var buf bytes.Buffer
	if err := SVG(&buf, tree, Options{ID: "g1", Title: "cpu <of> x", PerOp: "insert"}); err != nil {
		t.Fatal(err)
	}
	fns := svgFrames(t, buf.Bytes())
	for _, want := range []string{RootName, "main", "github.com/x/db.(*Tree).Insert<K&V>", "runtime.memmove", `"quoted"`} {
		if !slices.Contains(fns, want) {
			t.Errorf("no frame with data-fn %q in %v", want, fns)
		}
	}
	if !strings.Contains(buf.String(), "/insert") {
		t.Error("tooltips do not say the CPU per insert")
	}
	var again bytes.Buffer
	if err := SVG(&again, Build(Fold(b.p), 10), Options{ID: "g1", Title: "cpu <of> x", PerOp: "insert"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the same profile drew two different SVGs")
	}
}

func TestDiffSVGColoursByChange(t *testing.T) {
	b := newBuilder()
	b.sample("main;grew", 1, 10*ms)
	b.sample("main;shrank", 1, 10*ms)
	b.sample("main;same", 1, 10*ms)
	o := newBuilder()
	o.sample("main;grew", 1, 40*ms)
	o.sample("main;shrank", 1, 5*ms)
	o.sample("main;same", 1, 20*ms)
	var buf bytes.Buffer
	if err := SVG(&buf, Diff(Fold(b.p), Fold(o.p), 1, 2), Options{}); err != nil {
		t.Fatal(err)
	}
	if len(svgFrames(t, buf.Bytes())) != 5 {
		t.Errorf("frames %v, want all, main and three", svgFrames(t, buf.Bytes()))
	}
	fill := func(fn string) string {
		i := strings.Index(buf.String(), `data-fn="`+fn+`"`)
		rest := buf.String()[i:]
		j := strings.Index(rest, `fill="`)
		return rest[j+6 : j+6+strings.Index(rest[j+6:], `"`)]
	}
	if got := fill("grew"); got != "rgb(255,45,45)" {
		t.Errorf("grew 2x per op: fill %s, want full red", got)
	}
	if got := fill("shrank"); got != "rgb(45,45,255)" {
		t.Errorf("shrank to 1/4 per op: fill %s, want full blue", got)
	}
	if got := fill("same"); got != "rgb(235,235,235)" {
		t.Errorf("same per op: fill %s, want neutral", got)
	}
	if !strings.Contains(buf.String(), "×2.00 (+100%)") {
		t.Error("no tooltip says grew's ratio")
	}
}

func TestPackage(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/x/db.(*Tree).Insert": "github.com/x/db",
		"runtime.memmove":                "runtime",
		"rocksdb::DBImpl::Write":         "rocksdb::DBImpl",
		"ut_hash_ulint":                  "ut_hash_ulint",
	} {
		if got := Package(name); got != want {
			t.Errorf("Package(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestDefaultPruneBoundsALargeProfile(t *testing.T) {
	var s Stacks
	s.Unit = UnitSeconds
	for i := range 5000 { // 5000 stacks, 10 levels, most of them tiny
		frames := []string{"main"}
		for d := range 10 {
			frames = append(frames, "f"+strings.Repeat("x", (i>>d)%7)+string(rune('a'+d)))
		}
		s.Stacks = append(s.Stacks, Stack{Frames: frames, Value: float64(1 + i%13)})
	}
	tree := Build(s, 1)
	frames := tree.Count()
	Prune(tree, DefaultPrune())
	if n := tree.Count(); n > 600 || n >= frames || tree.Root.Value != s.Total() {
		t.Errorf("%d frames of %d after pruning, root %g of %g: want at most 600 and the total kept", n, frames, tree.Root.Value, s.Total())
	}
	if tree.Pruned.Frames != frames-tree.Count() || tree.Pruned.Value <= 0 {
		t.Errorf("pruned %+v, want the %d frames taken out and their CPU", tree.Pruned, frames-tree.Count())
	}
	var buf bytes.Buffer
	if err := SVG(&buf, tree, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(svgFrames(t, buf.Bytes())); n > 600 {
		t.Errorf("%d frames drawn, want at most 600", n)
	}
}
