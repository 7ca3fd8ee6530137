package report

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// topProbe is what the browser test reads of the page's top summary.
type topProbe struct {
	FirstSection string            `json:"firstSection"`
	HeadingTop   float64           `json:"headingTop"`
	FirstRowTop  float64           `json:"firstRowTop"`
	Fold         float64           `json:"fold"`
	Rows         int               `json:"rows"`
	Painted      map[string]string `json:"painted"` // a colour class's background, "" when no cell has it
	BestText     string            `json:"bestText"`
	BestTitle    string            `json:"bestTitle"`
	BestSrc      string            `json:"bestSrc"`
}

// probeTop measures the top summary in the page: where it is, its rows, the backgrounds of its
// better and worse cells, and the text, title and data-src of the second row's best step.
const probeTop = `(() => {
  const sec = document.querySelector("main section");
  const h = sec.querySelector("h2").getBoundingClientRect();
  const rows = sec.querySelectorAll("tbody tr");
  const painted = {};
  for (const cl of ["better", "worse"]) {
    const td = sec.querySelector("td." + cl);
    painted[cl] = td ? getComputedStyle(td).backgroundColor : "";
  }
  const best = rows.length > 1 ? rows[1].children[3] : rows[0].children[3];
  return {firstSection: sec.id, headingTop: h.top, firstRowTop: rows[0].getBoundingClientRect().top,
    fold: window.innerHeight, rows: rows.length, painted,
    bestText: best.textContent, bestTitle: best.title || "", bestSrc: best.dataset.src || ""};
})()`

// TestTopSummaryInBrowser opens the page of 1, 3 and 30 configurations at 1280 pixels: the
// top summary is the first section, its heading and first row above the fold, a row per
// configuration, its better and worse cells painted in their colours, and a relative cell's
// title names its step and the file it came from. ENGINEBENCH_SCREENSHOTS keeps the pages'
// screenshots (top-1.png, top-3.png, top-30.png).
func TestTopSummaryInBrowser(t *testing.T) {
	requireChromium(t)
	one := loadFixture(t, "insert")
	one.Run.Configs = one.Run.Configs[:1]
	for name, in := range map[string]Input{"1": one, "3": loadFixture(t, "insert"), "30": thirtyConfigs(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, html := pageHTML(t, in)
			var got topProbe
			res := openReport(t, html.Bytes(), func(ctx context.Context) error {
				var err error
				got, err = chromedp.Run(ctx, chromedp.Evaluate[topProbe](probeTop))
				return err
			})
			checkTopProbe(t, got, len(in.Run.Configs))
			keepScreenshot("top-"+name, res.Screenshot)
		})
	}
}

// checkTopProbe checks what probeTop measured in the page of n configurations.
func checkTopProbe(t *testing.T, got topProbe, n int) {
	t.Helper()
	if got.FirstSection != "top" || got.Rows != n {
		t.Errorf("first section %q with %d rows, want the top summary with %d", got.FirstSection, got.Rows, n)
	}
	if got.HeadingTop <= 0 || got.FirstRowTop >= got.Fold-20 {
		t.Errorf("top summary's heading at %.0f and first row at %.0f px, want both above the fold at %.0f", got.HeadingTop, got.FirstRowTop, got.Fold)
	}
	if !strings.Contains(got.BestTitle, "run.json: ") || got.BestTitle != got.BestSrc {
		t.Errorf("best step cell %q: title %q, data-src %q; want the file it came from in both", got.BestText, got.BestTitle, got.BestSrc)
	}
	if n == 1 {
		if got.BestText != missing || got.Painted[ClassBetter] != "" || got.Painted[ClassWorse] != "" {
			t.Errorf("one configuration: best step %q, painted %v; want \"-\" and no comparison", got.BestText, got.Painted)
		}
		return
	}
	step, _, _ := strings.Cut(got.BestText, " ")
	if !strings.Contains(got.BestTitle, "step "+step+",") {
		t.Errorf("best step cell %q: title %q does not name its step", got.BestText, got.BestTitle)
	}
	for class, want := range map[string]string{ClassBetter: "rgb(198, 220, 247)", ClassWorse: "rgb(247, 225, 161)"} {
		if got.Painted[class] != want {
			t.Errorf("a %s cell is painted %q, want %s", class, got.Painted[class], want)
		}
	}
}
