package chart

// dashes are the line patterns of the palette's cycles of ten colours: the first ten
// configurations draw solid lines, the next ten dashed, the next dotted, and so on, so that a
// page of many configurations tells its lines apart by pattern as well as by colour. Lengths
// in points (SVG) or CSS pixels (the page's interactive charts): dash, gap, ...
var dashes = [...][]float64{nil, {6, 3}, {1.5, 2.5}, {8, 3, 1.5, 3}, {12, 4}}

// Dash returns the line pattern of configuration i (any i >= 0; it wraps): nil for a solid
// line, else the lengths of its dashes and gaps.
func Dash(i int) []float64 {
	c := i / 10
	n := len(dashes)
	return dashes[(c%n+n)%n]
}
