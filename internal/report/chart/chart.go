// Package chart draws the report's charts as inline SVG with gonum.org/v1/plot: line charts of
// per-second series and bar charts of a rate per configuration.
package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/enginebench/enginebench/internal/numfmt"
)

// Series is one line of a line chart: one configuration's values over x.
type Series struct {
	Name  string
	Color int       // index into the palette: the configuration's position, the same in every chart
	X, Y  []float64 // a NaN in Y is no value: the line has a gap there
	// Marks draws each point as a large dot, with no line: points marked on other series' lines
	// (the history's regressions).
	Marks bool
	// Rule draws each point as a dashed vertical line across the plot at its x, with
	// Labels[i], when there is one, written beside its foot: events at an x (the history's
	// change points). Its y places nothing and does not widen the axis.
	Rule   bool
	Labels []string
	// Level draws the series as a thin dashed line: a level the points are compared with
	// (the history's means between change points).
	Level bool
}

// Options are a chart's texts and size.
type Options struct {
	Title, XLabel, YLabel string
	LogY                  bool // log scale on y; values <= 0 are left out (gaps)
	Legend                bool // draw a legend of the series names (line charts)
	Width, Height         int  // CSS pixels; 0 means the defaults 560 x 280
	// WholeX says that x counts (runs, levels): its ticks are whole numbers only.
	WholeX bool
}

// Default size of a chart in CSS pixels.
const (
	defaultWidth  = 560
	defaultHeight = 280
)

// palette is Tableau 10 (distinct colours that stay apart for most colour-blind readers), then
// 20 more for pages of up to 30 configurations, each chosen in turn as far as it could be from
// all before it (CIELAB distance, lightness 30-72 so that a line shows on white): no two are
// closer than 25 in CIELAB. Upper case, as gonum writes colours into the SVG. Beyond 30 the
// colours repeat and Dash tells the lines apart.
var palette = [...]string{"#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#EDC948", "#B07AA1", "#FF9DA7", "#9C755F", "#BAB0AC",
	"#0000FF", "#FF22DD", "#0055DD", "#00CC00", "#FF0000", "#880077", "#FF0088", "#DD88FF", "#005544", "#8811CC",
	"#555500", "#773300", "#88BB00", "#7799FF", "#882244", "#554499", "#554455", "#FF77BB", "#AA0000", "#00BBFF"}

// Color returns palette colour i (any i >= 0; it wraps) as CSS hex "#rrggbb", for legends in
// HTML tables that must match the charts.
func Color(i int) string {
	n := len(palette)
	return palette[(i%n+n)%n]
}

func rgba(i int) color.RGBA {
	v, _ := strconv.ParseUint(Color(i)[1:], 16, 32)
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// sans is the typeface of every text, gonum's own; the page's style sheet names its fallbacks.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot with the options' texts in the sans typeface and a light grid
// (horizontal lines only when vertical is false).
func newPlot(o Options, vertical bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = o.Title
	p.Title.TextStyle.Font = font.From(sans, 12)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Tick.Marker = compactTicks{}
	}
	if o.WholeX {
		p.X.Tick.Marker = wholeTicks{}
	}
	p.X.Label.Text = o.XLabel
	p.Y.Label.Text = o.YLabel
	p.Legend.TextStyle.Font = font.From(sans, 9)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(14)
	g := plotter.NewGrid()
	// Light grid lines, so the data stands out.
	g.Horizontal.Color, g.Horizontal.Width = color.Gray{Y: 0xCC}, vg.Points(0.5)
	g.Vertical = g.Horizontal
	if !vertical {
		g.Vertical.Color = nil
	}
	p.Add(g)
	return p
}

// Line returns an <svg> element with one line per series.
func Line(series []Series, o Options) ([]byte, error) {
	p := newPlot(o, true)
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = compactTicks{log: true}
	}
	var all span
	entries := 0
	var rules []Series
	for _, s := range series {
		if s.Rule {
			rules = append(rules, s)
			if o.Legend && s.Name != "" {
				p.Legend.Add(s.Name, legendThumb(s))
				entries++
			}
			continue
		}
		sp, err := addSeries(p, s, o.LogY)
		if err != nil {
			return nil, fmt.Errorf("chart %q: series %q: %w", o.Title, s.Name, err)
		}
		all = all.join(sp)
		if o.Legend && s.Name != "" {
			p.Legend.Add(s.Name, legendThumb(s))
			entries++
		}
	}
	if all.points == 0 {
		return noData(p, o)
	}
	// The legend sits in the top right corner, above the data: room for it.
	room := 0.0
	if entries > 0 {
		room = 0.08 + 0.07*float64(entries)
	}
	p.Y.Min, p.Y.Max = all.yRange(o.LogY, room)
	xlo, xhi := xRange(series)
	if err := addRules(p, rules, xlo, xhi, o.LogY); err != nil {
		return nil, fmt.Errorf("chart %q: %w", o.Title, err)
	}
	return render(p, o)
}

