package report

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/enginebench/enginebench/internal/report/browsertest"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// pageHTML makes the page of the runs in (default options) and writes its HTML, failing tb on
// an error.
func pageHTML(tb testing.TB, in ...Input) (*Page, *bytes.Buffer) {
	tb.Helper()
	p, err := NewPage(in, Options{Layouts: testLayouts()})
	if err != nil {
		tb.Fatal(err)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		tb.Fatal(err)
	}
	return p, &html
}

// rgb is a palette colour as the browser computes it: "rgb(r, g, b)".
func rgb(i int) string {
	v, _ := strconv.ParseUint(chart.Color(i)[1:], 16, 32)
	return fmt.Sprintf("rgb(%d, %d, %d)", v>>16, (v>>8)&0xff, v&0xff)
}

// expectedColours returns, for each chart of the page, the colours its data must be drawn in:
// every series with a point and every bar with a value.
func expectedColours(p *Page) map[string][]int {
	out := map[string][]int{}
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			for _, c := range b.Charts {
				cols := []int{}
				if c.Bars != nil {
					for i, v := range c.Bars.Values {
						if !math.IsNaN(v) {
							cols = append(cols, c.Bars.Colors[i])
						}
					}
				}
				cols = append(cols, boxColours(c.Box)...)
				for _, s := range c.Series {
					for _, y := range s.Y {
						if !math.IsNaN(y) {
							cols = append(cols, s.Color)
							break
						}
					}
				}
				out[c.ID] = cols
			}
		}
	}
	return out
}

// openReport writes html as a page and opens it in headless Chromium 1280 pixels wide,
// running act (nil: none) in it first. It skips the test where Chromium is missing (fails it
// under CI, which installs it), fails it when the page cannot be opened, and marks it failed
// on a console error or a network request.
func openReport(t *testing.T, html []byte, act browsertest.Act) *browsertest.Result {
	t.Helper()
	requireChromium(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, html, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := browsertest.OpenWith(ctx, path, 1280, act)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ConsoleErrors) > 0 || len(res.Requests) > 0 {
		t.Errorf("console errors %q, network requests %q", res.ConsoleErrors, res.Requests)
	}
	return res
}

// requireChromium skips the test without Chromium, and fails it on CI.
func requireChromium(t *testing.T) {
	t.Helper()
	if browsertest.Chromium() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium: CI installs Debian's chromium package (.ci/run)")
		}
		t.Skip("no Chromium installed (apt-get install chromium)")
	}
}

// keepScreenshot saves png as name.png in $ENGINEBENCH_SCREENSHOTS, when that is set.
func keepScreenshot(name string, png []byte) {
	if dir := os.Getenv("ENGINEBENCH_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
}

// TestReportInBrowser opens the report of each fixture in headless Chromium: no console
// error, no network request, every chart of the page laid out with its data drawn in each
// configuration's colour, and a full-page screenshot of sensible size. Set
// ENGINEBENCH_SCREENSHOTS to a directory to keep the screenshots.
func TestReportInBrowser(t *testing.T) {
	requireChromium(t)
	for _, name := range []string{"insert", "linkbench", "iibench", "resources", "repeat"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each page in its own browser
			p, html := pageHTML(t, loadFixture(t, name))
			var alone seriesPixels
			res := openReport(t, html.Bytes(), probeAlone(&alone))
			checkCharts(t, p, res, alone)
			if name == "insert" || name == "repeat" { // repeat: coloured by the spreads too
				checkRelativeCells(t, res)
			}
			if res.Width != 1280 || res.Height < 1000 || len(res.Screenshot) < 50_000 {
				t.Errorf("screenshot %dx%d of %d bytes", res.Width, res.Height, len(res.Screenshot))
			}
			keepScreenshot(name, res.Screenshot)
			t.Logf("%s: %d charts, page %dx%d, screenshot %d KB, HTML %d KB", name, len(res.Charts), res.Width, res.Height, len(res.Screenshot)>>10, html.Len()>>10)
		})
	}
}

