package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// element is an SVG element with its attributes and children, enough to inspect a chart.
type element struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []element  `xml:",any"`
}

func (e element) attr(name string) string {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk calls f on e and every element below it.
func (e element) walk(f func(element)) {
	f(e)
	for _, c := range e.Children {
		c.walk(f)
	}
}

// parse checks that svg is one well-formed <svg> element fit for an HTML page and returns it.
func parse(t *testing.T, svg []byte) element {
	t.Helper()
	if !bytes.HasPrefix(svg, []byte("<svg ")) {
		t.Fatalf("output does not start with <svg: %.80q", svg)
	}
	if bytes.Contains(svg, []byte("<?xml")) || bytes.Contains(svg, []byte("<!--")) || bytes.Contains(svg, []byte("<!DOCTYPE")) {
		t.Fatal("output has an XML prolog, a comment or a DOCTYPE")
	}
	var root element
	dec := xml.NewDecoder(bytes.NewReader(svg))
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("output is not well-formed XML: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("output has more after </svg>: %v", err)
	}
	if root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Errorf("<svg> in namespace %q", root.XMLName.Space)
	}
	for _, a := range []string{"viewBox", "class", "role", "aria-label"} {
		if root.attr(a) == "" {
			t.Errorf("<svg> lacks %s", a)
		}
	}
	// It scales with the page, up to its own width.
	var w, h int
	if _, err := fmt.Sscanf(root.attr("viewBox"), "0 0 %d %d", &w, &h); err != nil || w <= 0 || h <= 0 {
		t.Errorf("viewBox %q", root.attr("viewBox"))
	}
	if st := root.attr("style"); !strings.Contains(st, "width:100%") || !strings.Contains(st, fmt.Sprintf("max-width:%dpx", w)) || !strings.Contains(st, "height:auto") {
		t.Errorf("<svg> style %q does not scale with the page", st)
	}
	// Coordinates have at most two decimals.
	root.walk(func(e element) {
		for _, a := range []string{"d", "x", "y", "transform"} {
			if m := longNumber.FindString(e.attr(a)); m != "" {
				t.Errorf("<%s %s> has %s, more than two decimals", e.XMLName.Local, a, m)
			}
		}
	})
	if root.attr("class") != "chart" || root.attr("role") != "img" {
		t.Errorf("class %q role %q", root.attr("class"), root.attr("role"))
	}
	if len(root.Children) == 0 || root.Children[0].XMLName.Local != "title" {
		t.Error("<svg> has no <title> first")
	}
	return root
}

var longNumber = regexp.MustCompile(`[0-9]\.[0-9]{3}|e[-+][0-9]`)

// strokes counts the paths stroked in colour.
func strokes(root element, colour string) int {
	n := 0
	root.walk(func(e element) {
		if e.XMLName.Local == "path" && strings.Contains(e.attr("style"), "stroke:"+colour) && strings.Contains(e.attr("style"), "fill:none") {
			n++
		}
	})
	return n
}

// fills counts the paths filled in colour.
func fills(root element, colour string) int {
	n := 0
	root.walk(func(e element) {
		if e.XMLName.Local == "path" && strings.Contains(e.attr("style"), "fill:"+colour) {
			n++
		}
	})
	return n
}

// rectangle is the path of a rectangle: a move, three lines and a close.
var rectangle = regexp.MustCompile(`^M[-0-9.]+,[-0-9.]+(L[-0-9.]+,[-0-9.]+){3}Z$`)

// rects counts the rectangles filled in colour.
func rects(root element, colour string) int {
	n := 0
	root.walk(func(e element) {
		if e.XMLName.Local == "path" && strings.Contains(e.attr("style"), "fill:"+colour) && rectangle.MatchString(e.attr("d")) {
			n++
		}
	})
	return n
}

