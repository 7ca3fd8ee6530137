package chart

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/enginebench/enginebench/internal/numfmt"
)

// BoxRow is one configuration's latency distribution in a box chart, in milliseconds. A NaN
// value was not measured: a run made before the quartiles has no box, only the line, whisker
// and mark it can draw; a row without any value shows "-".
type BoxRow struct {
	Name                    string
	Color                   int
	P25, P50, P75, P99, Max float64
}

// Box geometry in CSS pixels: the height of a row, and of the rest of the chart (title, legend,
// axis).
const (
	boxRowHeight = 20
	boxOverhead  = 96
	// boxLegendRows is the room above the first row for the legend, in rows.
	boxLegendRows = 1.3
)

// BoxHeight is the height of a box chart of n rows when Options.Height is not set.
func BoxHeight(n int) int { return boxOverhead + boxRowHeight*max(n, 1) }

// Box returns an <svg> element with a horizontal box per row, the first row at the top, on a
// log time axis in ms: a box from p25 to p75 tinted in the row's palette colour and outlined in
// it, a black line at p50, a whisker in the colour from the box (or the p50 line) to p99, and a
// diamond at max. A legend above the rows says which is which.
func Box(rows []BoxRow, o Options) ([]byte, error) {
	if o.Height <= 0 {
		o.Height = BoxHeight(len(rows))
	}
	p := newPlot(o, true)
	lo, hi := boxRange(rows)
	if len(rows) == 0 || lo > hi {
		return noData(p, o)
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[len(rows)-1-i] = r.Name
	}
	p.NominalY(names...)
	p.Y.Tick.Label.Font = font.From(sans, 9)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4+boxLegendRows
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = msTicks{}
	// Whole decades, so both ends of the axis are labelled.
	p.X.Min, p.X.Max = math.Pow(10, math.Floor(math.Log10(lo/1.2))), math.Pow(10, math.Ceil(math.Log10(hi*1.2)))
	if p.X.Label.Text == "" {
		p.X.Label.Text = "ms (log scale)"
	}
	p.Add(boxes{rows: rows, text: p.Legend.TextStyle}, boxLegend{text: p.Legend.TextStyle})
	return render(p, o)
}