// checkRelativeCells checks that the relative tables' better and worse cells are painted, each
// in its one colour (report.css): blue better, gold worse, whatever the metric's direction.
func checkRelativeCells(t *testing.T, res *browsertest.Result) {
	t.Helper()
	for class, want := range map[string]string{ClassBetter: "rgb(198, 220, 247)", ClassWorse: "rgb(247, 225, 161)"} {
		got := res.CellBackgrounds[class]
		if len(got) != 1 || got[want] == 0 {
			t.Errorf("cells of class %q painted %v, want all in %s", class, got, want)
		}
	}
}

// TestOOMWarningInBrowser checks that a configuration whose group had processes OOM-killed has
// its warning shown in the header of the page, in red and bold, and that only it has one.
func TestOOMWarningInBrowser(t *testing.T) {
	in := loadFixture(t, "insert")
	in.Run.Configs[2].Memory.OOMKills = 3 // pebble
	_, html := pageHTML(t, in)
	res := openReport(t, html.Bytes(), nil)
	if len(res.Warnings) != 1 {
		t.Fatalf("warnings %+v, want pebble's only", res.Warnings)
	}
	w := res.Warnings[0]
	if !strings.HasPrefix(w.Text, "WARNING: pebble: the kernel's OOM killer killed 3 processes") ||
		w.Color != "rgb(179, 38, 30)" || w.Weight != "700" || w.Width == 0 || w.Height == 0 {
		t.Errorf("warning %+v: want pebble's 3 OOM kills, shown in red (rgb(179, 38, 30)) and bold", w)
	}
}

// checkCharts checks the charts the browser laid out against the page's: the same charts, each
// of sensible size, its texts in gonum's font with the page's fallbacks, and its data drawn in
// each configuration's colour (on canvas, each series shown alone: alone).
func checkCharts(t *testing.T, p *Page, res *browsertest.Result, alone seriesPixels) {
	t.Helper()
	want := expectedColours(p)
	if len(res.Charts) != len(want) || len(want) == 0 {
		t.Errorf("%d charts in the page, %d in the report", len(res.Charts), len(want))
	}
	for _, c := range res.Charts {
		cols, ok := want[c.ID]
		if !ok {
			t.Errorf("chart %q is not one of the report's", c.ID)
			continue
		}
		if c.Width < 200 || c.Height < 100 {
			t.Errorf("chart %s laid out at %.0fx%.0f", c.ID, c.Width, c.Height)
		}
		// The texts name gonum's typeface; the page gives it fallbacks for readers without it.
		for f := range c.Fonts {
			if !strings.HasPrefix(f, `"Liberation Sans", Arial`) || !strings.HasSuffix(f, "sans-serif") {
				t.Errorf("chart %s: texts in font-family %s, without the fallbacks", c.ID, f)
			}
		}
		if len(c.Fonts) == 0 {
			t.Errorf("chart %s: no text", c.ID)
		}
		for _, i := range cols {
			name := "palette " + strconv.Itoa(i) // a mark's colour (the history's), no configuration's
			if i < len(p.Configs) {
				name = p.Configs[i]
			}
			if !drawnInColour(c, alone, name, i) {
				t.Errorf("chart %s: nothing drawn in %s's colour %s (colours %v)", c.ID, name, rgb(i), c.Colors)
			}
		}
	}
}

// longRun is an Insert Benchmark run of three configurations whose every step lasted secs
// seconds, with every interval recorded; the second configuration stalls (no inserts) for ten
// seconds in the middle of each step.
func longRun(secs int) *result.Run {
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	r := &result.Run{RunID: "long", Status: result.StatusOK, Workload: result.Workload{Name: "insert", Scale: "iobound"}}
	steps := []string{"l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"}
	for ci, name := range []string{"innodb", "myrocks", "postgres"} {
		c := result.Config{Name: name, Engine: name, Status: result.StatusOK}
		for si, sn := range steps {
			primary, ops := "insert", []string{"insert"}
			switch {
			case sn == "l.x":
				primary, ops = "index", []string{"index"}
			case sn[0] == 'q':
				primary, ops = "query", []string{"query", "insert", "delete"}
			case sn != "l.i0":
				ops = []string{"insert", "delete"}
			}
			start := t0.Add(time.Duration(si*secs) * time.Second)
			s := result.Step{Name: sn, Status: result.StatusOK, StartedAt: start, Seconds: float64(secs), Primary: primary, Ops: map[string]*result.Op{}}
			for _, op := range ops {
				s.Ops[op] = &result.Op{Count: int64(secs * 1000), Units: int64(secs * 1000), PerSec: 1000 * float64(ci+1),
					Latency: result.Latency{P50: 100, P99: 900, Max: 5e4, Buckets: []float64{0.5, 0.9, 0.99, 1, 1, 1, 1, 1, 1}}}
			}
			s.Intervals = &result.Series{}
			for i := 1; i <= secs; i++ {
				iv := s.Intervals.Append(i, start.Add(time.Duration(i)*time.Second))
				for _, op := range ops {
					units := int64(1000*(ci+1) + (i*7919)%300)
					o := result.IntervalOp{Count: units, Units: units, P50: 100, P99: 800 + float64(i%50), Max: 4e4 + float64(i%977)}
					if ci == 1 && i > secs/2 && i <= secs/2+10 {
						o = result.IntervalOp{} // the stall
					}
					s.Intervals.SetOp(iv, op, o)
				}
			}
			c.Steps = append(c.Steps, s)
		}
		r.Configs = append(r.Configs, c)
	}
	return r
}