// xRange is the lowest and highest finite x of the series.
func xRange(series []Series) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, x := range s.X {
			if finite(x) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	return lo, hi
}

// addRules draws the rules' points as vertical lines from the y axis' bottom to its top, and
// their labels beside their feet: left-aligned right of the line in the left half of the x
// range, right-aligned left of it in the right half, stacked in three rows so that labels of
// close rules do not overlap.
func addRules(p *plot.Plot, rules []Series, xlo, xhi float64, logY bool) error {
	k := 0 // the labels so far
	for _, s := range rules {
		style := ruleStyle(s)
		for i, x := range s.X {
			if !finite(x) {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
			if err != nil {
				return fmt.Errorf("series %q: %w", s.Name, err)
			}
			l.LineStyle = style
			p.Add(l)
			if i >= len(s.Labels) || s.Labels[i] == "" {
				continue
			}
			if err := addRuleLabel(p, s, x, s.Labels[i], k, x > (xlo+xhi)/2, logY); err != nil {
				return fmt.Errorf("series %q: %w", s.Name, err)
			}
			k++
		}
	}
	return nil
}

// addRuleLabel writes text beside the foot of a rule at x, in row k%3 above the x axis, on the
// rule's left when left.
func addRuleLabel(p *plot.Plot, s Series, x float64, text string, k int, left, logY bool) error {
	f := 0.04 + 0.07*float64(k%3)
	y := p.Y.Min + (p.Y.Max-p.Y.Min)*f
	if logY {
		y = p.Y.Min * math.Pow(p.Y.Max/p.Y.Min, f)
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	lb.TextStyle[0].Font = font.From(sans, 9)
	lb.TextStyle[0].Color = rgba(s.Color)
	lb.Offset = vg.Point{X: vg.Points(3)}
	if left {
		lb.TextStyle[0].XAlign = draw.XRight
		lb.Offset.X = -vg.Points(3)
	}
	p.Add(lb)
	return nil
}

// span is the drawn points of a chart: how many, and their lowest and highest y.
type span struct {
	points int
	lo, hi float64
}

// join is the span of the points of s and t.
func (s span) join(t span) span {
	switch {
	case t.points == 0:
		return s
	case s.points == 0:
		return t
	}
	return span{s.points + t.points, math.Min(s.lo, t.lo), math.Max(s.hi, t.hi)}
}

// yRange is the y axis of a line chart of the span's points, with room (a fraction of the
// range) above them: from 0 for non-negative values on a linear scale, so dips are not
// exaggerated.
func (s span) yRange(logY bool, room float64) (lo, hi float64) {
	lo, hi = s.lo, s.hi
	if logY {
		if lo == hi { // gonum would widen the range by ±1, below zero
			lo, hi = lo/2, hi*2
		}
		return lo, hi * math.Pow(hi/lo, room)
	}
	if lo >= 0 {
		lo = 0 // rates: the axis starts at 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi + (hi-lo)*room
}

// lineStyle is the line of a series: its palette colour.
func lineStyle(s Series) draw.LineStyle {
	style := draw.LineStyle{Color: rgba(s.Color), Width: vg.Points(1.25)}
	for _, d := range Dash(s.Color) {
		style.Dashes = append(style.Dashes, vg.Points(d))
	}
	return style
}

// ruleStyle is the dashed line of a Rule series.
func ruleStyle(s Series) draw.LineStyle {
	return draw.LineStyle{Color: rgba(s.Color), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
}

// levelStyle is the thin dashed line of a Level series.
func levelStyle(s Series) draw.LineStyle {
	return draw.LineStyle{Color: rgba(s.Color), Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
}

// markStyle is the dot of a Marks series' points.
func markStyle(s Series) draw.GlyphStyle {
	return draw.GlyphStyle{Color: rgba(s.Color), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
}

// legendThumb is a series' sample in the legend: its line, or its dot.
func legendThumb(s Series) plot.Thumbnailer {
	switch {
	case s.Marks:
		return &plotter.Scatter{GlyphStyle: markStyle(s)}
	case s.Rule:
		return &plotter.Line{LineStyle: ruleStyle(s)}
	case s.Level:
		return &plotter.Line{LineStyle: levelStyle(s)}
	}
	return &plotter.Line{LineStyle: lineStyle(s)}
}

// addSeries adds a series' segments to the plot: lines, and a dot for a lone point between
// gaps so it is not lost (a large dot at every point for Marks). It returns the span of the points
// drawn.
func addSeries(p *plot.Plot, s Series, logY bool) (span, error) {
	style := lineStyle(s)
	if s.Level {
		style = levelStyle(s)
	}
	var sp span
	for _, seg := range segments(s, logY) {
		for _, pt := range seg {
			sp = sp.join(span{1, pt.Y, pt.Y})
		}
		if s.Marks {
			sc, err := plotter.NewScatter(seg)
			if err != nil {
				return sp, err
			}
			sc.GlyphStyle = markStyle(s)
			p.Add(sc)
			continue
		}
		if len(seg) == 1 {
			sc, err := plotter.NewScatter(seg)
			if err != nil {
				return sp, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			continue
		}
		l, err := plotter.NewLine(seg)
		if err != nil {
			return sp, err
		}
		l.LineStyle = style
		p.Add(l)
	}
	return sp, nil
}

// segments splits a series into runs of drawable points: finite, and positive on a log scale.
func segments(s Series, logY bool) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range min(len(s.X), len(s.Y)) {
		x, y := s.X[i], s.Y[i]
		if finite(x) && finite(y) && (!logY || y > 0) {
			cur = append(cur, plotter.XY{X: x, Y: y})
			continue
		}
		if len(cur) > 0 {
			out, cur = append(out, cur), nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Bar returns an <svg> element with one bar per label, bar i in palette colour colors[i], and
// each bar's value printed on it. A NaN value is a missing bar, labelled "-" (never drawn as 0).
// A bar without a colour (colors shorter than labels) takes colour i.
func Bar(labels []string, values []float64, colors []int, o Options) ([]byte, error) {
	if len(values) != len(labels) {
		return nil, fmt.Errorf("chart %q: %d values for %d labels", o.Title, len(values), len(labels))
	}
	p := newPlot(o, false)
	if len(labels) == 0 {
		return noData(p, o)
	}
	// Bars at most 48 px wide, and at most 60% of their slot of the plot's width.
	plotWidth := float64(size(o.Width, defaultWidth)) - 70
	width := vg.Points(math.Max(2, math.Min(48, 0.6*plotWidth/float64(len(labels)))))
	bars, lo, hi := 0, 0.0, 0.0
	for i, v := range values {
		if !finite(v) {
			continue
		}
		c := i
		if i < len(colors) {
			c = colors[i]
		}
		if err := addBar(p, i, v, c, width); err != nil {
			return nil, fmt.Errorf("chart %q: bar %q: %w", o.Title, labels[i], err)
		}
		bars++
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	p.NominalX(labels...)
	p.X.Tick.Label.Font = font.From(sans, 9)
	p.X.Min, p.X.Max = -0.6, float64(len(labels))-0.4
	p.Y.Min, p.Y.Max = lo*1.05, hi*1.15 // room for the values above the bars
	if hi == lo {
		p.Y.Max = 1
	}
	if err := addValues(p, values); err != nil {
		return nil, fmt.Errorf("chart %q: %w", o.Title, err)
	}
	if bars == 0 { // every value missing: the labels, their "-" and "no data"
		p.Y.Tick.Marker = plot.ConstantTicks{}
		if err := addNoData(p, (p.X.Min+p.X.Max)/2, 0.5); err != nil {
			return nil, fmt.Errorf("chart %q: %w", o.Title, err)
		}
	}
	return render(p, o)
}

// addBar adds bar i of value v in palette colour c.
func addBar(p *plot.Plot, i int, v float64, c int, width vg.Length) error {
	bc, err := plotter.NewBarChart(plotter.Values{v}, width)
	if err != nil {
		return err
	}
	bc.XMin = float64(i)
	bc.Color = rgba(c)
	bc.LineStyle.Width = 0
	p.Add(bc)
	return nil
}

// addValues prints each bar's value above it (on the axis for a negative value), and "-" where
// a value is missing.
func addValues(p *plot.Plot, values []float64) error {
	var marks plotter.XYs
	var texts []string
	for i, v := range values {
		if !finite(v) {
			marks, texts = append(marks, plotter.XY{X: float64(i), Y: 0}), append(texts, "-")
			continue
		}
		marks, texts = append(marks, plotter.XY{X: float64(i), Y: math.Max(v, 0)}), append(texts, numfmt.Count(v))
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: marks, Labels: texts})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 9)
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(lb)
	return nil
}

// noData draws an empty chart that says so.
func noData(p *plot.Plot, o Options) ([]byte, error) {
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Y.Scale = plot.LinearScale{}
	p.X.Tick.Marker = plot.ConstantTicks{}
	p.Y.Tick.Marker = plot.ConstantTicks{}
	p.Legend = plot.NewLegend()
	if err := addNoData(p, 0.5, 0.5); err != nil {
		return nil, fmt.Errorf("chart %q: %w", o.Title, err)
	}
	return render(p, o)
}

// addNoData adds the text "no data" centred at x, y.
func addNoData(p *plot.Plot, x, y float64) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{"no data"}})
	if err != nil {
		return err
	}
	lb.TextStyle[0].Font = font.From(sans, 12)
	lb.TextStyle[0].XAlign = draw.XCenter
	lb.TextStyle[0].YAlign = draw.YCenter
	lb.TextStyle[0].Color = color.Gray{Y: 110}
	p.Add(lb)
	return nil
}

// size is v, or def when v is not set.
func size(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// compactTicks are gonum's default ticks (or log ticks) with labels like 12k and 1.5M.
type compactTicks struct{ log bool }

// Ticks implements plot.Ticker.
func (t compactTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	switch {
	case !t.log:
		ticks = plot.DefaultTicks{}.Ticks(lo, hi)
	case lo <= 0 || hi <= 0:
		return nil // not drawn by Line; a log scale cannot show it
	case hi/lo < 10:
		// Less than a decade: powers of ten would leave the axis without a label.
		ticks = plot.DefaultTicks{}.Ticks(lo, hi)
	default:
		ticks = plot.LogTicks{Prec: -1}.Ticks(lo, hi)
		// Within two decades, 1, 2 and 5 times a power of ten are labelled too.
		for i, tk := range ticks {
			m := math.Round(tk.Value / math.Pow10(int(math.Floor(math.Log10(tk.Value)+1e-9))))
			if hi/lo < 100 && (m == 2 || m == 5) {
				ticks[i].Label = numfmt.Count(tk.Value)
			}
		}
	}
	out := ticks[:0]
	for _, tk := range ticks {
		if t.log && tk.Value <= 0 {
			continue
		}
		if tk.Label != "" {
			tk.Label = numfmt.Count(tk.Value)
		}
		out = append(out, tk)
	}
	return out
}

// wholeTicks label whole numbers only, about five of them, 1, 2 or 5 times a power of ten apart.
type wholeTicks struct{}

// Ticks implements plot.Ticker.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi-lo > 1e4 {
		return compactTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for _, m := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if step = m; (hi-lo)/m <= 6 {
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo); v <= hi; v++ {
		tk := plot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			tk.Label = numfmt.Count(v)
		}
		if tk.Label != "" || step <= 10 {
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// Downsample returns x, y reduced to at most limit points: the points are cut into limit/2
// buckets of consecutive points and each bucket keeps its minimum and its maximum, in their
// original order, so stalls (dips) and spikes stay visible. NaN points are kept as gaps (a bucket
// that holds a NaN keeps one NaN); to hold the bound with them, there are fewer buckets, no
// fewer than limit/3. Inputs of at most limit points are returned unchanged; a limit below 2
// counts as 2.
func Downsample(x, y []float64, limit int) ([]float64, []float64) {
	n := min(len(x), len(y))
	limit = max(limit, 2)
	if n <= limit {
		return x, y
	}
	buckets, gaps := bucketCount(y[:n], limit)
	per := (n + buckets - 1) / buckets
	ox := make([]float64, 0, limit)
	oy := make([]float64, 0, limit)
	for b := 0; b < n; b += per {
		for _, i := range keep(y, b, min(b+per, n), gaps) {
			if i >= 0 {
				ox, oy = append(ox, x[i]), append(oy, y[i])
			}
		}
	}
	return ox, oy
}

// bucketCount returns how many buckets keep y within limit points, and whether the buckets keep
// a NaN as a gap.
func bucketCount(y []float64, limit int) (buckets int, gaps bool) {
	nans := 0
	for _, v := range y {
		if math.IsNaN(v) {
			nans++
		}
	}
	// b buckets give at most 2b points plus one NaN for each bucket that holds one.
	if nans == 0 {
		return limit / 2, false
	}
	buckets = max((limit-nans)/2, limit/3)
	if buckets < 1 { // limit 2 with NaNs: no room for a gap
		return 1, false
	}
	return buckets, true
}

// keep returns the indexes that bucket y[from:to] keeps, in order: its minimum, its maximum and,
// when gaps, its first NaN; -1 for each it has not (the minimum and the maximum may be one).
func keep(y []float64, from, to int, gaps bool) [3]int {
	lo, hi, gap := -1, -1, -1
	for i := from; i < to; i++ {
		switch {
		case math.IsNaN(y[i]):
			if gap < 0 && gaps {
				gap = i
			}
		case lo < 0:
			lo, hi = i, i
		case y[i] < y[lo]:
			lo = i
		case y[i] > y[hi]:
			hi = i
		}
	}
	if hi == lo {
		hi = -1
	}
	out := [3]int{lo, hi, gap}
	slices.Sort(out[:])
	return out
}
