package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// pageCanvas is gonum's SVG canvas with every coordinate rounded to two decimals before it
// reaches vgsvg: path points, text positions and translations. Arcs (the dots of lone points)
// become cubic Bézier curves of rounded points, so vgsvg computes no coordinate of its own and
// prints each as the short number it was given. A chart of 600 points a line stays small.
type pageCanvas struct{ *vgsvg.Canvas }

// round is l to two decimals, without a negative zero.
func round(l vg.Length) vg.Length {
	v := math.Round(float64(l)*100) / 100
	if v == 0 {
		return 0
	}
	return vg.Length(v)
}

func roundPt(p vg.Point) vg.Point { return vg.Point{X: round(p.X), Y: round(p.Y)} }

// Translate implements vg.Canvas.
func (c pageCanvas) Translate(pt vg.Point) { c.Canvas.Translate(roundPt(pt)) }

// Stroke implements vg.Canvas.
func (c pageCanvas) Stroke(p vg.Path) { c.Canvas.Stroke(roundPath(p)) }

// Fill implements vg.Canvas.
func (c pageCanvas) Fill(p vg.Path) { c.Canvas.Fill(roundPath(p)) }

// FillString implements vg.Canvas.
func (c pageCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.Canvas.FillString(f, roundPt(pt), s)
}

// roundPath returns p with its points rounded and its arcs as curves.
func roundPath(p vg.Path) vg.Path {
	out := make(vg.Path, 0, len(p))
	var at, start vg.Point // the pen, and the start of the current subpath
	for _, comp := range p {
		switch comp.Type {
		case vg.ArcComp:
			out, at = appendArc(out, at, comp)
			continue
		case vg.CloseComp:
			out, at = append(out, comp), start
			continue
		}
		comp.Pos = roundPt(comp.Pos)
		if len(comp.Control) > 0 {
			ctl := make([]vg.Point, len(comp.Control))
			for i, pt := range comp.Control {
				ctl[i] = roundPt(pt)
			}
			comp.Control = ctl
		}
		if comp.Type == vg.MoveComp {
			start = comp.Pos
		}
		out, at = append(out, comp), comp.Pos
	}
	return out
}

// appendArc appends the arc as a line from the pen to its start, when the pen is elsewhere, and
// cubic Bézier curves of at most a quarter turn each, and returns the path and the pen.
func appendArc(out vg.Path, at vg.Point, arc vg.PathComp) (vg.Path, vg.Point) {
	r := float64(arc.Radius)
	on := func(a float64) vg.Point { // the point of the circle at angle a
		s, c := math.Sincos(a)
		return vg.Point{X: arc.Pos.X + vg.Length(r*c), Y: arc.Pos.Y + vg.Length(r*s)}
	}
	if p := roundPt(on(arc.Start)); p != at {
		out, at = append(out, vg.PathComp{Type: vg.LineComp, Pos: p}), p
	}
	n := max(1, int(math.Ceil(math.Abs(arc.Angle)/(math.Pi/2)-1e-9)))
	step := arc.Angle / float64(n)
	k := vg.Length(4.0 / 3 * math.Tan(step/4) * r) // the control points' distance along the tangent
	for i := range n {
		a0, a1 := arc.Start+float64(i)*step, arc.Start+float64(i+1)*step
		s0, c0 := math.Sincos(a0)
		s1, c1 := math.Sincos(a1)
		p0, p1 := on(a0), on(a1)
		ctl := []vg.Point{
			roundPt(vg.Point{X: p0.X - k*vg.Length(s0), Y: p0.Y + k*vg.Length(c0)}),
			roundPt(vg.Point{X: p1.X + k*vg.Length(s1), Y: p1.Y - k*vg.Length(c1)}),
		}
		at = roundPt(p1)
		out = append(out, vg.PathComp{Type: vg.CurveComp, Pos: at, Control: ctl})
	}
	return out, at
}

// render draws the plot into an SVG element fit for an HTML page: gonum's drawing of it on a
// w x h canvas, under a root element of the chart's own, without a prolog: a viewBox so it
// scales, the chart's class, role and title. The page's style sheet gives the texts' font
// (Liberation Sans, gonum's) its fallbacks.
func render(p *plot.Plot, o Options) ([]byte, error) {
	w, h := size(o.Width, defaultWidth), size(o.Height, defaultHeight)
	// One SVG user unit per CSS pixel: the canvas is w x h "points".
	c := vgsvg.NewWith(vgsvg.UseWH(vg.Length(w), vg.Length(h)))
	p.Draw(draw.New(pageCanvas{c}))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %q: %w", o.Title, err)
	}
	body, err := content(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", o.Title, err)
	}
	title := html.EscapeString(o.Title)
	head := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" class="chart" role="img" aria-label="%s" style="width:100%%;max-width:%dpx;height:auto"><title>%s</title>`,
		w, h, w, h, title, w, title)
	return append([]byte(head), bytes.TrimSpace(body)...), nil
}

// content returns an SVG document after its root element's start tag: the drawing and the
// root's end tag.
func content(doc []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("SVG output without an <svg> element")
		}
		if err != nil {
			return nil, fmt.Errorf("SVG output: %w", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "svg" {
			return doc[dec.InputOffset():], nil
		}
	}
}
