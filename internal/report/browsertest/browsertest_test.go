package browsertest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// needChromium skips the test where no Chromium is installed, except in CI, which installs it.
func needChromium(t *testing.T) {
	t.Helper()
	if Chromium() != "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium: CI installs Debian's chromium package (.ci/run)")
	}
	t.Skip("no Chromium installed (apt-get install chromium)")
}

// open writes body as an HTML page and opens it.
func open(t *testing.T, body string) *Result {
	t.Helper()
	needChromium(t)
	path := filepath.Join(t.TempDir(), "page.html")
	page := "<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title></head><body>" + body + "</body></html>"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Open(ctx, path, 800)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCleanPage(t *testing.T) {
	res := open(t, `<div style="height:1500px">
<svg class="chart" data-chart="a" viewBox="0 0 100 50" width="200" height="100" xmlns="http://www.w3.org/2000/svg">
  <path d="M0,0L100,50" style="fill:none;stroke:#4e79a7;stroke-width:1"/>
  <rect x="10" y="10" width="20" height="20" style="fill:#f28e2b"/>
  <text x="40" y="20" style="font-family:Foo Sans">x</text><text x="60" y="20" style="font-family:Foo Sans">y</text>
</svg>
<svg class="chart" id="b" viewBox="0 0 100 50" width="200" height="100" xmlns="http://www.w3.org/2000/svg">
  <rect x="10" y="10" width="20" height="20" style="fill:#f28e2b"/>
</svg></div>`)
	if len(res.ConsoleErrors) > 0 || len(res.Requests) > 0 {
		t.Errorf("errors %q, requests %q", res.ConsoleErrors, res.Requests)
	}
	if len(res.Charts) != 2 || res.Charts[0].ID != "a" || res.Charts[1].ID != "b" {
		t.Fatalf("charts %+v", res.Charts)
	}
	a := res.Charts[0]
	if a.Width != 200 || a.Height != 100 || a.Marks != 2 {
		t.Errorf("chart a: %+v, want 200x100 with 2 marks", a)
	}
	if a.Colors["rgb(78, 121, 167)"] != 1 || a.Colors["rgb(242, 142, 43)"] != 1 {
		t.Errorf("chart a colours %v", a.Colors)
	}
	if len(a.Fonts) != 1 || a.Fonts[`"Foo Sans"`] != 2 {
		t.Errorf("chart a fonts %v, want its two texts in \"Foo Sans\"", a.Fonts)
	}
	if res.Charts[1].Marks != 1 {
		t.Errorf("chart b: %+v", res.Charts[1])
	}
	// The screenshot is of the whole page, not only the window.
	if res.Width != 800 || res.Height < 1500 {
		t.Errorf("screenshot %dx%d, want 800 wide and the page's 1500+ high", res.Width, res.Height)
	}
}

func TestConsoleErrors(t *testing.T) {
	res := open(t, `<script>console.error("boom", 42); console.log("fine")</script>`)
	if len(res.ConsoleErrors) != 1 || !strings.Contains(res.ConsoleErrors[0], "boom 42") {
		t.Errorf("console errors %q, want the one with boom 42", res.ConsoleErrors)
	}
	res = open(t, `<script>throw new Error("kaput")</script>`)
	if len(res.ConsoleErrors) != 1 || !strings.Contains(res.ConsoleErrors[0], "kaput") {
		t.Errorf("console errors %q, want the uncaught kaput", res.ConsoleErrors)
	}
}

func TestNetworkRequestsRecordedOffline(t *testing.T) {
	res := open(t, `<img src="http://example.com/x.png"><script src="https://cdn.example.com/lib.js"></script><p id=done>ok</p>`)
	for _, want := range []string{"http://example.com/x.png", "https://cdn.example.com/lib.js"} {
		found := false
		for _, u := range res.Requests {
			found = found || u == want
		}
		if !found {
			t.Errorf("request %s not recorded: %q", want, res.Requests)
		}
	}
	if len(res.ConsoleErrors) == 0 {
		t.Error("the failed loads are not reported")
	}
}

func TestUndrawnCharts(t *testing.T) {
	res := open(t, `
<svg class="chart" data-chart="empty" width="100" height="50"></svg>
<svg class="chart" data-chart="nod" width="100" height="50"><path d="" style="stroke:#000"/><path d="M0,0L10,10" style="fill:none;stroke:none"/></svg>
<svg class="chart" data-chart="hidden" width="100" height="50" style="display:none"><rect width="10" height="10" style="fill:#000"/></svg>
<svg class="chart" data-chart="faint" width="100" height="50">
  <rect width="10" height="0" style="fill:#000;stroke:#000"/>
  <rect width="10" height="10" style="fill:#000;fill-opacity:0"/>
  <rect width="10" height="10" style="fill:rgba(0,0,0,0)"/>
  <circle cx="5" cy="5" r="0" style="fill:#000"/>
  <line x1="0" y1="0" x2="10" y2="10" style="fill:#000"/>
  <polyline points="0,0 10,10" style="fill:none;stroke:#000;opacity:0"/>
  <path d="M0,0L10,10" style="fill:none;stroke:#000;visibility:hidden"/>
</svg>`)
	if len(res.Charts) != 4 {
		t.Fatalf("charts %+v", res.Charts)
	}
	for _, c := range res.Charts {
		if c.Marks != 0 && c.Width*c.Height != 0 {
			t.Errorf("chart %s counted as drawn: %+v", c.ID, c)
		}
	}
	if c := res.Charts[2]; c.Width != 0 || c.Height != 0 {
		t.Errorf("hidden chart has a size: %+v", c)
	}
	// The same chart with one mark of each kind drawn: a horizontal line (no height), a bar,
	// a circle and a half-transparent polyline.
	res = open(t, `<svg class="chart" data-chart="drawn" width="100" height="50">
  <path d="M0,10H90" style="fill:none;stroke:#000"/>
  <rect width="10" height="10" style="fill:#000"/>
  <circle cx="5" cy="5" r="3" style="fill:#000"/>
  <polyline points="0,0 10,10" style="fill:none;stroke:rgba(0,0,0,0.5)"/>
</svg>`)
	if len(res.Charts) != 1 || res.Charts[0].Marks != 4 {
		t.Errorf("charts %+v, want one with 4 marks", res.Charts)
	}
}

func TestWarnings(t *testing.T) {
	res := open(t, `<style>.warning { color: #b3261e; font-weight: bold; } .gone { display: none; }</style>
<ul><li>fine</li><li class="warning">WARNING: look</li><li class="warning gone">hidden</li></ul>`)
	if len(res.Warnings) != 2 {
		t.Fatalf("warnings %+v, want two", res.Warnings)
	}
	w := res.Warnings[0]
	if w.Text != "WARNING: look" || w.Color != "rgb(179, 38, 30)" || w.Weight != "700" || w.Width == 0 || w.Height == 0 {
		t.Errorf("warning %+v, want shown in rgb(179, 38, 30), weight 700", w)
	}
	if h := res.Warnings[1]; h.Width != 0 || h.Height != 0 {
		t.Errorf("hidden warning has a box: %+v", h)
	}
}

// TestOpenWithActs: what the act does in the page (a click that shows a warning) is in what
// Open measures, and the act's own probe reads the page; an act's error ends the visit.
func TestOpenWithActs(t *testing.T) {
	needChromium(t)
	path := filepath.Join(t.TempDir(), "page.html")
	page := `<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title></head><body>
<button id=b onclick="document.getElementById('w').className='warning'">show</button>
<p id=w style="color:red">hidden until clicked</p></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var before string
	res, err := OpenWith(ctx, path, 800, func(ctx context.Context) error {
		var err error
		if before, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('w').className`)); err != nil {
			return err
		}
		return chromedp.Do(ctx, chromedp.Click("#b"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if before != "" || len(res.Warnings) != 1 || res.Warnings[0].Text != "hidden until clicked" {
		t.Errorf("class before the click %q; warnings after it %+v", before, res.Warnings)
	}
	failing := errors.New("the act failed")
	if _, err := OpenWith(ctx, path, 800, func(context.Context) error { return failing }); !errors.Is(err, failing) {
		t.Errorf("an act's error: OpenWith returned %v", err)
	}
}

// TestCanvasChart checks the measure of a chart drawn on canvas: its box, its texts' fonts
// outside the canvas, and its pixels counted by colour, each colour of fewer than 3 pixels left
// out, with ColorCount matching within a tolerance; a canvas drawn in a frame after the load is
// measured drawn.
func TestCanvasChart(t *testing.T) {
	res := open(t, `<div class="uchart" data-chart="c" style="width:300px">
<div style="font-family:'Foo Sans'">title</div><canvas width="100" height="50"></canvas><script type="application/json">{}</script></div>
<script>
requestAnimationFrame(() => {
  const x = document.querySelector("canvas").getContext("2d");
  x.fillStyle = "#4e79a7"; x.fillRect(0, 0, 10, 10);  // 100 pixels
  x.fillStyle = "#f28e2b"; x.fillRect(20, 0, 2, 1);   // 2 pixels: left out
  x.fillStyle = "#ffffff"; x.fillRect(30, 0, 10, 10); // white: not a mark
});
</script>`)
	if len(res.Charts) != 1 {
		t.Fatalf("charts %+v", res.Charts)
	}
	c := res.Charts[0]
	if c.ID != "c" || !c.Canvas || c.Width != 300 || c.Marks != 102 {
		t.Errorf("chart %+v: want c, on canvas, 300 wide, 102 painted pixels", c)
	}
	if len(c.Colors) != 1 || c.Colors["rgb(78, 121, 167)"] != 100 {
		t.Errorf("colours %v, want the 100 blue pixels only", c.Colors)
	}
	if c.ColorCount("#4D7AA5", 2) != 100 || c.ColorCount("#4D7AA5", 1) != 0 || c.ColorCount("bad", 3) != 0 {
		t.Errorf("ColorCount: %d within 2, %d within 1", c.ColorCount("#4D7AA5", 2), c.ColorCount("#4D7AA5", 1))
	}
	if len(c.Fonts) != 1 || c.Fonts[`"Foo Sans"`] != 1 {
		t.Errorf("fonts %v, want the title's \"Foo Sans\" (not the script's)", c.Fonts)
	}
}
