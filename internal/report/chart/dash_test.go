package chart

import (
	"fmt"
	"strings"
	"testing"
)

// TestPaletteOfThirty checks that 30 configurations get 30 different colours, and that each
// cycle of ten gets its own line pattern, solid first, so that colour and pattern together tell
// up to 50 lines apart.
func TestPaletteOfThirty(t *testing.T) {
	seen := map[string]int{}
	for i := range 30 {
		if j, ok := seen[Color(i)]; ok {
			t.Errorf("configurations %d and %d share colour %s", j, i, Color(i))
		}
		seen[Color(i)] = i
	}
	for i := range 10 {
		if Dash(i) != nil {
			t.Errorf("configuration %d: dashes %v, want a solid line", i, Dash(i))
		}
	}
	type look struct {
		colour string
		dash   string
	}
	looks := map[look]int{}
	for i := range 50 {
		l := look{Color(i), fmt.Sprint(Dash(i))}
		if j, ok := looks[l]; ok {
			t.Errorf("configurations %d and %d look the same: %v", j, i, l)
		}
		looks[l] = i
	}
}

// TestLineDashes checks that a line of the second cycle of ten is drawn dashed in the SVG, and
// one of the first solid.
func TestLineDashes(t *testing.T) {
	svg, err := Line([]Series{{Name: "a", Color: 0, X: []float64{0, 1}, Y: []float64{1, 2}}, {Name: "k", Color: 10, X: []float64{0, 1}, Y: []float64{2, 1}}}, Options{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	solid, dashed := 0, 0
	parse(t, svg).walk(func(e element) {
		style := e.attr("style")
		switch {
		case e.XMLName.Local != "path" || !strings.Contains(style, "fill:none"):
		case strings.Contains(style, "stroke:"+Color(0)) && !strings.Contains(style, "stroke-dasharray"):
			solid++
		case strings.Contains(style, "stroke:"+Color(10)) && strings.Contains(style, "stroke-dasharray"):
			dashed++
		}
	})
	if solid < 1 || dashed < 1 {
		t.Errorf("%d solid lines in colour 0, %d dashed in colour 10; want both (svg %.300s)", solid, dashed, svg)
	}
}
