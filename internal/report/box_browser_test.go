package report

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/enginebench/enginebench/internal/report/browsertest"
	"github.com/enginebench/enginebench/internal/result"
)

// boxRect is a box of a box chart as the browser laid it out: its outline's colour and its
// place in the chart, in CSS pixels.
type boxRect struct {
	Stroke string  `json:"stroke"`
	Top    float64 `json:"top"`
	Height float64 `json:"height"`
	Left   float64 `json:"left"`
	Width  float64 `json:"width"`
}

// measureBoxes returns the outlined boxes of the box chart with the given id (a closed path of
// four corners, stroked, unfilled; the grey legend sample left out), top to bottom.
const measureBoxes = `(() => {
  const svg = document.getElementById(%q);
  if (!svg) return null;
  const at = svg.getBoundingClientRect(), out = [];
  for (const p of svg.querySelectorAll("path")) {
    const cs = getComputedStyle(p);
    if (cs.fill !== "none" || cs.stroke === "none" || cs.stroke === "rgb(110, 110, 110)") continue;
    if (!/^M[^LZ]+(L[^LZ]+){3}Z$/.test(p.getAttribute("d"))) continue;
    const b = p.getBoundingClientRect();
    out.push({stroke: cs.stroke, top: b.top - at.top, height: b.height, left: b.left - at.left, width: b.width});
  }
  return out.sort((a, b) => a.top - b.top);
})()`

// manyConfigs is the insert fixture's steps l.i1 and qr100 (service and response times; the
// page of every step of 30 configurations is too tall for Chromium to screenshot) with its
// three configurations cloned to n, named "<name>-<k>": the same results, each clone its own
// colour.
func manyConfigs(t *testing.T, n int) Input {
	in := loadFixture(t, "insert")
	orig := in.Run.Configs
	in.Run.Configs = nil
	for k := 0; len(in.Run.Configs) < n; k++ {
		for _, c := range orig {
			if len(in.Run.Configs) < n {
				c.Name = fmt.Sprintf("%s-%d", c.Name, k)
				c.Steps = slices.DeleteFunc(slices.Clone(c.Steps), func(s result.Step) bool { return s.Name != "l.i1" && s.Name != "qr100" })
				in.Run.Configs = append(in.Run.Configs, c)
			}
		}
	}
	return in
}

// TestBoxViewInBrowser opens the report of 3 and of 30 configurations in headless Chromium:
// every box chart is laid out, taller with more configurations, with each configuration that
// ran the op drawn in its colour; in l.i1's insert chart the boxes of the configurations with
// quartiles are stacked top to bottom in the configurations' order, each in its colour, none
// overlapping the next. Set ENGINEBENCH_SCREENSHOTS to a directory to keep screenshots of the
// page and of that chart.
func TestBoxViewInBrowser(t *testing.T) {
	requireChromium(t)
	const id = "chart-l_i1-insert-box"
	for _, n := range []int{3, 30} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			in := manyConfigs(t, n)
			p, html := pageHTML(t, in)
			var boxes []boxRect
			var chartShot, blockShot, rtShot []byte
			res := openReport(t, html.Bytes(), func(ctx context.Context) error {
				var err error
				if boxes, err = chromedp.Run(ctx, chromedp.Evaluate[[]boxRect](fmt.Sprintf(measureBoxes, id))); err != nil {
					return err
				}
				if chartShot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(id))); err != nil {
					return err
				}
				if blockShot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("div.charts:has(#"+id+")"))); err != nil {
					return err
				}
				rtShot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("div.charts:has(#chart-qr100-insert-rt-box)")))
				return err
			})
			checkBoxCharts(t, p, res, n)
			checkStackedBoxes(t, in.Run, boxes)
			for name, shot := range map[string][]byte{"page": res.Screenshot, "chart": chartShot, "block": blockShot, "rt": rtShot} {
				keepScreenshot(fmt.Sprintf("box-%d-%s", n, name), shot)
			}
		})
	}
}

// checkBoxCharts checks every box chart the browser laid out: as many as the page has, each at
// least as tall as its rows need, with each configuration that has a value drawn in its colour.
func checkBoxCharts(t *testing.T, p *Page, res *browsertest.Result, n int) {
	t.Helper()
	want := map[string][]int{}
	for _, s := range p.Sections {
		for _, b := range s.Blocks {
			for _, c := range b.Charts {
				if c.Box != nil {
					want[c.ID] = boxColours(c.Box)
				}
			}
		}
	}
	seen := 0
	for _, c := range res.Charts {
		cols, ok := want[c.ID]
		if !ok {
			continue
		}
		seen++
		if c.Width < 400 || c.Height < float64(n)*14 {
			t.Errorf("box chart %s of %d configurations laid out at %.0fx%.0f", c.ID, n, c.Width, c.Height)
		}
		for _, i := range cols {
			if c.Colors[rgb(i)] == 0 {
				t.Errorf("box chart %s: nothing drawn in %s's colour %s", c.ID, p.Configs[i], rgb(i))
			}
		}
	}
	if seen != len(want) || seen == 0 {
		t.Errorf("%d box charts laid out, the page has %d", seen, len(want))
	}
}

// checkStackedBoxes checks l.i1's insert boxes: one per configuration with quartiles, top to
// bottom in order, each outlined in its colour, at least 6 px tall and clear of the next.
func checkStackedBoxes(t *testing.T, r *result.Run, boxes []boxRect) {
	t.Helper()
	var colours []string
	for i, c := range r.Configs {
		if s := findStep(c, "l.i1"); s != nil && s.Ops["insert"].Latency.P25 != nil {
			colours = append(colours, rgb(i))
		}
	}
	got := make([]string, len(boxes))
	for i, b := range boxes {
		got[i] = b.Stroke
		if b.Height < 6 || b.Width < 1 {
			t.Errorf("box %d (%s) is %.1fx%.1f px", i, b.Stroke, b.Width, b.Height)
		}
		if i > 0 && b.Top < boxes[i-1].Top+boxes[i-1].Height+2 {
			t.Errorf("box %d (%s) at %.1f overlaps the one above, %.1f+%.1f", i, b.Stroke, b.Top, boxes[i-1].Top, boxes[i-1].Height)
		}
	}
	if !slices.Equal(got, colours) {
		t.Errorf("boxes top to bottom in %s, want %s", strings.Join(got, " "), strings.Join(colours, " "))
	}
}
