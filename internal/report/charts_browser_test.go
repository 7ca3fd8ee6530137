package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/enginebench/enginebench/internal/report/browsertest"
	"github.com/enginebench/enginebench/internal/report/chart"
	"github.com/enginebench/enginebench/internal/result"
)

// seriesPixels maps each interactive chart's id to, for each of its series (by name), how many
// pixels of its colour the chart has when that series alone is shown.
type seriesPixels map[string]map[string]int

// drawnInColour reports whether chart c drew configuration name's data in palette colour i: on
// canvas, with the series shown alone (a line may lie under another's where they coincide).
func drawnInColour(c browsertest.Chart, alone seriesPixels, name string, i int) bool {
	if c.Canvas {
		return alone[c.ID][name] > 0
	}
	return c.ColorCount(chart.Color(i), 0) > 0
}

// aloneJS shows each series of every interactive chart alone, in turn, and counts the canvas
// pixels within 3 of its colour; it shows them all again before it returns.
const aloneJS = `(async () => {
  const drawn = () => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
  const out = {};
  for (const [id, u] of window.reportCharts) {
    const el = document.getElementById("chart-" + id);
    const d = JSON.parse(el.querySelector('script[type="application/json"]').textContent);
    out[id] = {};
    for (let s = 1; s < u.series.length; s++) {
      for (let k = 1; k < u.series.length; k++) u.setSeries(k, {show: k === s});
      await drawn();
      const hex = d.series[s - 1].color, want = [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16));
      const px = u.ctx.getImageData(0, 0, u.ctx.canvas.width, u.ctx.canvas.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3] === 255 && Math.abs(px[i] - want[0]) <= 3 && Math.abs(px[i + 1] - want[1]) <= 3 && Math.abs(px[i + 2] - want[2]) <= 3) n++;
      }
      out[id][d.series[s - 1].name] = n;
    }
    for (let k = 1; k < u.series.length; k++) u.setSeries(k, {show: true});
  }
  await drawn();
  return out;
})()`

// probeAlone is an act that waits for the interactive charts to be drawn and fills alone.
func probeAlone(alone *seriesPixels) browsertest.Act {
	return func(ctx context.Context) error {
		if err := waitCharts(ctx); err != nil {
			return err
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[seriesPixels](aloneJS, chromedp.EvalAwaitPromise))
		*alone = v
		return err
	}
}