// texts returns every text of the chart.
func texts(root element) []string {
	var out []string
	root.walk(func(e element) {
		if e.XMLName.Local == "text" {
			out = append(out, strings.TrimSpace(e.Text))
		}
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestLine(t *testing.T) {
	nan := math.NaN()
	series := []Series{
		{Name: "innodb", Color: 0, X: []float64{1, 2, 3, 4, 5}, Y: []float64{10, 20, nan, 40, 50}},
		{Name: "myrocks", Color: 1, X: []float64{1, 2, 3}, Y: []float64{5, 6, 7}},
	}
	svg, err := Line(series, Options{Title: "l.i1 inserts/s", XLabel: "seconds", YLabel: "rows/s", Legend: true})
	if err != nil {
		t.Fatal(err)
	}
	root := parse(t, svg)
	if root.attr("aria-label") != "l.i1 inserts/s" {
		t.Errorf("aria-label %q", root.attr("aria-label"))
	}
	// innodb: two segments around the gap, plus its legend sample; myrocks: one and its sample.
	if n := strokes(root, Color(0)); n != 3 {
		t.Errorf("%d paths in innodb's colour, want 2 segments and a legend sample", n)
	}
	if n := strokes(root, Color(1)); n != 2 {
		t.Errorf("%d paths in myrocks's colour, want 1 line and a legend sample", n)
	}
	tx := texts(root)
	for _, want := range []string{"l.i1 inserts/s", "seconds", "rows/s", "innodb", "myrocks"} {
		if !contains(tx, want) {
			t.Errorf("no text %q in %q", want, tx)
		}
	}
	// Every text names gonum's typeface (the page's style sheet adds the fallbacks, which the
	// report's browser test checks); nothing is embedded.
	root.walk(func(e element) {
		if e.XMLName.Local == "text" && !strings.Contains(e.attr("style"), "font-family:Liberation Sans;") {
			t.Errorf("text %q in style %q, not Liberation Sans", e.Text, e.attr("style"))
		}
	})
	if bytes.Contains(svg, []byte("@font-face")) {
		t.Error("a font is embedded")
	}
	for _, s := range tx {
		if strings.Contains(s, "e+") {
			t.Errorf("tick label in exponent notation: %q", s)
		}
	}
}

func TestLineLonePointAndLog(t *testing.T) {
	nan := math.NaN()
	// A point between two gaps is drawn as a dot, not lost.
	svg, err := Line([]Series{{Name: "a", Color: 2, X: []float64{1, 2, 3}, Y: []float64{nan, 5, nan}}}, Options{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if n := fills(parse(t, svg), Color(2)); n != 1 {
		t.Errorf("%d dots for a lone point, want 1", n)
	}
	// On a log scale, values <= 0 are gaps: 1, 10 | 0 | 100, 1000 is two segments.
	svg, err = Line([]Series{{Name: "a", Color: 0, X: []float64{1, 2, 3, 4, 5}, Y: []float64{1, 10, 0, 100, 1000}}}, Options{Title: "t", LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := strokes(parse(t, svg), Color(0)); n != 2 {
		t.Errorf("%d segments on a log scale, want 2", n)
	}
}

func TestNoData(t *testing.T) {
	for _, series := range [][]Series{nil, {{Name: "a", X: []float64{1, 2}, Y: []float64{math.NaN(), math.NaN()}}}} {
		svg, err := Line(series, Options{Title: "empty", Legend: true})
		if err != nil {
			t.Fatal(err)
		}
		if !contains(texts(parse(t, svg)), "no data") {
			t.Errorf("chart of %d series without points does not say no data", len(series))
		}
	}
	svg, err := Bar(nil, nil, nil, Options{Title: "empty"})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(texts(parse(t, svg)), "no data") {
		t.Error("bar chart without bars does not say no data")
	}
}

func TestBar(t *testing.T) {
	svg, err := Bar([]string{"innodb", "myrocks", "postgres"}, []float64{36512, math.NaN(), 1234567}, []int{0, 1, 2},
		Options{Title: "l.i0: ips", YLabel: "ips"})
	if err != nil {
		t.Fatal(err)
	}
	root := parse(t, svg)
	if rects(root, Color(0)) != 1 || rects(root, Color(2)) != 1 {
		t.Errorf("bars in colours 0 and 2: %d, %d; want one each", rects(root, Color(0)), rects(root, Color(2)))
	}
	if fills(root, Color(1)) != 0 {
		t.Error("a missing value is drawn as a bar")
	}
	tx := texts(root)
	for _, want := range []string{"36.5k", "-", "1.23M", "innodb", "myrocks", "postgres"} {
		if !contains(tx, want) {
			t.Errorf("no text %q in %q", want, tx)
		}
	}
	if _, err := Bar([]string{"a"}, []float64{1, 2}, nil, Options{Title: "bad"}); err == nil {
		t.Error("more values than labels is not an error")
	}
	// Every value missing: the labels with their "-", no bar, and "no data".
	svg, err = Bar([]string{"innodb", "myrocks"}, []float64{math.NaN(), math.NaN()}, []int{0, 1}, Options{Title: "none"})
	if err != nil {
		t.Fatal(err)
	}
	root = parse(t, svg)
	if n := rects(root, Color(0)) + rects(root, Color(1)); n != 0 {
		t.Errorf("%d bars for missing values", n)
	}
	tx = texts(root)
	for _, want := range []string{"innodb", "myrocks", "-", "no data"} {
		if !contains(tx, want) {
			t.Errorf("no text %q in %q", want, tx)
		}
	}
}

// yTicks returns the numeric tick labels of a chart (texts that parse as compact numbers).
func yTicks(root element) []string {
	var out []string
	for _, s := range texts(root) {
		if compactLabel.MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

var compactLabel = regexp.MustCompile(`^-?[0-9.]+[kMG]?$`)

func TestAxes(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		name string
		y    []float64
		o    Options
		want []string // tick labels that must be there
		not  []string // and must not
	}{
		// Rates: the axis starts at 0 however high the values.
		{"rates from 0", []float64{1e6, 1.2e6, 1.1e6, 1.3e6}, Options{Title: "rates"}, []string{"0", "400k", "1.2M"}, nil},
		// Negative data is not cut at 0.
		{"negative", []float64{-40, -10, 20, 30}, Options{Title: "negative"}, []string{"-30", "0", "30"}, nil},
		// Log over decades: powers of ten, compact.
		{"log decades", []float64{5, 50, 5000, 2e6}, Options{Title: "log", LogY: true}, []string{"10", "1000", "100k", "1M"}, []string{"0"}},
		// Log within a decade: still labelled.
		{"log narrow", []float64{1100, 1500, 1300, 1900}, Options{Title: "log narrow", LogY: true}, []string{"1200", "1500", "1800"}, nil},
	} {
		svg, err := Line([]Series{{Name: "a", X: x, Y: c.y}}, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ticks := yTicks(parse(t, svg))
		for _, w := range c.want {
			if !contains(ticks, w) {
				t.Errorf("%s: no tick %q in %q", c.name, w, ticks)
			}
		}
		for _, w := range c.not {
			if contains(ticks, w) {
				t.Errorf("%s: tick %q in %q", c.name, w, ticks)
			}
		}
	}
}

// TestNoPanic draws edge cases that gonum alone would panic on or draw wrongly.
func TestNoPanic(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		draw func(Options) ([]byte, error)
	}{
		{"log constant below 1", func(o Options) ([]byte, error) {
			return Line([]Series{{X: []float64{1, 2}, Y: []float64{0.5, 0.5}}}, logLegend(o))
		}},
		{"log one point", func(o Options) ([]byte, error) { return Line([]Series{{X: []float64{1}, Y: []float64{0.5}}}, logY(o)) }},
		{"log only zeros", func(o Options) ([]byte, error) {
			return Line([]Series{{X: []float64{1, 2}, Y: []float64{0, 0}}}, logY(o))
		}},
		{"all zero", func(o Options) ([]byte, error) { return Line([]Series{{X: []float64{1, 2}, Y: []float64{0, 0}}}, o) }},
		{"one x", func(o Options) ([]byte, error) {
			return Line([]Series{{Name: "a", X: []float64{1, 1}, Y: []float64{3, 3}}}, legend(o))
		}},
		{"infinities", func(o Options) ([]byte, error) {
			return Line([]Series{{X: []float64{1, 2, 3}, Y: []float64{math.Inf(1), 2, math.Inf(-1)}}}, o)
		}},
		{"short y", func(o Options) ([]byte, error) { return Line([]Series{{X: []float64{1, 2, 3}, Y: []float64{1}}}, o) }},
		{"bar zero", func(o Options) ([]byte, error) { return Bar([]string{"a"}, []float64{0}, nil, o) }},
		{"bar negative", func(o Options) ([]byte, error) { return Bar([]string{"a", "b"}, []float64{-3, nan}, nil, o) }},
		{"small size", func(o Options) ([]byte, error) {
			return Bar([]string{"a", "b", "c"}, []float64{1, 2, 3}, nil, small(o))
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", c.name, r)
				}
			}()
			svg, err := c.draw(Options{Title: c.name})
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				return
			}
			parse(t, svg)
		}()
	}
}

func logY(o Options) Options      { o.LogY = true; return o }
func legend(o Options) Options    { o.Legend = true; return o }
func logLegend(o Options) Options { return legend(logY(o)) }
func small(o Options) Options     { o.Width, o.Height = 120, 80; return o }

func TestDeterministic(t *testing.T) {
	x, y := ramp(600)
	s := []Series{{Name: "a", X: x, Y: y}, {Name: "b", Color: 1, X: x, Y: y}}
	a, err := Line(s, Options{Title: "t", Legend: true})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Line(s, Options{Title: "t", Legend: true})
	if !bytes.Equal(a, b) {
		t.Error("the same input gives different output")
	}
}

func ramp(n int) ([]float64, []float64) {
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = float64(i+1), 1000+float64((i*7919)%500)
	}
	return x, y
}

func TestDownsample(t *testing.T) {
	x, y := ramp(10000)
	y[4321], y[7777] = 0, 1e6 // a stall and a spike
	dx, dy := Downsample(x, y, 600)
	if len(dx) > 600 || len(dx) != len(dy) || len(dx) < 500 {
		t.Fatalf("%d points (x %d), want at most 600 and most of them", len(dy), len(dx))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range dx {
		if i > 0 && dx[i] <= dx[i-1] {
			t.Fatalf("x out of order at %d: %v after %v", i, dx[i], dx[i-1])
		}
		lo, hi = math.Min(lo, dy[i]), math.Max(hi, dy[i])
	}
	if lo != 0 || hi != 1e6 {
		t.Errorf("the stall and the spike did not survive: min %v, max %v", lo, hi)
	}
	// Short input is returned as it is.
	sx, sy := Downsample(x[:600], y[:600], 600)
	if len(sx) != 600 || &sx[0] != &x[0] || &sy[0] != &y[0] {
		t.Error("input of max points was changed")
	}
}

func TestDownsampleGaps(t *testing.T) {
	x, y := ramp(10000)
	// Gaps stay gaps, and the bound holds with them.
	y[100], y[5000] = math.NaN(), math.NaN()
	gx, gy := Downsample(x, y, 600)
	gaps := 0
	for _, v := range gy {
		if math.IsNaN(v) {
			gaps++
		}
	}
	if gaps != 2 || len(gx) > 600 || len(gx) < 500 {
		t.Errorf("%d gaps in %d points, want 2 in at most 600 and most of them", gaps, len(gx))
	}
	// Many gaps: the bound still holds, and a long gap stays a gap.
	for i := 2000; i < 4000; i++ {
		y[i] = math.NaN()
	}
	gx, gy = Downsample(x, y, 600)
	if len(gx) > 600 || len(gx) != len(gy) {
		t.Errorf("%d points with a long gap, want at most 600", len(gx))
	}
	inGap := 0
	for i := range gx {
		if gx[i] > 2001 && gx[i] < 4000 && !math.IsNaN(gy[i]) {
			t.Errorf("a value at x %v inside the gap", gx[i])
		}
		if gx[i] > 2001 && gx[i] < 4000 {
			inGap++
		}
	}
	if inGap == 0 {
		t.Error("the long gap is gone")
	}
}

func TestDownsampleTinyLimit(t *testing.T) {
	x, y := ramp(10000)
	y[100] = math.NaN()
	// A tiny limit holds too, without a panic.
	for _, m := range []int{0, 1, 2, 3} {
		if tx, _ := Downsample(x, y, m); len(tx) > max(m, 2) {
			t.Errorf("max %d: %d points", m, len(tx))
		}
	}
}

func TestColor(t *testing.T) {
	seen := map[string]bool{}
	for i := range 8 {
		if !regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`).MatchString(Color(i)) || seen[Color(i)] {
			t.Errorf("colour %d: %q is not a new #rrggbb", i, Color(i))
		}
		seen[Color(i)] = true
	}
	if Color(len(palette)) != Color(0) || Color(-1) == "" || Color(math.MinInt) == "" {
		t.Error("the palette does not wrap")
	}
}

// noisy returns a per-second series of a rate with noise, dips and spikes: the worst case for
// the size of a chart.
func noisy(n int, seed uint64) ([]float64, []float64) {
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		seed = seed*6364136223846793005 + 1442695040888963407
		x[i], y[i] = float64(i+1), 20000+float64(seed>>40%30000)
	}
	return x, y
}

func TestSize(t *testing.T) {
	var s []Series
	for i := range 3 {
		x, y := noisy(600, uint64(i))
		s = append(s, Series{Name: fmt.Sprint("config-", i), Color: i, X: x, Y: y})
	}
	svg, err := Line(s, Options{Title: "l.i1: inserts/s each second", XLabel: "seconds", YLabel: "inserts/s", Legend: true})
	if err != nil {
		t.Fatal(err)
	}
	parse(t, svg)
	t.Logf("size %d", len(svg))
	if len(svg) > 45000 {
		t.Errorf("3 series of 600 points take %d bytes, want well under 60 KB", len(svg))
	}
}

// BenchmarkLine draws a per-second chart of three configurations over 600 points, the most a
// report line has; it reports the size of the SVG.
func BenchmarkLine(b *testing.B) {
	var s []Series
	for i := range 3 {
		x, y := noisy(600, uint64(i))
		s = append(s, Series{Name: fmt.Sprint("config-", i), Color: i, X: x, Y: y})
	}
	var n int
	for b.Loop() {
		svg, err := Line(s, Options{Title: "t", XLabel: "seconds", YLabel: "rows/s", Legend: true})
		if err != nil {
			b.Fatal(err)
		}
		n = len(svg)
	}
	b.ReportMetric(float64(n), "svg-bytes")
}

// TestRoundPath checks the canvas's rounding: every point at two decimals, and an arc drawn as
// curves that start and end on its circle, clockwise or not, also around the origin where a
// coordinate computed by vgsvg would come out as 1e-16.
func TestRoundPath(t *testing.T) {
	for _, c := range []struct {
		name               string
		cx, cy, r, s, a    float64
		wantCurves         int
		wantEndX, wantEndY float64
	}{
		{"circle at the origin", 0, 0, 1.5, 0, 2 * math.Pi, 4, 1.5, 0},
		{"quarter, clockwise", 10.123, 20.456, 2, math.Pi / 2, -math.Pi / 2, 1, 12.12, 20.46},
		{"three quarters", 100, 100, 3, math.Pi, 1.5 * math.Pi, 3, 100, 103},
	} {
		var p vg.Path
		p.Move(vg.Point{X: vg.Length(c.cx + c.r*math.Cos(c.s)), Y: vg.Length(c.cy + c.r*math.Sin(c.s))})
		p.Arc(vg.Point{X: vg.Length(c.cx), Y: vg.Length(c.cy)}, vg.Length(c.r), c.s, c.a)
		out := roundPath(p)
		curves := 0
		for _, comp := range out {
			pts := append([]vg.Point{comp.Pos}, comp.Control...)
			for _, pt := range pts {
				for _, v := range []vg.Length{pt.X, pt.Y} {
					if s := fmt.Sprint(float64(v)); longNumber.MatchString(s) {
						t.Errorf("%s: coordinate %s", c.name, s)
					}
				}
			}
			switch comp.Type {
			case vg.ArcComp:
				t.Errorf("%s: an arc is left for vgsvg", c.name)
			case vg.CurveComp:
				curves++
				if d := math.Hypot(float64(comp.Pos.X)-c.cx, float64(comp.Pos.Y)-c.cy); math.Abs(d-c.r) > 0.01 {
					t.Errorf("%s: curve ends %.3f from the centre, want %.3f", c.name, d, c.r)
				}
			case vg.LineComp:
				t.Errorf("%s: a line to the arc's start, where the pen already is", c.name)
			}
		}
		end := out[len(out)-1].Pos
		if curves != c.wantCurves || float64(end.X) != c.wantEndX || float64(end.Y) != c.wantEndY {
			t.Errorf("%s: %d curves ending at %v, want %d ending at (%v, %v)", c.name, curves, end, c.wantCurves, c.wantEndX, c.wantEndY)
		}
	}
}

// TestWholeTicks: an axis of counts (runs 1 to 18) is labelled at whole numbers only, about
// five of them, with a tick at each whole number between; a short axis labels each.
func TestWholeTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		labels []string
	}{
		{0.6, 18.4, []string{"5", "10", "15"}},
		{0.9, 3.1, []string{"1", "2", "3"}},
		{1, 120, []string{"20", "40", "60", "80", "100", "120"}},
	} {
		var labels []string
		for _, tk := range (wholeTicks{}).Ticks(c.lo, c.hi) {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < c.lo || tk.Value > c.hi {
				t.Errorf("%v..%v: tick at %v", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if !slices.Equal(labels, c.labels) {
			t.Errorf("%v..%v: labels %v, want %v", c.lo, c.hi, labels, c.labels)
		}
	}
}

// TestLineRules: a Rule series draws a dashed vertical line at each x with its label beside
// its foot, and its y does not widen the axis; a Level series is a dashed line of its own.
func TestLineRules(t *testing.T) {
	nan := math.NaN()
	series := []Series{
		{Name: "a", Color: 0, X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{100, 101, 99, 80, 81, 79, 80, 80}},
		{Name: "level", Color: 0, Level: true, X: []float64{1, 3, nan, 4, 8}, Y: []float64{100, 100, nan, 80, 80}},
		{Name: "change", Color: 2, Rule: true, X: []float64{4}, Y: []float64{1e6}, Labels: []string{"run 4: 100 → 80"}},
	}
	svg, err := Line(series, Options{Title: "t", Legend: true})
	if err != nil {
		t.Fatal(err)
	}
	root := parse(t, svg)
	var rules []string
	root.walk(func(e element) {
		st := e.attr("style")
		if e.XMLName.Local == "path" && strings.Contains(st, "stroke:"+Color(2)) && strings.Contains(st, "stroke-dasharray") {
			rules = append(rules, e.attr("d"))
		}
	})
	if len(rules) != 2 { // the rule and its legend sample
		t.Fatalf("%d dashed paths in the rule's colour, want the rule and its legend sample: %v", len(rules), rules)
	}
	vertical := regexp.MustCompile(`^M([-0-9.]+),[-0-9.]+L([-0-9.]+),[-0-9.]+$`)
	found := false
	for _, d := range rules {
		if m := vertical.FindStringSubmatch(d); m != nil && m[1] == m[2] {
			found = true
		}
	}
	if !found {
		t.Errorf("no vertical rule among %v", rules)
	}
	tx := texts(root)
	if !contains(tx, "run 4: 100 → 80") || !contains(tx, "change") || !contains(tx, "level") {
		t.Errorf("texts %q lack the rule's label or the legend", tx)
	}
	for _, s := range tx {
		if strings.HasSuffix(s, "k") || strings.HasSuffix(s, "M") {
			t.Errorf("tick %q: the rule's y widened the axis", s)
		}
	}
	dashed := 0
	root.walk(func(e element) {
		st := e.attr("style")
		if e.XMLName.Local == "path" && strings.Contains(st, "stroke:"+Color(0)) && strings.Contains(st, "stroke-dasharray") {
			dashed++
		}
	})
	if dashed != 3 { // two levels and the legend sample
		t.Errorf("%d dashed paths in the level's colour, want 3", dashed)
	}
}
