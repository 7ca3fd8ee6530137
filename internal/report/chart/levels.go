package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Level is one level of a capacity search: its target rate, the rate achieved, and whether it
// passed.
type Level struct {
	Target, Achieved float64
	Pass             bool
}

// LevelSeries is one configuration's levels.
type LevelSeries struct {
	Name   string
	Color  int
	Levels []Level
}

// Levels returns an <svg> element of capacity levels: for each series the achieved rate
// against the target, joined in the order of the targets, a filled circle where a level
// passed and a cross where it failed, beside the grey dashed line achieved = target.
func Levels(series []LevelSeries, o Options) ([]byte, error) {
	p := newPlot(o, true)
	top := 0.0
	for _, s := range series {
		pts := levelXYs(s.Levels, nil)
		if len(pts) == 0 {
			continue
		}
		for _, pt := range pts {
			top = max(top, pt.X, pt.Y)
		}
		if err := addLevels(p, s, pts); err != nil {
			return nil, fmt.Errorf("chart %q: series %q: %w", o.Title, s.Name, err)
		}
		if o.Legend && s.Name != "" {
			p.Legend.Add(s.Name, &plotter.Line{LineStyle: lineStyle(Series{Color: s.Color})})
		}
	}
	if top <= 0 {
		return noData(p, o)
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: top * 1.05, Y: top * 1.05}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle = draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}
	p.Add(diag)
	if o.Legend {
		p.Legend.Add("pass", &plotter.Scatter{GlyphStyle: passGlyph(color.Gray{Y: 60})})
		p.Legend.Add("fail", &plotter.Scatter{GlyphStyle: failGlyph(color.Gray{Y: 60})})
		p.Legend.Add("achieved = target", diag)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = top*1.05, top*1.4 // room for the legend above
	return render(p, o)
}

// levelXYs returns the finite levels as points sorted by target, only those whose pass is
// *pass when pass is set.
func levelXYs(levels []Level, pass *bool) plotter.XYs {
	var pts plotter.XYs
	for _, l := range levels {
		if finite(l.Target) && finite(l.Achieved) && (pass == nil || *pass == l.Pass) {
			pts = append(pts, plotter.XY{X: l.Target, Y: l.Achieved})
		}
	}
	slices.SortStableFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	return pts
}

// addLevels adds a series' line and its pass and fail glyphs.
func addLevels(p *plot.Plot, s LevelSeries, pts plotter.XYs) error {
	if len(pts) > 1 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.LineStyle = lineStyle(Series{Color: s.Color})
		p.Add(l)
	}
	c := rgba(s.Color)
	for _, pass := range []bool{true, false} {
		xy := levelXYs(s.Levels, &pass)
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		sc.GlyphStyle = failGlyph(c)
		if pass {
			sc.GlyphStyle = passGlyph(c)
		}
		p.Add(sc)
	}
	return nil
}

func passGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
}

func failGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(4.5), Shape: draw.CrossGlyph{}}
}