// waitCharts waits until charts.js has drawn the page's interactive charts (bounded by ctx).
func waitCharts(ctx context.Context) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.chartsDrawn !== undefined`))
	return err
}

// chartRun is an Insert Benchmark run of n configurations with two steps, l.i1 and l.i2, of
// secs seconds each, every second recorded, for the insert and delete operations;
// configuration k runs at about 1000+150k rows/s, its seconds ending 3k ms after the whole
// second (so the configurations' points have different x, as in a real run). With gap, the first configuration has no
// record of seconds 20 to 29 of l.i1 (a missing stretch, not a stall).
func chartRun(n, secs int, gap bool) *result.Run {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	r := &result.Run{RunID: "charts", Status: result.StatusOK, Workload: result.Workload{Name: "insert", Scale: "cached"}}
	for ci := range n {
		name := fmt.Sprintf("cfg%02d", ci)
		c := result.Config{Name: name, Engine: "sqlite", Status: result.StatusOK}
		for si, sn := range []string{"l.i1", "l.i2"} {
			start := t0.Add(time.Duration(si*secs) * time.Second)
			rate := 1000 + 150*ci
			s := result.Step{Name: sn, Status: result.StatusOK, StartedAt: start, Seconds: float64(secs), Primary: "insert", Ops: map[string]*result.Op{}}
			for _, op := range []string{"insert", "delete"} {
				s.Ops[op] = &result.Op{Count: int64(secs * rate), Units: int64(secs * rate), PerSec: float64(rate),
					Latency: result.Latency{P50: 100, P99: 900, Max: 5e4, Buckets: []float64{0.5, 0.9, 0.99, 1, 1, 1, 1, 1, 1}}}
			}
			s.Intervals = &result.Series{}
			for i := 1; i <= secs; i++ {
				// Each configuration's seconds end a few milliseconds apart, as a real run's.
				iv := s.Intervals.Append(i, start.Add(time.Duration(i)*time.Second+time.Duration(3*ci)*time.Millisecond))
				if gap && ci == 0 && sn == "l.i1" && i >= 20 && i < 30 {
					continue
				}
				for _, op := range []string{"insert", "delete"} {
					units := int64(rate + (i*7919+ci*31)%100)
					s.Intervals.SetOp(iv, op, result.IntervalOp{Count: units, Units: units, P50: 100,
						P99: 800 + float64((i+ci*7)%50), Max: 4e4 + float64((i*13+ci)%977)})
				}
			}
			c.Steps = append(c.Steps, s)
		}
		r.Configs = append(r.Configs, c)
	}
	return r
}

// openCharts writes the page of r and opens it in Chromium 1280 pixels wide, running act.
func openCharts(t *testing.T, r *result.Run, act browsertest.Act) (*Page, *browsertest.Result) {
	t.Helper()
	p, html := pageHTML(t, Input{Dir: r.RunID, Run: r})
	return p, openReport(t, html.Bytes(), act)
}

// screenshot saves a PNG of the element sel as name.png in $ENGINEBENCH_SCREENSHOTS, if set.
func screenshot(ctx context.Context, sel, name string) error {
	dir := os.Getenv("ENGINEBENCH_SCREENSHOTS")
	if dir == "" {
		return nil
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(sel))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// plotBox is the plotting area (uPlot's .u-over) of a chart, in page pixels of the viewport.
type plotBox struct{ Left, Top, Width, Height float64 }

// overBox scrolls chart id into view and returns its plotting area.
func overBox(ctx context.Context, id string) (plotBox, error) {
	sel := "#chart-" + id
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(sel)); err != nil {
		return plotBox{}, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[plotBox](fmt.Sprintf(`(() => {
  const r = document.querySelector(%q).getBoundingClientRect();
  return {Left: r.left, Top: r.top, Width: r.width, Height: r.height};
})()`, sel+" .u-over")))
}

// cursorState is a chart's cursor and x range as a probe reads them.
type cursorState struct {
	Left  float64  // the cursor's x in CSS pixels of the plot, negative when hidden
	X     *float64 // the x value under the cursor, nil when hidden
	Min   float64  // the x scale's range
	Max   float64
	Value []string // the legend's values, one per configuration
}

// cursorsJS reads every interactive chart's cursor, x range and legend values.
const cursorsJS = `(() => {
  const out = {};
  for (const [id, u] of window.reportCharts) {
    const el = document.getElementById("chart-" + id);
    out[id] = {Left: u.cursor.left, X: u.cursor.left >= 0 ? u.posToVal(u.cursor.left, "x") : null,
      Min: u.scales.x.min, Max: u.scales.x.max,
      Value: Array.from(el.querySelectorAll(".u-legend .u-series")).slice(1).map(s => s.querySelector(".u-value").textContent)};
  }
  return out;
})()`

func cursors(ctx context.Context) (map[string]cursorState, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[map[string]cursorState](cursorsJS))
}

// TestChartsCursorAndZoomInBrowser hovers one per-second chart of a step and checks that every
// chart of that step shows its cursor at the same x with each configuration's value in its
// legend, and the other step's charts none; then drags across it and checks that every chart
// of the step zoomed to the same x range (the other step's not), and that a double click puts
// them all back.
func TestChartsCursorAndZoomInBrowser(t *testing.T) {
	requireChromium(t)
	step := []string{"l_i1-insert-rate", "l_i1-insert-p99", "l_i1-insert-max", "l_i1-delete-rate", "l_i1-delete-p99", "l_i1-delete-max"}
	other := "l_i2-insert-rate"
	var hovered, zoomed, reset, before map[string]cursorState
	act := func(ctx context.Context) error {
		if err := waitCharts(ctx); err != nil {
			return err
		}
		var err error
		if before, err = cursors(ctx); err != nil {
			return err
		}
		box, err := overBox(ctx, step[0])
		if err != nil {
			return err
		}
		x, y := box.Left+box.Width*0.4, box.Top+box.Height/2
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)); err != nil {
			return err
		}
		if hovered, err = cursors(ctx); err != nil {
			return err
		}
		if err := screenshot(ctx, ".charts:has(#chart-l_i1-insert-rate)", "charts-hovered"); err != nil {
			return err
		}
		// Drag from 20% to 60% of the plot's width.
		box, err = overBox(ctx, step[0])
		if err != nil {
			return err
		}
		x0, x1, y := box.Left+box.Width*0.2, box.Left+box.Width*0.6, box.Top+box.Height/2
		if err := chromedp.Do(ctx,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y, chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		); err != nil {
			return err
		}
		if zoomed, err = cursors(ctx); err != nil {
			return err
		}
		if err := screenshot(ctx, ".charts:has(#chart-l_i1-insert-rate)", "charts-zoomed"); err != nil {
			return err
		}
		if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y, chromedp.ClickCount(2))); err != nil {
			return err
		}
		reset, err = cursors(ctx)
		return err
	}
	_, _ = openCharts(t, chartRun(3, 60, false), act)

	h0 := hovered[step[0]]
	if h0.X == nil || *h0.X < 20 || *h0.X > 30 {
		t.Fatalf("hovered chart %s: cursor %+v, want it near 40%% of 60 seconds", step[0], h0)
	}
	for _, id := range step[1:] {
		h := hovered[id]
		if h.X == nil || math.Abs(*h.X-*h0.X) > 0.5 {
			t.Errorf("chart %s: cursor at %v, want the hovered chart's x %v", id, h.X, *h0.X)
		}
		if len(h.Value) != 3 {
			t.Errorf("chart %s: legend values %q, want one per configuration", id, h.Value)
		}
		for i, v := range h.Value {
			if v == "–" || v == "" {
				t.Errorf("chart %s: legend of cfg%02d says %q at the cursor, want its value", id, i, v)
			}
		}
	}
	if h := hovered[other]; h.X != nil {
		t.Errorf("chart %s of another step shows a cursor at %v", other, *h.X)
	}

	z0, b0 := zoomed[step[0]], before[step[0]]
	width := b0.Max - b0.Min
	if !(z0.Min > b0.Min+0.1*width && z0.Max < b0.Max-0.3*width) {
		t.Fatalf("dragged chart %s: x range %v-%v, before %v-%v: not zoomed to 20%%-60%%", step[0], z0.Min, z0.Max, b0.Min, b0.Max)
	}
	for _, id := range step[1:] {
		if z := zoomed[id]; math.Abs(z.Min-z0.Min) > 1e-6 || math.Abs(z.Max-z0.Max) > 1e-6 {
			t.Errorf("chart %s: x range %v-%v after the drag, want the dragged chart's %v-%v", id, z.Min, z.Max, z0.Min, z0.Max)
		}
	}
	if z, b := zoomed[other], before[other]; z.Min != b.Min || z.Max != b.Max {
		t.Errorf("chart %s of another step zoomed to %v-%v (was %v-%v)", other, z.Min, z.Max, b.Min, b.Max)
	}
	for _, id := range append(step, other) {
		if r, b := reset[id], before[id]; r.Min != b.Min || r.Max != b.Max {
			t.Errorf("chart %s: x range %v-%v after the double click, want the whole %v-%v", id, r.Min, r.Max, b.Min, b.Max)
		}
	}
}

// gapProbe is what gapJS finds in a chart: the gap's data and the pixels drawn across it.
type gapProbe struct {
	Nulls int // null values of the first series in the chart's JSON
	// Columns is how many pixel columns lie strictly inside the gap; Gapped and Other count
	// the pixels in those columns within 3 of the first and the second series' colours.
	Columns, Gapped, Other int
}

// gapJS finds the first series' stretch of nulls in chart %q and counts, in the canvas columns
// between its last point before and its first point after (a dot's width inside), the pixels of
// the first and of the second series' colours.
const gapJS = `(async () => {
  await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
  const id = %q, u = window.reportCharts.get(id), el = document.getElementById("chart-" + id);
  const d = JSON.parse(el.querySelector('script[type="application/json"]').textContent);
  const xs = u.data[0], ys = u.data[1];
  const first = ys.indexOf(null), last = ys.lastIndexOf(null);
  const nulls = d.series[0].y.filter(v => v === null).length;
  if (first <= 0 || last >= ys.length - 1) return {Nulls: nulls};
  const from = Math.ceil(u.valToPos(xs[first - 1], "x", true)) + 5, to = Math.floor(u.valToPos(xs[last + 1], "x", true)) - 5;
  const px = u.ctx.getImageData(0, 0, u.ctx.canvas.width, u.ctx.canvas.height).data, w = u.ctx.canvas.width;
  const rgb = hex => [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16));
  const near = (i, c) => px[i + 3] === 255 && c.every((v, k) => Math.abs(px[i + k] - v) <= 3);
  const c0 = rgb(d.series[0].color), c1 = rgb(d.series[1].color);
  const out = {Nulls: nulls, Columns: Math.max(0, to - from + 1), Gapped: 0, Other: 0};
  for (let x = from; x <= to; x++) {
    for (let y = 0; y < u.ctx.canvas.height; y++) {
      const i = (y * w + x) * 4;
      if (near(i, c0)) out.Gapped++;
      if (near(i, c1)) out.Other++;
    }
  }
  return out;
})()`

// TestChartGapInBrowser checks that seconds a configuration has no record of are a gap in its
// lines: null in the chart's data, and no pixel of its colour drawn across the stretch, where
// the next configuration's line goes on.
func TestChartGapInBrowser(t *testing.T) {
	requireChromium(t)
	probes := map[string]gapProbe{}
	var inGap map[string]cursorState
	act := func(ctx context.Context) error {
		if err := waitCharts(ctx); err != nil {
			return err
		}
		for _, id := range []string{"l_i1-insert-rate", "l_i1-insert-p99"} {
			if _, err := overBox(ctx, id); err != nil { // scrolled into view
				return err
			}
			g, err := chromedp.Run(ctx, chromedp.Evaluate[gapProbe](fmt.Sprintf(gapJS, id), chromedp.EvalAwaitPromise))
			if err != nil {
				return err
			}
			probes[id] = g
		}
		// Hover the middle of the gap: second 24.5.
		box, err := overBox(ctx, "l_i1-insert-rate")
		if err != nil {
			return err
		}
		x, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.reportCharts.get("l_i1-insert-rate").valToPos(24.5, "x")`))
		if err != nil {
			return err
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box.Left+x, box.Top+box.Height/2)); err != nil {
			return err
		}
		if inGap, err = cursors(ctx); err != nil {
			return err
		}
		return screenshot(ctx, "#chart-l_i1-insert-rate", "charts-gap")
	}
	p, res := openCharts(t, chartRun(3, 60, true), act)
	for id, g := range probes {
		if g.Nulls != 10 || g.Columns < 20 {
			t.Errorf("chart %s: %d nulls, %d columns inside the gap; want the 10 missing seconds as null, a gap of some width", id, g.Nulls, g.Columns)
		}
		// cfg01's rate line is 150 rows/s above cfg00's and crosses the whole gap; its p99 line
		// runs under cfg02's in places.
		if want := map[bool]int{true: g.Columns / 2, false: 1}[id == "l_i1-insert-rate"]; g.Gapped != 0 || g.Other < want {
			t.Errorf("chart %s: %d pixels of cfg00's colour drawn across its gap (want none), %d of cfg01's (want its line)", id, g.Gapped, g.Other)
		}
	}
	if len(probes) != 2 {
		t.Errorf("probed %d charts", len(probes))
	}
	// In the gap the legend says cfg00 has no value there, and gives the others'.
	for _, id := range []string{"l_i1-insert-rate", "l_i1-insert-p99"} {
		v := inGap[id].Value
		if len(v) != 3 || v[0] != "–" || v[1] == "" || v[1] == "–" || v[2] == "" || v[2] == "–" {
			t.Errorf("chart %s: legend %q with the cursor in cfg00's gap, want – for cfg00 and the others' values", id, v)
		}
	}
	if c := findChart(res, "l_i1-insert-rate"); c == nil || c.ColorCount(chart.Color(0), 3) == 0 {
		t.Errorf("cfg00's line not drawn at all: %+v (configurations %v)", c, p.Configs)
	}
}

