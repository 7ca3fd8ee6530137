// Package browsertest opens an HTML file in headless Chromium and reports what a user would see
// go wrong: console errors, uncaught exceptions, network requests, charts not drawn, warnings not
// shown as such; and takes a screenshot. The report's tests use it.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the path of the Chromium binary ($CHROMIUM, else chromium, chromium-browser
// or google-chrome on PATH), or "" when none is installed.
func Chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
		return ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// Result is what the browser saw.
type Result struct {
	// ConsoleErrors are console.error and console.assert messages, uncaught exceptions, log
	// entries of level error and failed loads, one line each.
	ConsoleErrors []string
	// Requests are the URLs the page requested other than the file itself (data: URLs left out).
	Requests []string
	// Charts are the elements matching ChartSelector or CanvasChartSelector, in document order.
	Charts []Chart
	// Warnings are the elements matching WarningSelector, in document order.
	Warnings []Warning
	// CellBackgrounds maps each class of the page's table cells (td) to the computed
	// background colours of the cells that have it, as "rgb(r, g, b)", with their counts.
	CellBackgrounds map[string]map[string]int
	// Screenshot is a PNG of the whole page; Width and Height are its size in pixels.
	Screenshot    []byte
	Width, Height int
}

// Chart is one chart element as the browser laid it out.
type Chart struct {
	ID            string  // its data-chart attribute, else its id
	Width, Height float64 // its rendered box in CSS pixels
	// Canvas is set for a chart drawn on canvas (CanvasChartSelector): its Marks and Colors
	// count pixels.
	Canvas bool
	// Marks counts the drawn marks in it: path, polyline, line, rect and circle elements with
	// a geometry and a visible stroke or fill; in a canvas chart, its painted pixels (opaque,
	// not white).
	Marks int
	// Colors counts the marks by their computed stroke or fill colour, as "rgb(r, g, b)"; in
	// a canvas chart, its opaque pixels by colour, leaving out colours of fewer than 3 pixels
	// (the shades of anti-aliased edges).
	Colors map[string]int
	// Fonts counts the text elements by their computed font-family, as the style says it; in a
	// canvas chart, its elements with text of their own (title, legend) outside the canvas.
	Fonts map[string]int
}

// ChartSelector selects the SVG chart elements of a page.
const ChartSelector = "svg.chart"

// CanvasChartSelector selects the chart elements of a page that are drawn on canvas: elements
// holding one or more canvas elements, measured by their pixels.
const CanvasChartSelector = ".uchart"

// WarningSelector selects the warnings of a page.
const WarningSelector = ".warning"

// Warning is one warning element as the browser styled it.
type Warning struct {
	Text string
	// Color is its computed text colour, as "rgb(r, g, b)"; Weight its computed font-weight
	// ("700" is bold).
	Color, Weight string
	// Width and Height are its rendered box in CSS pixels: 0 when it is not shown.
	Width, Height float64
}

// measureWarnings returns every warning's text, colour, weight and box.
const measureWarnings = `Array.from(document.querySelectorAll(` + "`" + WarningSelector + "`" + `)).map(el => {
  const cs = getComputedStyle(el), r = el.getBoundingClientRect();
  return {text: el.textContent, color: cs.color, weight: cs.fontWeight, width: r.width, height: r.height};
})`

// measureCells returns, for each class of the tables' cells, their computed background
// colours and how many cells have each.
const measureCells = `(() => {
  const out = {};
  for (const td of document.querySelectorAll("td[class]")) {
    const bg = getComputedStyle(td).backgroundColor;
    for (const c of td.classList) {
      out[c] = out[c] || {};
      out[c][bg] = (out[c][bg] || 0) + 1;
    }
  }
  return out;
})()`