// TestLongRunReportSize checks that the report of a 3-configuration run with 30-minute steps
// stays under 5 MB, and that a ten-second stall still shows in the downsampled lines.
func TestLongRunReportSize(t *testing.T) {
	r := longRun(1800)
	p, html := pageHTML(t, Input{Dir: "long", Run: r})
	if html.Len() >= 5<<20 {
		t.Errorf("report of a 3-configuration run with 30-minute steps is %d bytes, want under 5 MB", html.Len())
	}
	t.Logf("%d charts, %d KB", len(expectedColours(p)), html.Len()>>10)
	for _, s := range stepSeries(r, "l.i1", "insert", ivRate) {
		if len(s.X) > maxPoints {
			t.Errorf("%s: %d points, want at most %d", s.Name, len(s.X), maxPoints)
		}
		low := math.Inf(1)
		for _, y := range s.Y {
			low = math.Min(low, y)
		}
		if stalled := s.Name == "myrocks"; stalled != (low == 0) {
			t.Errorf("%s: lowest rate %v after downsampling; the stall must show as 0 and only there", s.Name, low)
		}
	}
}

// BenchmarkLongRunReport writes the report of a 3-configuration Insert Benchmark run with
// 30-minute steps: the cost of `enginebench report` (and of the end of `run`) on a long run.
func BenchmarkLongRunReport(b *testing.B) {
	r := longRun(1800)
	var n int
	for b.Loop() {
		_, html := pageHTML(b, Input{Dir: "long", Run: r})
		n = html.Len()
	}
	b.ReportMetric(float64(n), "html-bytes")
}

// TestLongRunReportSizeThirtyConfigs: with 30 configurations of 30-minute steps, the lines of
// a chart share its points (linePoints), so the charts take about the room of three
// configurations' (1.4 MB of data), and the ten-second stall of the configurations that have
// one still shows. The tables grow with their rows, ten times those of three configurations,
// each cell with its source (7 MB): the page stays under 10 MB.
func TestLongRunReportSizeThirtyConfigs(t *testing.T) {
	r := longRun(1800)
	three := r.Configs
	r.Configs = nil
	for i := range 30 {
		c := three[i%3]
		c.Name = fmt.Sprintf("%s-%02d", c.Name, i)
		r.Configs = append(r.Configs, c)
	}
	_, html := pageHTML(t, Input{Dir: "long", Run: r})
	if html.Len() >= 10<<20 {
		t.Errorf("report of a 30-configuration run with 30-minute steps is %d bytes, want under 10 MB", html.Len())
	}
	t.Logf("%d KB", html.Len()>>10)
	for _, s := range stepSeries(r, "l.i1", "insert", ivRate) {
		if len(s.X) > linePoints(30) {
			t.Errorf("%s: %d points, want at most %d", s.Name, len(s.X), linePoints(30))
		}
		low := math.Inf(1)
		for _, y := range s.Y {
			low = math.Min(low, y)
		}
		if stalled := strings.HasPrefix(s.Name, "myrocks"); stalled != (low == 0) {
			t.Errorf("%s: lowest rate %v after downsampling; the stall must show as 0 and only there", s.Name, low)
		}
	}
}