// findChart returns the measured chart id, nil if the page has none.
func findChart(res *browsertest.Result, id string) *browsertest.Chart {
	for i := range res.Charts {
		if res.Charts[i].ID == id {
			return &res.Charts[i]
		}
	}
	return nil
}

// TestThirtyConfigsInBrowser opens the report of 30 configurations: no console error, every
// chart laid out no taller than a chart with a few lines of legend, every configuration's line
// drawn in its own colour, the 30 colours apart from each other by more than the pixels'
// tolerance, and the configurations past ten told apart by dashes too.
func TestThirtyConfigsInBrowser(t *testing.T) {
	requireChromium(t)
	const n = 30
	for i := range n {
		for j := range i {
			if near(chart.Color(i), chart.Color(j), 2*3) {
				t.Errorf("colours %d and %d, %s and %s, are too close to tell apart", i, j, chart.Color(i), chart.Color(j))
			}
		}
	}
	var alone seriesPixels
	legends := map[string]int{}
	act := func(ctx context.Context) error {
		if err := probeAlone(&alone)(ctx); err != nil {
			return err
		}
		var err error
		legends, err = chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`Object.fromEntries(Array.from(document.querySelectorAll(".uchart")).map(el => [el.dataset.chart, el.querySelectorAll(".u-legend .u-series").length]))`))
		if err != nil {
			return err
		}
		box, err := overBox(ctx, "l_i1-insert-rate")
		if err != nil {
			return err
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box.Left+box.Width/2, box.Top+box.Height/2)); err != nil {
			return err
		}
		return screenshot(ctx, ".charts:has(#chart-l_i1-insert-rate)", "charts-30-configs")
	}
	p, res := openCharts(t, chartRun(n, 30, false), act)
	if len(p.Configs) != n {
		t.Fatalf("%d configurations", len(p.Configs))
	}
	checkCharts(t, p, res, alone)
	canvas := 0
	for _, c := range res.Charts {
		if !c.Canvas {
			continue
		}
		canvas++
		if c.Height > 480 {
			t.Errorf("chart %s is %.0f pixels tall with 30 configurations", c.ID, c.Height)
		}
		if legends[c.ID] != n+1 {
			t.Errorf("chart %s: %d legend entries, want x and %d configurations", c.ID, legends[c.ID], n)
		}
	}
	if canvas != 12 {
		t.Errorf("%d interactive charts, want 12", canvas)
	}
}

// near reports whether two "#rrggbb" colours are within tol of each other in each of red,
// green and blue.
func near(a, b string, tol int) bool {
	c := browsertest.Chart{Colors: map[string]int{}}
	var r, g, bl int
	fmt.Sscanf(b, "#%02x%02x%02x", &r, &g, &bl)
	c.Colors[fmt.Sprintf("rgb(%d, %d, %d)", r, g, bl)] = 1
	return c.ColorCount(a, tol) > 0
}