// warningJSON is a warning as the script returns it.
type warningJSON struct {
	Text   string  `json:"text"`
	Color  string  `json:"color"`
	Weight string  `json:"weight"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// measureCharts measures every chart after the page has loaded and drawn two more frames (a
// canvas chart draws in a frame): its box, its marks and its texts' fonts. A mark counts when
// it has a geometry (a path, polyline or line of some length; a rect or circle of some area)
// and a painted stroke or fill (not "none", not transparent, opacity not 0; a line has no
// fill). A canvas chart's marks are its pixels (measureCanvas).
const measureCharts = `(async () => {
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const measureCanvas = ` + measureCanvas + `;
  const painted = (c, opacity) => !!c && c !== "none" && c !== "transparent" &&
    !/^rgba\(.*,\s*0\)$/.test(c) && parseFloat(opacity) !== 0;
  const shaped = el => {
    try {
      if (el.tagName === "rect" || el.tagName === "circle") {
        const b = el.getBBox();
        return b.width > 0 && b.height > 0;
      }
      return el.getTotalLength() > 0;
    } catch (e) {
      return false;
    }
  };
  return Array.from(document.querySelectorAll(` + "`" + ChartSelector + ", " + CanvasChartSelector + "`" + `)).map(svg => {
    if (!(svg instanceof SVGElement)) return measureCanvas(svg);
    const r = svg.getBoundingClientRect();
    const out = {id: svg.dataset.chart || svg.id || "", width: r.width, height: r.height, marks: 0, colors: {}, fonts: {}};
    for (const el of svg.querySelectorAll("text")) {
      const f = getComputedStyle(el).fontFamily;
      out.fonts[f] = (out.fonts[f] || 0) + 1;
    }
    for (const el of svg.querySelectorAll("path, polyline, line, rect, circle")) {
      const cs = getComputedStyle(el);
      if (cs.display === "none" || cs.visibility !== "visible" || parseFloat(cs.opacity) === 0 || !shaped(el)) continue;
      const stroke = painted(cs.stroke, cs.strokeOpacity) && parseFloat(cs.strokeWidth) > 0 ? cs.stroke : "";
      const fill = el.tagName !== "line" && painted(cs.fill, cs.fillOpacity) ? cs.fill : "";
      if (!stroke && !fill) continue;
      out.marks++;
      for (const c of new Set([stroke, fill])) {
        if (c) out.colors[c] = (out.colors[c] || 0) + 1;
      }
    }
    return out;
  });
})()`

// measureCanvas measures a chart drawn on canvas: its box, the fonts of its elements that hold
// text of their own, and the pixels of its canvases by colour (opaque, not white; a colour
// counted when at least 3 pixels have it).
const measureCanvas = `el => {
  const r = el.getBoundingClientRect();
  const out = {id: el.dataset.chart || el.id || "", width: r.width, height: r.height, canvas: true, marks: 0, colors: {}, fonts: {}};
  for (const t of el.querySelectorAll("*")) {
    if (t.tagName === "SCRIPT" || t.tagName === "NOSCRIPT" || t.tagName === "STYLE") continue;
    if (!Array.from(t.childNodes).some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
    const f = getComputedStyle(t).fontFamily;
    out.fonts[f] = (out.fonts[f] || 0) + 1;
  }
  const counts = {};
  for (const cv of el.querySelectorAll("canvas")) {
    if (!cv.width || !cv.height) continue;
    const px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    for (let i = 0; i < px.length; i += 4) {
      if (px[i + 3] !== 255 || (px[i] === 255 && px[i + 1] === 255 && px[i + 2] === 255)) continue;
      out.marks++;
      const c = "rgb(" + px[i] + ", " + px[i + 1] + ", " + px[i + 2] + ")";
      counts[c] = (counts[c] || 0) + 1;
    }
  }
  for (const c in counts) {
    if (counts[c] >= 3) out.colors[c] = counts[c];
  }
  return out;
}`

// chartJSON is a chart as the script returns it.
type chartJSON struct {
	ID     string         `json:"id"`
	Width  float64        `json:"width"`
	Height float64        `json:"height"`
	Canvas bool           `json:"canvas"`
	Marks  int            `json:"marks"`
	Colors map[string]int `json:"colors"`
	Fonts  map[string]int `json:"fonts"`
}

// Open loads the file at path in a fresh headless Chromium with the network cut off, waits
// until the page has loaded, and returns what it saw. The window is width pixels wide (0:
// 1280). The browser is always stopped before Open returns; ctx bounds the whole visit.
func Open(ctx context.Context, path string, width int) (*Result, error) {
	return OpenWith(ctx, path, width, nil)
}

// Act is what a test does in the loaded page before it is measured: chromedp actions run on
// ctx (mouse events, key presses, its own chromedp.Evaluate probes). An error ends the visit.
type Act func(ctx context.Context) error

// OpenWith is Open with act (nil: none) run in the page once it has loaded, before the page is
// measured and its screenshot taken, so that both show the state act left.
func OpenWith(ctx context.Context, path string, width int, act Act) (*Result, error) {
	bin := Chromium()
	if bin == "" {
		return nil, fmt.Errorf("browsertest: no Chromium installed (apt-get install chromium, or set $CHROMIUM)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	if width <= 0 {
		width = 1280
	}
	profile, err := os.MkdirTemp("", "browsertest-profile-*")
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	defer os.RemoveAll(profile)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, allocatorOptions(bin, profile, width)...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	page := (&url.URL{Scheme: "file", Path: abs}).String()
	rec := &recorder{page: page, urls: map[network.RequestID]string{}}
	if err := chromedp.Listen(bctx, rec.listen); err != nil {
		return nil, fmt.Errorf("browsertest: start %s: %w", bin, err)
	}
	return visit(bctx, page, rec, act)
}

// allocatorOptions are the options of a headless Chromium at bin with its own profile, a
// window width pixels wide and no network.
func allocatorOptions(bin, profile string, width int) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, 900),
		// No network: names resolve nowhere and any proxy connection is refused, so a request
		// fails at once (and is recorded) instead of hanging the page's load.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ProxyServer("127.0.0.1:9"),
	)
}

// visit loads page in the browser of bctx, runs act, measures its charts and warnings and
// takes the screenshot, and returns them with what rec heard meanwhile.
func visit(bctx context.Context, page string, rec *recorder, act Act) (*Result, error) {
	if err := chromedp.Do(bctx, chromedp.Navigate(page)); err != nil {
		return nil, fmt.Errorf("browsertest: load %s: %w", page, err)
	}
	if act != nil {
		if err := act(bctx); err != nil {
			return nil, fmt.Errorf("browsertest: in %s: %w", page, err)
		}
	}
	charts, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartJSON](measureCharts, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("browsertest: measure the charts of %s: %w", page, err)
	}
	warnings, err := chromedp.Run(bctx, chromedp.Evaluate[[]warningJSON](measureWarnings))
	if err != nil {
		return nil, fmt.Errorf("browsertest: measure the warnings of %s: %w", page, err)
	}
	cells, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]map[string]int](measureCells))
	if err != nil {
		return nil, fmt.Errorf("browsertest: measure the cells of %s: %w", page, err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil && strings.Contains(err.Error(), "too large") {
		shot, err = chromedp.Run(bctx, topScreenshot(maxShotHeight))
	}
	if err != nil {
		return nil, fmt.Errorf("browsertest: screenshot of %s: %w", page, err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		return nil, fmt.Errorf("browsertest: screenshot of %s: %w", page, err)
	}
	out := rec.result()
	for _, c := range charts {
		out.Charts = append(out.Charts, Chart(c))
	}
	for _, w := range warnings {
		out.Warnings = append(out.Warnings, Warning(w))
	}
	out.CellBackgrounds = cells
	out.Screenshot, out.Width, out.Height = shot, cfg.Width, cfg.Height
	return out, nil
}

// recorder collects the console errors and requests of the page's visit; the browser's events
// arrive on chromedp's goroutines.
type recorder struct {
	page string // the page's own URL, not a request to report

	mu       sync.Mutex
	errors   []string
	requests []string
	urls     map[network.RequestID]string // every request's URL, to name a failed load
}

// listen records one event of the browser.
func (r *recorder) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			r.errors = append(r.errors, "console."+string(e.Type)+": "+argsText(e.Args))
		}
	case *runtime.EventExceptionThrown:
		r.errors = append(r.errors, "uncaught exception: "+exceptionText(e.ExceptionDetails))
	case *log.EventEntryAdded:
		if e.Entry != nil && e.Entry.Level == log.EntryLevelError {
			line := "log: " + e.Entry.Text
			if e.Entry.URL != "" {
				line += " (" + e.Entry.URL + ")"
			}
			r.errors = append(r.errors, line)
		}
	case *network.EventRequestWillBeSent:
		if e.Request == nil {
			return
		}
		r.urls[e.RequestID] = e.Request.URL
		if u := e.Request.URL; u != r.page && !strings.HasPrefix(u, "data:") {
			r.requests = append(r.requests, u)
		}
	case *network.EventLoadingFailed:
		r.errors = append(r.errors, "failed load: "+r.urls[e.RequestID]+": "+e.ErrorText)
	}
}

// result is a Result with a copy of the errors and requests recorded so far.
func (r *recorder) result() *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &Result{
		ConsoleErrors: append([]string(nil), r.errors...),
		Requests:      append([]string(nil), r.requests...),
	}
}

// argsText joins a console call's arguments as the console shows them.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a == nil:
		case len(a.Value) > 0:
			s := string(a.Value)
			if len(s) >= 2 && s[0] == '"' {
				s = strings.Trim(s, `"`)
			}
			parts = append(parts, s)
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// exceptionText is an uncaught exception's message and where it was thrown.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "(no details)"
	}
	s := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		s += " " + d.Exception.Description
	}
	if d.URL != "" {
		s += fmt.Sprintf(" (%s:%d)", d.URL, d.LineNumber+1)
	}
	return s
}

// ColorCount returns how many of the chart's marks (pixels, on canvas) are in colour hex
// ("#rrggbb"), or within tol of it in each of red, green and blue: a canvas's pixels may differ
// from the colour asked for by a unit or two after colour conversion. 0 for a bad hex.
func (c Chart) ColorCount(hex string, tol int) int {
	var r, g, b int
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return 0
	}
	n := 0
	for css, count := range c.Colors {
		var cr, cg, cb int
		if _, err := fmt.Sscanf(css, "rgb(%d, %d, %d)", &cr, &cg, &cb); err != nil {
			continue
		}
		if abs(cr-r) <= tol && abs(cg-g) <= tol && abs(cb-b) <= tol {
			n += count
		}
	}
	return n
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// maxShotHeight is the height in pixels of the screenshot of a page too tall for Chromium to
// capture whole ("Page is too large"): its top part.
const maxShotHeight = 12000

// topScreenshot is a PNG of the top height pixels of the page, its whole width.
func topScreenshot(height float64) chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		width, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("document.documentElement.scrollWidth"))
		if err != nil {
			return nil, err
		}
		yes := true
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: &yes, FromSurface: &yes,
			Clip: &page.Viewport{Width: width, Height: height, Scale: 1},
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}
