package report

import (
	"html"
	"regexp"
	"slices"
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
	pages["verdicts"] = newPage(t, Options{}, withVerdicts(t))
	pages["servers"] = newPage(t, Options{}, withServers(t))
	pages["verdicts of two runs"] = newPage(t, Options{}, withVerdicts(t), withVerdicts(t))
	return pages
}

// newPage makes the page of in with o, failing t on an error.
func newPage(t *testing.T, o Options, in ...Input) *Page {
	t.Helper()
	p, err := NewPage(in, withLayouts(o))
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

// cellSource returns the source text of the cell of the table titled title in the row whose
// first cell is row and the column headed col.
func cellSource(t *testing.T, p *Page, title, row, col string) string {
	t.Helper()
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			if tb := b.Table; tb != nil && tb.Title == title {
				j := slices.Index(tb.Header, col)
				for i, r := range tb.Rows {
					if r[0] == row && j >= 0 && i < len(tb.Src) && j < len(tb.Src[i]) {
						return tb.Src[i][j].String()
					}
				}
			}
		}
	}
	t.Fatalf("no cell %s/%s in table %q", row, col, title)
	return ""
}

// TestSourcesNameRunsAndRepeats checks what a source says: the run directory of a
// configuration of a combined report, the repeats behind a median, the base a relative cell
// divides by, and the field.
func TestSourcesNameRunsAndRepeats(t *testing.T) {
	combined := newPage(t, Options{}, loadFixture(t, "insert"), loadFixture(t, "resources"))
	for _, c := range []struct {
		p                     *Page
		title, row, col, want string
	}{
		{combined, "Throughput", "resources/pebble", "l.i1 ips", "testdata/resources/run.json: config pebble, step l.i1, ops.insert.per_sec"},
		{combined, "Efficiency: qr100", "insert/sqlite-full", "cpupq", "testdata/insert/run.json: config sqlite-full, step qr100, efficiency.cpupq"},
		{combined, "Throughput relative to insert/sqlite-normal", "resources/sqlite", "qp100 qps",
			"testdata/resources/run.json: config sqlite, step qp100, ops.query.per_sec divided by testdata/insert/run.json: config sqlite-normal, step qp100, ops.query.per_sec"},
		{combined, "At a glance (relative to insert/sqlite-normal)", "insert/pebble", "best step",
			"testdata/insert/run.json: config pebble, step l.i1, ops.insert.per_sec divided by testdata/insert/run.json: config sqlite-normal, step l.i1, ops.insert.per_sec"},
		{newPage(t, Options{}, loadFixture(t, "repeat")), "Throughput", "pebble", "l.x ips",
			"testdata/repeat/run.json: config pebble#1, pebble#2, pebble#3 (median of the repeats), step l.x, ops.index.per_sec"},
		{newPage(t, Options{}, loadFixture(t, "linkbench")), "Latency per operation", "pebble", "p99",
			"testdata/linkbench/run.json: config pebble, step run.1, ops.requests.latency_us.p99"},
	} {
		if got := cellSource(t, c.p, c.title, c.row, c.col); got != c.want {
			t.Errorf("%s %s %s: source\n%q, want\n%q", c.title, c.row, c.col, got, c.want)
		}
	}
}

// tdRE matches a table cell of the HTML page: its attributes and its text.
var tdRE = regexp.MustCompile(`<td([^>]*)>(?:<span class="sw"[^>]*></span>)?([^<]*)</td>`)

// TestEveryNumberHasASourceInHTML checks the HTML page of every fixture: each cell that shows a
// number, but a row's first, has a title and a data-src, the same text, naming its file.
func TestEveryNumberHasASourceInHTML(t *testing.T) {
	for name, p := range fixturePages(t) {
		var b strings.Builder
		if err := WriteHTML(&b, p); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, row := range strings.Split(b.String(), "<tr>")[1:] {
			for j, m := range tdRE.FindAllStringSubmatch(row, -1) {
				attrs, text := m[1], m[2]
				if j == 0 || !hasDigit(text) {
					continue
				}
				checked++
				title, src := attr(attrs, "title"), attr(attrs, "data-src")
				if title == "" || title != src || !strings.Contains(title, "run.json: ") {
					t.Errorf("%s: cell %q: title %q, data-src %q", name, text, title, src)
				}
			}
		}
		if checked < 50 {
			t.Errorf("%s: only %d cells with a number found in the HTML", name, checked)
		}
	}
}

// attr returns the value of the attribute name in attrs, unescaped, or "".
func attr(attrs, name string) string {
	_, v, ok := strings.Cut(attrs, " "+name+`="`)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, `"`)
	return html.UnescapeString(v)
}
