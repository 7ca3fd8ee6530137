package flame

import (
	"bufio"
	_ "embed"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strings"
)

// Options say how SVG draws a tree.
type Options struct {
	// ID is the svg element's id; Title a line above the graph (none when empty).
	ID, Title string
	// Width is the graph's width in SVG units (1200 when 0); the element scales to its box.
	Width float64
	// PerOp names the operation the values are per ("insert"); "op" when empty.
	PerOp string
}

// The geometry of a graph, in SVG units: a frame's height, the title's, the margin and a
// character's width at the font size.
const (
	frameHeight = 16
	titleHeight = 22
	margin      = 4
	fontSize    = 11
	charWidth   = 6.4
	minWidth    = 0.05 // frames narrower are not drawn
)

//go:embed search.js
var searchJS string

//go:embed flame.css
var flameCSS string

// Script is the JavaScript that makes a page's flame graphs searchable: typing into an
// input.flame-search highlights (class "match") every frame of every svg.flame whose function
// name holds the text, and writes the number of matches into each .flame-matches element.
func Script() string { return searchJS }

// Style is the CSS for a page's flame graphs: the highlight of a match.
func Style() string { return flameCSS }

// SVG writes t as a flame graph, root at the bottom, each frame as wide as its CPU, its
// children sorted by name. Every frame is a g element with its function's name in data-fn and
// a tooltip (title) with its CPU per operation and share; a differential tree's frames are
// coloured by their change in CPU per operation (red grew, blue shrank), any other's by a hash
// of their package.
func SVG(w io.Writer, t *Tree, o Options) error {
	if o.Width <= 0 {
		o.Width = 1200
	}
	if o.PerOp == "" {
		o.PerOp = "op"
	}
	levels := t.Depth() + 1
	top := 0.0
	if o.Title != "" {
		top = titleHeight
	}
	height := top + float64(levels)*frameHeight + 2*margin
	bw := bufio.NewWriter(w)
	id := ""
	if o.ID != "" {
		id = ` id="` + attr(o.ID) + `"`
	}
	kind := "flame"
	if t.Diff {
		kind = "flame flame-diff"
	}
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg"%s class="%s" width="100%%" viewBox="0 0 %g %g" preserveAspectRatio="xMinYMin meet" font-family="sans-serif" font-size="%d">`+"\n",
		id, kind, o.Width, height, fontSize)
	if o.Title != "" {
		fmt.Fprintf(bw, `<text x="%g" y="%d" font-size="%d">%s</text>`+"\n", float64(margin), titleHeight-8, fontSize+2, text(o.Title))
	}
	d := drawer{w: bw, t: t, o: o, scale: 0, bottom: height - margin - frameHeight}
	if t.Root.Value > 0 {
		d.scale = (o.Width - 2*margin) / t.Root.Value
	}
	d.frame(t.Root, margin, 0)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

type drawer struct {
	w      *bufio.Writer
	t      *Tree
	o      Options
	scale  float64 // SVG units per unit of CPU
	bottom float64 // the root's y
}

// frame draws n at x on its level and its children above it.
func (d drawer) frame(n *Node, x float64, level int) {
	width := n.Value * d.scale
	if width < minWidth {
		return
	}
	y := d.bottom - float64(level)*frameHeight
	fmt.Fprintf(d.w, `<g class="f" data-fn="%s"><title>%s</title><rect x="%.2f" y="%g" width="%.2f" height="%d" rx="1" fill="%s"/>`,
		attr(n.Name), text(d.tooltip(n)), x, y, width, frameHeight-1, d.colour(n))
	if label := fit(n.Name, width); label != "" {
		fmt.Fprintf(d.w, `<text x="%.2f" y="%g">%s</text>`, x+3, y+frameHeight-4, text(label))
	}
	d.w.WriteString("</g>\n")
	for _, c := range n.Children {
		d.frame(c, x, level+1)
		x += c.Value * d.scale
	}
}

// tooltip is n's name, its CPU per operation and its share of the root's; a differential
// tree's says the base's too, and the ratio.
func (d drawer) tooltip(n *Node) string {
	share := 0.0
	if d.t.Root.Value > 0 {
		share = 100 * n.Value / d.t.Root.Value
	}
	per := "/" + d.o.PerOp
	tip := fmt.Sprintf("%s\n%s%s (self %s%s), %.1f%% of the CPU", n.Name,
		FormatCPU(n.Value, d.t.Unit), per, FormatCPU(n.Self, d.t.Unit), per, share)
	if !d.t.Diff {
		return tip
	}
	change := "not in the base"
	if r := Ratio(n.Base, n.Value); !math.IsNaN(r) {
		change = fmt.Sprintf("×%.2f (%+.0f%%)", r, 100*(r-1))
	}
	return fmt.Sprintf("%s\nbase %s%s, this %s%s: %s", tip, FormatCPU(n.Base, d.t.Unit), per, FormatCPU(n.Value, d.t.Unit), per, change)
}

func (d drawer) colour(n *Node) string {
	if d.t.Diff {
		return diffColour(n.Base, n.Value)
	}
	if n.Other {
		return "rgb(190,190,190)"
	}
	h := fnv.New32a()
	h.Write([]byte(Package(n.Name)))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%140, 30+(v>>16)%50)
}

// diffColour is red for a frame whose CPU per operation grew over the base's, blue for one
// that shrank, the deeper the larger the relative change (full at a doubling or a halving);
// a frame new in other is full red.
func diffColour(base, other float64) string {
	rel := 1.0
	if base > 0 {
		rel = math.Log2(other / base)
	}
	i := min(math.Abs(rel), 1)
	if math.IsNaN(i) || i < 0.03 {
		return "rgb(235,235,235)"
	}
	k := int(235 - 190*i)
	if rel > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", k, k)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", k, k)
}

// Package is what colours a frame: a Go function's package path, a C++ function's
// namespace or class, else the whole name.
func Package(name string) string {
	if i := strings.LastIndex(name, "::"); i > 0 {
		return name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	if i := strings.IndexByte(name[slash+1:], '.'); i > 0 {
		return name[:slash+1+i]
	}
	return name
}

// fit is name cut to fit width, or "" when not even a few characters fit.
func fit(name string, width float64) string {
	n := int((width - 6) / charWidth)
	r := []rune(name)
	switch {
	case n < 3:
		return ""
	case len(r) <= n:
		return name
	}
	return string(r[:n-2]) + ".."
}

// FormatCPU writes v, CPU in unit, in the largest time unit it is at least 1 of, to three
// significant digits ("12.3µs"); a value of another unit with the unit.
func FormatCPU(v float64, unit string) string {
	if unit != UnitSeconds {
		return fmt.Sprintf("%.3g %s", v, unit)
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0s"
	case a < 1e-6:
		return fmt.Sprintf("%.3gns", v*1e9)
	case a < 1e-3:
		return fmt.Sprintf("%.3gµs", v*1e6)
	case a < 1:
		return fmt.Sprintf("%.3gms", v*1e3)
	}
	return fmt.Sprintf("%.3gs", v)
}

func text(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

func attr(s string) string { return text(s) }
