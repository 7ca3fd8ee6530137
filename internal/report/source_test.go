package report

import (
	"strings"
	"testing"
	"unicode"
)

// fixturePages are the report pages of every fixture, alone, combined and as a ratio.
func fixturePages(t *testing.T) map[string]*Page {
	t.Helper()
	pages := map[string]*Page{}
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		pages[name] = newPage(t, Options{}, loadFixture(t, name))
	}
	pages["insert+resources"] = newPage(t, Options{}, loadFixture(t, "insert"), loadFixture(t, "resources"))
	pages["ratio"] = newPage(t, Options{Ratio: true}, loadFixture(t, "insert"), loadFixture(t, "resources"))
	pages["thirty"] = newPage(t, Options{}, thirtyConfigs(t))
	return pages
}

// newPage makes the page of in with o, failing t on an error.
func newPage(t *testing.T, o Options, in ...Input) *Page {
	t.Helper()
	p, err := NewPage(in, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hasDigit reports whether s shows a number.
func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// TestEveryNumberHasASource walks every table of every fixture page: each cell that shows a
// number, but in the first column (the row's label), must say where it came from, a file of a
// run directory named in the page's runs.
func TestEveryNumberHasASource(t *testing.T) {
	for name, p := range fixturePages(t) {
		for _, s := range p.Sections {
			for _, b := range s.Blocks {
				tb := b.Table
				if tb == nil {
					continue
				}
				for i, row := range tb.Rows {
					for j, text := range row {
						if j == 0 || !hasDigit(text) {
							continue
						}
						src := ""
						if i < len(tb.Src) && j < len(tb.Src[i]) {
							src = tb.Src[i][j].String()
						}
						if !strings.Contains(src, "testdata/") || !strings.Contains(src, ".json: ") && !strings.Contains(src, ".csv: ") {
							t.Errorf("%s: table %q row %d column %q: %q has source %q", name, tb.Title, i, tb.Header[j], text, src)
						}
					}
				}
			}
		}
	}
}
