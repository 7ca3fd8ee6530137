package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"

	"github.com/enginebench/enginebench/internal/flame"
	"github.com/enginebench/enginebench/internal/report/chart"
)

//go:embed report.html.tmpl
var pageTemplate string

//go:embed report.css
var pageCSS string

// htmlTemplate is parsed once per page; it is small and a page is written once.
func htmlTemplate() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"swatch":  func(i int) template.CSS { return template.CSS("background:" + chart.Color(i)) },
		"warning": func(line string) bool { return strings.HasPrefix(line, warningPrefix) },
	}).Parse(pageTemplate)
}

// htmlPage is what the template renders: the page with every chart drawn.
type htmlPage struct {
	*Page
	CSS      template.CSS
	Sections []htmlSection
	Charts   int
	Colour   map[string]int
	// Scripts draw the interactive charts (interactive.go); empty on a page without one.
	Scripts template.HTML
	// FlameScripts search the flame graphs (internal/flame); empty on a page without one.
	FlameScripts template.HTML
	// Lines are the header lines shown; MoreLines the rest, folded (foldLines).
	Lines, MoreLines []string
}

type htmlSection struct {
	ID, Title string
	Blocks    []htmlBlock
}

type htmlBlock struct {
	Text   string
	Items  []string
	Table  *htmlTable
	Charts []template.HTML
	Flame  *htmlFlame
	Search bool
}

// htmlFlame is a flame graph drawn (SVG) with its caption and lines.
type htmlFlame struct {
	*Flame
	SVG template.HTML
}

type htmlTable struct {
	Title  string
	Header []string
	Rows   [][]htmlCell
}

type htmlCell struct {
	Text, Class string
	// Swatch is the colour index of a configuration label, or -1.
	Swatch int
	// Src is where the value was read (Source), or "".
	Src string
	// Full is the whole value of a cell whose Text abbreviates it (Table.Full), or "".
	Full string
}

// SrcAttrs are the cell's title and data-src, both its source. They are written escaped here:
// html/template would take a data-src for a URL and percent-encode the text.
func (c htmlCell) SrcAttrs() template.HTMLAttr {
	e := html.EscapeString(c.Src)
	return template.HTMLAttr(`title="` + e + `" data-src="` + e + `"`) // escaped above
}

// WriteHTML writes the page as one self-contained HTML document: the style and every chart
// (inline SVG) are in the file, so it opens from disk with no network.
func WriteHTML(w io.Writer, p *Page) error {
	t, err := htmlTemplate()
	if err != nil {
		return fmt.Errorf("report template: %w", err)
	}
	hp := htmlPage{Page: p, CSS: template.CSS(pageCSS), Colour: map[string]int{}}
	for i, c := range p.Configs {
		hp.Colour[c] = i
	}
	hp.Lines, hp.MoreLines = foldLines(p.Lines)
	for _, s := range p.Sections {
		hs := htmlSection{ID: s.ID, Title: s.Title}
		for _, b := range s.Blocks {
			hb := htmlBlock{Text: b.Text, Items: b.Items, Search: b.Search}
			if b.Flame != nil {
				svg, err := drawFlame(b.Flame)
				if err != nil {
					return fmt.Errorf("report flame graph %s: %w", b.Flame.ID, err)
				}
				hb.Flame = &htmlFlame{Flame: b.Flame, SVG: svg}
				hp.FlameScripts = flameScripts()
			}
			if b.Table != nil {
				hb.Table = hp.table(*b.Table)
			}
			for _, c := range b.Charts {
				svg, err := drawChart(c)
				if err != nil {
					return fmt.Errorf("report chart %s: %w", c.ID, err)
				}
				hb.Charts = append(hb.Charts, svg)
				hp.Charts++
				if interactive(c) {
					hp.Scripts = interactiveScripts()
				}
			}
			hs.Blocks = append(hs.Blocks, hb)
		}
		hp.Sections = append(hp.Sections, hs)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, hp); err != nil {
		return fmt.Errorf("report page: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// table turns a table into cells with their classes, and a configuration label in the first
// column into a cell with its chart colour.
func (hp htmlPage) table(t Table) *htmlTable {
	ht := &htmlTable{Title: t.Title, Header: t.Header}
	for i, row := range t.Rows {
		cells := make([]htmlCell, len(row))
		for j, text := range row {
			cells[j] = htmlCell{Text: text, Swatch: -1}
			if i < len(t.Class) && j < len(t.Class[i]) {
				cells[j].Class = t.Class[i][j]
			}
			if i < len(t.Full) && j < len(t.Full[i]) {
				cells[j].Full = t.Full[i][j]
			}
			if i < len(t.Src) && j < len(t.Src[i]) {
				cells[j].Src = t.Src[i][j].String()
			}
			if text == missing && cells[j].Class == "" {
				cells[j].Class = ClassMissing
			}
			if k, ok := hp.Colour[text]; ok && j == 0 {
				cells[j].Swatch = k
			}
		}
		ht.Rows = append(ht.Rows, cells)
	}
	return ht
}

// drawFlame draws a flame graph as an inline SVG element with its id.
func drawFlame(f *Flame) (template.HTML, error) {
	var b strings.Builder
	if err := flame.SVG(&b, f.Tree, flame.Options{ID: f.ID, PerOp: f.PerOp}); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil // drawn by flame, which escapes every name and text
}

// flameFigureCSS lays a flame graph out across the page, its notes small under it.
const flameFigureCSS = `
figure.flame { max-width: none; margin: .5em 0 1.5em; }
figure.flame figcaption { font-weight: bold; margin-bottom: .2em; }
ul.flame-notes { font-size: .85em; margin: .2em 0; }
p.flame-search input { width: 20em; }
`

// flameScripts are the style and the search of the flame graphs, once on a page that has one.
func flameScripts() template.HTML {
	// Our own files: no "</script" or "</style" in them (TestFlameAssets).
	return template.HTML("<style>" + flame.Style() + flameFigureCSS + "</style>\n<script>" + flame.Script() + "</script>\n")
}

// drawChart draws one chart as an inline SVG element with the chart's id.
func drawChart(c Chart) (template.HTML, error) {
	var svg []byte
	var err error
	switch {
	case interactive(c):
		return interactiveChart(c)
	case c.Bars != nil:
		svg, err = chart.Bar(c.Bars.Labels, c.Bars.Values, c.Bars.Colors, c.Options)
	case c.Levels != nil:
		svg, err = chart.Levels(c.Levels, c.Options)
	case c.Box != nil:
		svg, err = chart.Box(c.Box, c.Options)
	default:
		svg, err = chart.Line(c.Series, c.Options)
	}
	if err != nil {
		return "", err
	}
	s := strings.Replace(string(svg), "<svg", fmt.Sprintf(`<svg id="chart-%s" data-chart=%q`, c.ID, c.ID), 1)
	return template.HTML(s), nil // drawn by chart from our own data; its texts are escaped there
}
