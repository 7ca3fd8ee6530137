package report

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/enginebench/enginebench/internal/report/browsertest"
)

// openPage writes p's HTML and opens it with act (openReport), keeping its screenshot as
// name.png in $ENGINEBENCH_SCREENSHOTS when that is set.
func openPage(t *testing.T, p *Page, name string, act browsertest.Act) *browsertest.Result {
	t.Helper()
	var html bytes.Buffer
	if err := WriteHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	res := openReport(t, html.Bytes(), act)
	keepScreenshot(name, res.Screenshot)
	return res
}

// tableText returns an act that reads, into out, the text as shown (innerText: cells
// tab-separated, rows on lines; nothing of a hidden table) of the table captioned caption, ""
// when there is none.
func tableText(caption string, out *string) browsertest.Act {
	return func(ctx context.Context) error {
		var err error
		*out, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
  for (const c of document.querySelectorAll("table caption")) {
    if (c.textContent === `+strconv.Quote(caption)+`) return c.parentElement.innerText;
  }
  return "";
})()`))
		return err
	}
}

// TestHistoryInBrowser opens the history page of nightly runs with a step change (a's rate
// down 20% and its cpupq up 30% at night 14, b's rate up 20%) in headless Chromium: its charts
// are drawn, each in its configuration's colour with the regression and improvement marks in
// theirs, the verdicts are painted red and green, the flagged table and the table of change
// points are shown, and each change point's rule on the charts is labelled with its run.
func TestHistoryInBrowser(t *testing.T) {
	p := stepChangeHistory(t).Page()
	var flagged, changes, title string
	var labels []string
	res := openPage(t, p, "history", func(ctx context.Context) error {
		if err := tableText("Regressions and improvements", &flagged)(ctx); err != nil {
			return err
		}
		if err := tableText("Change points", &changes)(ctx); err != nil {
			return err
		}
		var err error // the title of the first flagged row's value: a hover shows it
		title, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#history table tbody tr td:nth-child(5)").title`))
		if err != nil {
			return err
		}
		// The texts drawn on the charts with an arrow: the change points' labels.
		labels, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#history svg text")]
  .map(e => e.textContent.trim()).filter(s => s.includes(" → "))`))
		return err
	})
	if want := "results/night14/run.json: config a, step l.i1, ops.insert.per_sec"; title != want {
		t.Errorf("the first flagged value's title %q, want %q", title, want)
	}
	checkCharts(t, p, res, nil) // SVG charts only: no series to show alone
	for _, id := range []string{"history-a-l_i1-insert_per_sec", "history-a-l_i1-cpupq", "history-b-l_i1-insert_per_sec"} {
		if !slices.ContainsFunc(res.Charts, func(c browsertest.Chart) bool { return c.ID == id }) {
			t.Errorf("no chart %s in the page", id)
		}
	}
	for class, want := range map[string]string{ClassBad: "rgb(248, 196, 196)", ClassGood: "rgb(201, 235, 201)"} {
		if got := res.CellBackgrounds[class]; len(got) != 1 || got[want] == 0 {
			t.Errorf("verdict cells of class %q painted %v, want %s", class, got, want)
		}
	}
	for _, want := range []string{"Regressions and improvements", "15 night14", "regression", "improvement"} {
		if !strings.Contains(flagged, want) {
			t.Errorf("the flagged table as shown lacks %q:\n%s", want, flagged)
		}
	}
	if n := strings.Count(changes, "15 night14"); n != 3 || !strings.Contains(changes, "Change points") {
		t.Errorf("the table of change points as shown has %d rows of night14, want 3:\n%s", n, changes)
	}
	if len(labels) != 3 || slices.ContainsFunc(labels, func(l string) bool { return !strings.HasPrefix(l, "run 15 night14: ") }) {
		t.Errorf("change-point labels on the charts %q, want 3 of run 15 night14", labels)
	}
	if res.Width != 1280 || res.Height < 900 {
		t.Errorf("screenshot %dx%d", res.Width, res.Height)
	}
}

// TestHistoryNotEnoughInBrowser: three runs are not enough to judge; the page says so in a
// table that is shown, and draws the headline charts still.
func TestHistoryNotEnoughInBrowser(t *testing.T) {
	h, err := NewHistory(historyRuns(3, func(c string, i int) nightly { return nightly{1000 * float64(i+1), 900, 50} }), HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := h.Page()
	var short, body string
	res := openPage(t, p, "history-short", func(ctx context.Context) error {
		if err := tableText("Not enough history", &short)(ctx); err != nil {
			return err
		}
		var err error
		body, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		return err
	})
	checkCharts(t, p, res, nil) // SVG charts only: no series to show alone
	if !strings.Contains(body, noneFlagged) {
		t.Errorf("the page does not say %q", noneFlagged)
	}
	if !strings.Contains(short, "Not enough history") || !strings.Contains(short, "a\tl.i1\t3") {
		t.Errorf("the page does not show the table of series without enough history:\n%s", short)
	}
	if len(res.CellBackgrounds[ClassBad]) > 0 || len(res.CellBackgrounds[ClassGood]) > 0 {
		t.Errorf("verdicts painted with three runs: %v", res.CellBackgrounds)
	}
}