// boxRange is the lowest and the highest positive value of the rows (lo > hi: none).
func boxRange(rows []BoxRow) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, v := range r.values() {
			if drawable(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

func (r BoxRow) values() []float64 { return []float64{r.P25, r.P50, r.P75, r.P99, r.Max} }

// drawable reports whether a value can be drawn on the log axis.
func drawable(v float64) bool { return finite(v) && v > 0 }

// msTicks are the log axis's ticks: each power of ten labelled as a plain number of ms (0.01,
// 1, 1000), 2 and 5 times it too within two decades, and a tick at each multiple between.
// (gonum's LogTicks starts a decade late when log10 of the low end rounds above a whole number.)
type msTicks struct{}

// Ticks implements plot.Ticker.
func (msTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if !(lo > 0 && hi > lo) {
		return nil
	}
	few := hi/lo < 100+1e-9
	for e := int(math.Floor(math.Log10(lo) + 1e-9)); math.Pow10(e) <= hi*(1+1e-9); e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow10(e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || few && (m == 2 || m == 5) {
				tk.Label = numfmt.Num(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// boxes draws the rows; it is a plot.Plotter.
type boxes struct {
	rows []BoxRow
	text draw.TextStyle
}

// Plot implements plot.Plotter.
func (b boxes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.rows)
	half := vg.Length(math.Min(6, 0.3*math.Abs(float64(trY(1)-trY(0)))))
	for i, r := range b.rows {
		drawBoxRow(c, r, trX, trY(float64(n-1-i)), half, b.text)
	}
}

// boxLine is the black p50 line.
var boxLine = draw.LineStyle{Color: color.Black, Width: vg.Points(2)}

// drawBoxRow draws one row at y, its box half high: the whisker under the box, the box, the
// p50 line and the max diamond, each where its values were measured; "-" for none.
func drawBoxRow(c draw.Canvas, r BoxRow, trX func(float64) vg.Length, y, half vg.Length, text draw.TextStyle) {
	col := rgba(r.Color)
	whisker := draw.LineStyle{Color: col, Width: vg.Points(1.25)}
	from := r.P75
	if !drawable(from) {
		from = r.P50
	}
	if drawable(from) && drawable(r.P99) && r.P99 >= from {
		c.StrokeLine2(whisker, trX(from), y, trX(r.P99), y)
		c.StrokeLine2(whisker, trX(r.P99), y-half*0.6, trX(r.P99), y+half*0.6)
	}
	if drawable(r.P25) && drawable(r.P75) && r.P75 >= r.P25 {
		box := rectPath(trX(r.P25), y-half, trX(r.P75), y+half)
		c.SetColor(tint(col))
		c.Fill(box)
		c.SetLineStyle(draw.LineStyle{Color: col, Width: vg.Points(1)})
		c.Stroke(box)
	}
	if drawable(r.P50) {
		c.StrokeLine2(boxLine, trX(r.P50), y-half, trX(r.P50), y+half)
	}
	if drawable(r.Max) {
		c.SetColor(col)
		c.Fill(diamond(trX(r.Max), y, half*0.8))
	}
	if !slices.ContainsFunc(r.values(), drawable) {
		text.XAlign, text.YAlign = draw.XLeft, draw.YCenter
		text.Font = font.From(sans, 12)
		c.FillText(text, vg.Point{X: c.Min.X + 6, Y: y}, "-")
	}
}

// rectPath is the closed path of the rectangle from x0, y0 to x1, y1.
func rectPath(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

// diamond is the closed path of a diamond centred at x, y, r from its centre to each corner.
func diamond(x, y, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x, Y: y + r})
	p.Line(vg.Point{X: x + r, Y: y})
	p.Line(vg.Point{X: x, Y: y - r})
	p.Line(vg.Point{X: x - r, Y: y})
	p.Close()
	return p
}

// tint is c mixed with white, opaque: a box's fill, under which the p50 line stays clear.
func tint(c color.RGBA) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(255 - (255-int(v))*45/100) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 255}
}

// boxLegend draws the legend of a box chart in one line above the rows, in grey: the box, the
// p50 line, the whisker and the max diamond, each with what it is.
type boxLegend struct{ text draw.TextStyle }

// Plot implements plot.Plotter.
func (l boxLegend) Plot(c draw.Canvas, _ *plot.Plot) {
	grey := color.RGBA{R: 110, G: 110, B: 110, A: 255}
	y, half := c.Max.Y-vg.Points(10), vg.Points(5)
	x := c.Min.X + vg.Points(6)
	text := l.text
	text.XAlign, text.YAlign = draw.XLeft, draw.YCenter
	label := func(s string) {
		x += vg.Points(4)
		c.FillText(text, vg.Point{X: x, Y: y}, s)
		x += text.Width(s) + vg.Points(14)
	}
	box := rectPath(x, y-half, x+vg.Points(16), y+half)
	c.SetColor(tint(grey))
	c.Fill(box)
	c.SetLineStyle(draw.LineStyle{Color: grey, Width: vg.Points(1)})
	c.Stroke(box)
	x += vg.Points(16)
	label("box: p25 to p75")
	c.StrokeLine2(boxLine, x+vg.Points(1), y-half, x+vg.Points(1), y+half)
	x += vg.Points(2)
	label("line: p50")
	whisker := draw.LineStyle{Color: grey, Width: vg.Points(1.25)}
	c.StrokeLine2(whisker, x, y, x+vg.Points(16), y)
	c.StrokeLine2(whisker, x+vg.Points(16), y-half*0.6, x+vg.Points(16), y+half*0.6)
	x += vg.Points(16)
	label("whisker: to p99")
	c.SetColor(grey)
	c.Fill(diamond(x+half*0.8, y, half*0.8))
	x += half * 1.6
	label("diamond: max")
}
